package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/the-loop/the-loop/mcp/transport"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/service"
)

// Argument names shared by the graph tools (camelCase, as the CLI's JSON).
const (
	argRepo      = "repo"
	argAll       = "all"
	argRecompute = "recompute"
	argNode      = "node"
	argLoop      = "loop"
)

func repoArg() mcp.ToolOption {
	return mcp.WithString(argRepo, mcp.Description("Repository checkout to read (default: the server's --repo)."))
}

var checkTool = Tool{
	Def: NewToolDef("check", Annotations{Title: "Check work items", ReadOnly: true, Idempotent: true},
		mcp.WithDescription("Report where work items stand, read-only: every node's verdict (pass, block, wait, skip) with the messages to act on. "+
			"The same report as `the-loop check --format json`. Give workItem for one item or all=true for every item."),
		repoArg(),
		mcp.WithString(ArgWorkItem, mcp.Description(workItemDescription)),
		mcp.WithBoolean(argAll, mcp.Description("Check every work item under the spec directory.")),
		mcp.WithBoolean(argRecompute, mcp.Description("Derive every verdict from the artifacts and signed decisions alone, ignoring the stored pointer.")),
	),
	Handler: handle(func(ctx context.Context, deps Deps, in service.CheckRequest) *mcp.CallToolResult {
		if (in.WorkItem == "") == !in.All {
			return mcp.NewToolResultError("give either workItem (one item, e.g. issue-12) or all=true, not both and not neither")
		}
		in.Encode = !in.All // one item: its report comes encoded, from the memo when unchanged
		res, err := deps.Backend.Check(ctx, in)
		if err != nil {
			return coreError("check", err)
		}
		if !in.All {
			var report any = res.Reports[0]
			if len(res.Encoded) == 1 && res.Encoded[0] != nil {
				report = transport.Encoded{Value: res.Reports[0], JSON: res.Encoded[0]}
			}
			return result(report, checkSummary(res), res.Warnings)
		}
		return result(res, checkSummary(res), res.Warnings)
	}),
}

// checkSummary is the short text beside the structured report.
func checkSummary(res service.CheckResult) string {
	if len(res.Reports) == 1 {
		r := res.Reports[0]
		state := "ok"
		if !r.OK {
			state = "UNMET"
		}
		line := fmt.Sprintf("%s: %s (at %s)", r.WorkItem, state, r.CurrentNode)
		for _, n := range r.Nodes {
			if n.Node == r.CurrentNode && !runtime.Satisfied(n.Status) {
				for _, m := range n.Messages {
					line += "\n- " + m
				}
			}
		}
		return line
	}
	ok := 0
	for _, r := range res.Reports {
		if r.OK {
			ok++
		}
	}
	return fmt.Sprintf("%d/%d work items satisfied", ok, len(res.Reports))
}

// coreError turns a core failure into a tool error the model can act on.
func coreError(op string, err error) *mcp.CallToolResult {
	var what string
	switch {
	case errors.Is(err, repoconfig.ErrUnreadable):
		what = "; pass repo as the path of a repository checkout"
	}
	return mcp.NewToolResultError(fmt.Sprintf("%s failed: %v%s", op, err, what))
}
