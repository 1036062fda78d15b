package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/service"
)

func init() { register(checkTool) }

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
		mcp.WithString(ArgWorkItem, mcp.Description("Work item id: a folder under the spec directory, e.g. issue-12.")),
		mcp.WithBoolean(argAll, mcp.Description("Check every work item under the spec directory.")),
		mcp.WithBoolean(argRecompute, mcp.Description("Derive every verdict from the artifacts and signed decisions alone, ignoring the stored pointer.")),
	),
	Handler: func(deps Deps) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			repo, bad := OptionalString(req, argRepo, deps.DefaultRepo)
			if bad != nil {
				return bad, nil
			}
			item, bad := OptionalString(req, ArgWorkItem, "")
			if bad != nil {
				return bad, nil
			}
			all, bad := OptionalBool(req, argAll, false)
			if bad != nil {
				return bad, nil
			}
			recompute, bad := OptionalBool(req, argRecompute, false)
			if bad != nil {
				return bad, nil
			}
			if (item == "") == !all {
				return mcp.NewToolResultError("give either workItem (one item, e.g. issue-12) or all=true, not both and not neither"), nil
			}
			res, err := deps.Backend.Check(ctx, service.CheckRequest{Repo: repo, WorkItem: item, All: all, Recompute: recompute})
			if err != nil {
				return coreError("check", err), nil
			}
			summary := checkSummary(res)
			if !all {
				return mcp.NewToolResultStructured(res.Reports[0], summary), nil
			}
			reports := res.Reports
			if reports == nil {
				reports = []runtime.Report{}
			}
			return mcp.NewToolResultStructured(map[string]any{"reports": reports}, summary), nil
		}
	},
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
	case errors.Is(err, service.ErrRepoUnreadable):
		what = "; pass repo as the path of a repository checkout"
	}
	return mcp.NewToolResultError(fmt.Sprintf("%s failed: %v%s", op, err, what))
}
