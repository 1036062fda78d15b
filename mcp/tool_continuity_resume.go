package mcp

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/the-loop/the-loop/agents/continuity"
	"github.com/the-loop/the-loop/service"
)

var continuityResumeTool = Tool{
	Def: NewToolDef("continuity_resume", Annotations{Title: "Resume the continuity record"},
		mcp.WithDescription("Resume the live continuity record so continuity_update can record again: an interrupted set carries on as a new session; "+
			"a set that cannot be resumed (stale, damaged, or recorded for another project) is moved aside under .handoff/continuity/rejected/ and a fresh one starts "+
			"from the goal it recorded. The same core as `the-loop continuity resume --format json`. Call it when continuity_update says to resume; nothing is deleted."),
		continuityRepoArg(),
	),
	Handler: handle(func(ctx context.Context, deps Deps, in service.ContinuityResumeRequest) *mcp.CallToolResult {
		in.Harness = "mcp"
		res, err := deps.Backend.ContinuityResume(ctx, in)
		if err != nil {
			return coreError("continuity_resume", err)
		}
		return result(res, resumeSummary(res.StartResult), res.Warnings)
	}),
}

// resumeSummary is the short text beside a resume's structured result.
func resumeSummary(res continuity.StartResult) string {
	text := fmt.Sprintf("%s: session %s (%s)", res.Mode, res.Session, res.Status)
	if res.Resumed != "" {
		text += "; carries on from session " + res.Resumed
	}
	if res.Rejected != nil {
		text += "\n" + res.Rejected.Message()
	}
	return text + "\ngoal: " + res.Goal + "\nnext action: " + res.NextAction
}
