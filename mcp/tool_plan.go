package mcp

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/the-loop/the-loop/service"
)

// argItem is the plan's item: a ticket reference or a work item id.
const argItem = "item"

var planTool = Tool{
	Def: NewToolDef("plan", Annotations{Title: "Dependency plan of work items", ReadOnly: true, Idempotent: true, OpenWorld: true},
		mcp.WithDescription("The dependency graph under a parent item or around one item, read from GitHub and Jira: each ticket's reference, "+
			"loop, current node and what blocks it (\"blocked by #2 (at design)\"), its children, and any dependency cycle. "+
			"The same plan as `the-loop plan --format json`. Read-only: it never arms, holds, releases or approves anything."),
		repoArg(),
		mcp.WithString(argItem, mcp.Required(), mcp.Description("A ticket reference (github:OWNER/REPO#12, jira:PROJ-12, #12, OWNER/REPO#12, PROJ-12 or the ticket's URL) or a work item id, e.g. issue-12.")),
	),
	Handler: handle(func(ctx context.Context, deps Deps, in service.PlanRequest) *mcp.CallToolResult {
		res, err := deps.Backend.Plan(ctx, in)
		if err != nil {
			return coreError("plan", err)
		}
		var b strings.Builder
		if err := res.Plan.WriteTable(&b); err != nil {
			return coreError("plan", err)
		}
		return result(res, b.String(), res.Warnings)
	}),
}
