package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/the-loop/the-loop/service"
)

const (
	argCritic     = "critic"
	argPromptFile = "promptFile"
)

var criticListTool = Tool{
	Def: NewToolDef("critic_list", Annotations{Title: "List the critics", ReadOnly: true, Idempotent: true},
		mcp.WithDescription("The critics the operator configured (other harnesses or models that review a change), whether each can run here "+
			"(its executable found, its version probe answered) or why not, and the review round caps. The same list as `the-loop critic list --format json`."),
	),
	Handler: handle(func(ctx context.Context, deps Deps, in service.CriticListRequest) *mcp.CallToolResult {
		res, err := deps.Backend.CriticList(ctx, in)
		if err != nil {
			return coreError("critic_list", err)
		}
		return result(res, criticListText(res), res.Warnings)
	}),
}

func criticListText(res service.CriticListResult) string {
	var b strings.Builder
	for _, c := range res.Critics {
		if c.Available {
			fmt.Fprintf(&b, "%s: available (%s)\n", c.Name, c.Version)
		} else {
			fmt.Fprintf(&b, "%s: unavailable — %s\n", c.Name, c.Unavailable)
		}
	}
	fmt.Fprintf(&b, "up to %d self-review and %d critic rounds before the human reviewer", res.Reviews.SelfReviewCount, res.Reviews.CriticReviewCount)
	return b.String()
}

var criticRunTool = Tool{
	Def: NewToolDef("critic_run", Annotations{Title: "Run a critic round", OpenWorld: true},
		mcp.WithDescription("Run one round of a configured critic on a review assignment (a file) in the repository, and return its envelope: "+
			"the critic's output (its findings), how it ended, and `unavailable` when the round does not count. With workItem the loop records "+
			"the round on the item at the node it stands at; put the envelope's runId in the Run column of evidence/critic-review.md "+
			"(with pr, the pull request loop's own table: pr-loops/pr-<n>/evidence/critic-review.md, or pr-loops/<owner>__<repo>/pr-<n>/ in another repository). "+
			"Running a critic adds work: it never approves, skips or forces anything. The same as `the-loop critic run`."),
		repoArg(),
		mcp.WithString(argCritic, mcp.Required(), mcp.Description("The configured critic's name, as critic_list names it.")),
		mcp.WithString(argPromptFile, mcp.Required(), mcp.Description("The file holding the review assignment, inside the repository (a relative path is the repository's).")),
		mcp.WithString(ArgWorkItem, mcp.Description("Record the round on this work item, e.g. issue-12 (default: recorded nowhere, so it counts for no review).")),
		mcp.WithNumber(argPR, mcp.Description("Record it on this pull request's loop of the work item instead (its number), at the node that loop stands at, as the assignment of a pull request's critic-review says.")),
		mcp.WithString(argPRRepo, mcp.Description("OWNER/REPO of that pull request (default: the origin repository).")),
	),
	Handler: handle(func(ctx context.Context, deps Deps, in service.CriticRunRequest) *mcp.CallToolResult {
		res, err := deps.Backend.CriticRun(ctx, in)
		if err != nil {
			return coreError("critic_run", err)
		}
		return result(res, criticRunText(res, in.WorkItem), res.Warnings)
	}),
}

func criticRunText(res service.CriticRunResult, item string) string {
	head := fmt.Sprintf("critic %s, run %s: ", res.Critic, res.RunID)
	if res.Counts() {
		head += "the round counts"
	} else {
		head += "the round does not count — " + res.Unavailable
	}
	if res.Node != "" {
		head += fmt.Sprintf("; recorded on %s at %s", item, res.Node)
	}
	if strings.TrimSpace(res.Output) == "" {
		return head
	}
	return head + "\n\n" + res.Output
}
