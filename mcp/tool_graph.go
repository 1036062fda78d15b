package mcp

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/the-loop/the-loop/service"
)

var graphStatusTool = Tool{
	Def: NewToolDef("graph_status", Annotations{Title: "Where a work item stands", ReadOnly: true, Idempotent: true},
		mcp.WithDescription("Where a work item stands: its current node, what that node's exit checks still need, and the graph context block to keep in your prompt. Call this first."),
		repoArg(),
		mcp.WithString(ArgWorkItem, mcp.Required(), mcp.Description(workItemDescription)),
	),
	Handler: handle(func(ctx context.Context, deps Deps, in service.ItemRequest) *mcp.CallToolResult {
		gs, err := deps.Backend.Status(ctx, in)
		if err != nil {
			return coreError("graph_status", err)
		}
		return result(gs, gs.GraphContext, gs.Warnings)
	}),
}

var graphShowTool = Tool{
	Def: NewToolDef("graph_show", Annotations{Title: "Show a loop", ReadOnly: true, Idempotent: true},
		mcp.WithDescription("The nodes and edges of a shipped loop: each node's actor, artifacts, hooks and flags, and the edges it routes on."),
		mcp.WithString(argLoop, mcp.Description("Shipped loop (default pdlc-work-item-loop)."), mcp.Enum(service.Loops()...)),
	),
	Handler: handle(func(ctx context.Context, deps Deps, in service.GraphShowRequest) *mcp.CallToolResult {
		view, err := deps.Backend.GraphShow(ctx, in)
		if err != nil {
			return coreError("graph_show", err)
		}
		return result(view, service.GraphText(view.Graph), view.Warnings)
	}),
}

var graphCompleteTool = Tool{
	Def: NewToolDef("graph_complete", Annotations{Title: "Claim a node is done", OpenWorld: true},
		mcp.WithDescription("Claim that the work of the current node (or the named node) is done. The loop runs the node's exit checks: on pass it advances "+
			"and says where to; otherwise it returns the findings to fix. A claim for a node that is not current, or for a human gate, is refused with the reason. "+
			"This never approves, skips or forces anything."),
		repoArg(),
		mcp.WithString(ArgWorkItem, mcp.Required(), mcp.Description(workItemDescription)),
		mcp.WithString(argNode, mcp.Description("The node claimed done (default: the current node).")),
		mcp.WithNumber(argPR, mcp.Description("Claim the node of this pull request's loop (its number) instead of the work item's, as the assignment of a pull request's loop says.")),
		mcp.WithString(argPRRepo, mcp.Description("OWNER/REPO of that pull request (default: the origin repository).")),
	),
	Handler: handle(func(ctx context.Context, deps Deps, in service.CompleteRequest) *mcp.CallToolResult {
		in.Actor = caller(ctx)
		claim, err := deps.Backend.Complete(ctx, in)
		if err != nil {
			return coreError("graph_complete", err)
		}
		return result(claim, service.ClaimText(claim.ClaimAnswer, in.WorkItem), claim.Warnings)
	}),
}
