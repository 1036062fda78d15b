package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/the-loop/the-loop/mcp/transport"
	"github.com/the-loop/the-loop/service"
)

// Argument names of the pull request tools (camelCase, as the CLI's JSON).
const (
	argRepository   = "repository"
	argRepositories = "repositories"
	argBase         = "base"
	argDraft        = "draft"
	argPR           = "pr"
	argPRRepo       = "prRepo"
)

// caller names the MCP caller as an actor: mcp, or mcp:<subject>.
func caller(ctx context.Context) string {
	if p, ok := transport.PrincipalFromContext(ctx); ok && p.Subject != "" {
		return "mcp:" + p.Subject
	}
	return "mcp"
}

var prCreateTool = Tool{
	Def: NewToolDef("pr_create", Annotations{Title: "Open the work item's pull request", Idempotent: true, OpenWorld: true},
		mcp.WithDescription("Open the work item's pull request from its branch (the-loop/<id>-<slug of the ticket's title>), or adopt the open one from that branch; "+
			"link it to the item (the record, a comment on the ticket, `Closes` in its body or a Jira remote link) and start its pdlc-pr-loop. "+
			"The same core as `the-loop pr create --format json`. Push the branch first. Opening a pull request only adds work: it approves nothing."),
		repoArg(),
		mcp.WithString(ArgWorkItem, mcp.Required(), mcp.Description("Work item id, e.g. issue-12.")),
		mcp.WithString(argRepository, mcp.Description("OWNER/REPO to open it in (default: the origin repository, where the ticket lives).")),
		mcp.WithString(argBase, mcp.Description("The branch it merges into (default main).")),
		mcp.WithBoolean(argDraft, mcp.Description("Open it as a draft.")),
	),
	Handler: handle(func(ctx context.Context, deps Deps, in service.PRCreateRequest) *mcp.CallToolResult {
		in.Actor = caller(ctx)
		res, err := deps.Backend.PRCreate(ctx, in)
		if err != nil {
			return coreError("pr_create", err)
		}
		if res.Asked {
			text := fmt.Sprintf("asked: the loop opens (or adopts) the pull request of %s in %s from its branch on its next poll cycle (for: %s)", res.WorkItem,
				res.PullRequest.Repo, strings.Join(res.Role, ", "))
			if slices.Contains(res.Role, "code") {
				text += "; its pdlc-pr-loop starts then, and the next assignment names its number for graph_complete's pr"
			}
			return result(res, text, res.Warnings)
		}
		verb := "adopted"
		if res.Created {
			verb = "opened"
		}
		text := fmt.Sprintf("%s %s for %s: %s (for: %s)", verb, res.PullRequest.Key(), res.WorkItem, res.PullRequest.URL, strings.Join(res.Role, ", "))
		if res.InnerLoopNode != "" {
			text += fmt.Sprintf("; its pdlc-pr-loop stands at %s: claim its nodes with graph_complete and pr=%d", res.InnerLoopNode, res.PullRequest.Number)
		}
		return result(res, text, res.Warnings)
	}),
}

var graphReposTool = Tool{
	Def: NewToolDef("graph_repos", Annotations{Title: "Declare the repositories a work item needs code in", Idempotent: true},
		mcp.WithDescription("Declare the repositories the work item needs code in (the full set; its implementation waits until each has a pull request loop and every loop finished), "+
			"or, with no repositories, read the declaration. Over this tool a declaration may only add repositories: one that drops a declared repository "+
			"(or the origin repository, when none is declared) is refused; removing one is an operator's `the-loop graph repos`."),
		repoArg(),
		mcp.WithString(ArgWorkItem, mcp.Required(), mcp.Description("Work item id, e.g. issue-12.")),
		stringList(argRepositories, "Every repository the item needs code in, as OWNER/REPO, e.g. [\"octo/app\", \"octo/infra\"]."),
	),
	Handler: handle(func(ctx context.Context, deps Deps, in service.GraphReposRequest) *mcp.CallToolResult {
		in.Actor, in.AddOnly, in.Clear = caller(ctx), true, false
		res, err := deps.Backend.GraphRepos(ctx, in)
		if err != nil {
			return coreError("graph_repos", err)
		}
		text := fmt.Sprintf("%s: no repository is declared; the origin repository is the one it needs a pull request in", res.WorkItem)
		if res.Declared {
			text = fmt.Sprintf("%s declares: %s", res.WorkItem, strings.Join(res.Repositories, ", "))
		}
		return result(res, text, res.Warnings)
	}),
}
