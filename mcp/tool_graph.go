package mcp

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/the-loop/the-loop/service"
)

func init() {
	register(graphStatusTool)
	register(graphShowTool)
	register(graphCompleteTool)
}

var graphStatusTool = Tool{
	Def: NewToolDef("graph_status", Annotations{Title: "Where a work item stands", ReadOnly: true, Idempotent: true},
		mcp.WithDescription("Where a work item stands: its current node, what that node's exit checks still need, and the graph context block to keep in your prompt. Call this first."),
		repoArg(),
		mcp.WithString(ArgWorkItem, mcp.Required(), mcp.Description("Work item id: a folder under the spec directory, e.g. issue-12.")),
	),
	Handler: func(deps Deps) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			repo, bad := OptionalString(req, argRepo, deps.DefaultRepo)
			if bad != nil {
				return bad, nil
			}
			item, bad := RequiredString(req, ArgWorkItem)
			if bad != nil {
				return bad, nil
			}
			gs, _, err := deps.Backend.Status(ctx, service.ItemRequest{Repo: repo, WorkItem: item})
			if err != nil {
				return coreError("graph_status", err), nil
			}
			return mcp.NewToolResultStructured(gs, gs.GraphContext), nil
		}
	},
}

var graphShowTool = Tool{
	Def: NewToolDef("graph_show", Annotations{Title: "Show a loop", ReadOnly: true, Idempotent: true},
		mcp.WithDescription("The nodes and edges of a shipped loop: each node's actor, artifacts, hooks and flags, and the edges it routes on."),
		mcp.WithString(argLoop, mcp.Description("Shipped loop (default pdlc-work-item-loop)."), mcp.Enum(service.Loops()...)),
	),
	Handler: func(deps Deps) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			loop, bad := OptionalString(req, argLoop, "")
			if bad != nil {
				return bad, nil
			}
			view, g, err := service.Show(loop)
			if err != nil {
				return mcp.NewToolResultError(fmt.Sprintf("graph_show failed: %v", err)), nil
			}
			return mcp.NewToolResultStructured(view, service.GraphText(g)), nil
		}
	},
}

var graphCompleteTool = Tool{
	Def: NewToolDef("graph_complete", Annotations{Title: "Claim a node is done", OpenWorld: true},
		mcp.WithDescription("Claim that the work of the current node (or the named node) is done. The loop runs the node's exit checks: on pass it advances "+
			"and says where to; otherwise it returns the findings to fix. A claim for a node that is not current, or for a human gate, is refused with the reason. "+
			"This never approves, skips or forces anything."),
		repoArg(),
		mcp.WithString(ArgWorkItem, mcp.Required(), mcp.Description("Work item id, e.g. issue-12.")),
		mcp.WithString(argNode, mcp.Description("The node claimed done (default: the current node).")),
	),
	Handler: func(deps Deps) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			repo, bad := OptionalString(req, argRepo, deps.DefaultRepo)
			if bad != nil {
				return bad, nil
			}
			item, bad := RequiredString(req, ArgWorkItem)
			if bad != nil {
				return bad, nil
			}
			node, bad := OptionalString(req, argNode, "")
			if bad != nil {
				return bad, nil
			}
			actor := "mcp"
			if p, ok := PrincipalFromContext(ctx); ok && p.Subject != "" {
				actor = "mcp:" + p.Subject
			}
			env, _, err := deps.Backend.Complete(ctx, service.CompleteRequest{ItemRequest: service.ItemRequest{Repo: repo, WorkItem: item}, Node: node, Actor: actor})
			if err != nil {
				return coreError("graph_complete", err), nil
			}
			return mcp.NewToolResultStructured(env, service.ClaimText(env, item)), nil
		}
	},
}
