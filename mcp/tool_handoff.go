package mcp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/mcp/transport"
	"github.com/the-loop/the-loop/service"
)

// Argument names of the handoff tools (camelCase, as the core's JSON).
const (
	argHandoffRecord       = "record"
	argHandoffFiles        = "files"
	argHandoffFromDir      = "fromDir"
	argHandoffFromArtifact = "fromArtifact"
	argHandoffBranch       = "branch"
	argHandoffPullRequest  = "pullRequest"
)

var handoffPostTool = Tool{
	Def: NewToolDef("handoff_post", Annotations{Title: "Post a handoff record", Idempotent: true, OpenWorld: true},
		mcp.WithDescription("Render a handoff record and post it, with its continuation parts, on the ticket as the loop's own comments, for the caller: "+
			"the record names the person it was posted for (the operator on stdio and the static token, the OAuth subject), who must be an authorized user. "+
			"The same core as `the-loop handoff post`. Post it last but one, after the issue, the Jira copy, the spec branch and draft PR and the spec-chain artifact, "+
			"and before arming: the record is refused, and nothing is posted, when it is invalid or when the ticket, the branch's files (with their hashes), "+
			"the pull request or the Jira copy it names does not exist. Comments already posted are not repeated, so a failed call can be retried."),
		mcp.WithString(ArgWorkItem, mcp.Required(), mcp.Description("The ticket to post on: github:OWNER/REPO#N, OWNER/REPO#N, jira:KEY-1 or an issue URL.")),
		mcp.WithObject(argHandoffRecord, mcp.Required(), mcp.Description("The record in its JSON form: version, stage, enter, artifacts [{name, sha256}], carriedBy, "+
			"and as needed branch, pullRequest, specArtifact, source, approvedInChat, mirror, confirmation. Unknown fields are refused.")),
		mcp.WithObject(argHandoffFiles, mcp.Description("For carriedBy ticket: each carried file's text by artifact name, e.g. {\"requirements.md\": \"# Requirements ...\"}."),
			mcp.AdditionalProperties(map[string]any{"type": "string"})),
		mcp.WithString(argRepo, mcp.Description("Repository checkout whose harness config names the spec folder (default: the server's --repo).")),
	),
	Handler: handoffHandler("handoff_post", func(ctx context.Context, deps Deps, hb HandoffBackend, in service.HandoffPostRequest) *mcp.CallToolResult {
		// The record is posted for the caller's person, never the loop.
		principal, _ := transport.PrincipalFromContext(ctx)
		in.By = principal.Person(deps.Operator)
		res, err := hb.HandoffPost(ctx, in)
		switch {
		case errors.Is(err, service.ErrHandoffRefused):
			return mcp.NewToolResultError("handoff_post: " + err.Error() + ". Fix the record or post what it points at first, then call again.")
		case err != nil:
			return coreError("handoff_post", err)
		}
		lines := []string{fmt.Sprintf("handoff record on %s:", res.Ref)}
		for _, c := range res.Comments {
			what := "posted"
			if c.Existing {
				what = "already there"
			}
			lines = append(lines, fmt.Sprintf("- comment %d %s: %s", c.Part, what, c.URL))
		}
		for _, w := range res.Warnings {
			lines = append(lines, "- warning: "+w)
		}
		return mcp.NewToolResultStructured(res, strings.Join(lines, "\n"))
	}),
}

var handoffShowTool = Tool{
	Def: NewToolDef("handoff_show", Annotations{Title: "Show the frozen handoff", ReadOnly: true, Idempotent: true},
		mcp.WithDescription("The handoff record frozen in a work item's state when it was armed: the record, its author and comment URL, any demotions "+
			"import-handoff recorded, and the spec-chain artifact URL. The same core as `the-loop handoff show --format json`. Read-only; "+
			"a record posted or edited after the item was armed is never shown here, because it never reaches state."),
		repoArg(),
		mcp.WithString(ArgWorkItem, mcp.Required(), mcp.Description(workItemDescription)),
	),
	Handler: handoffHandler("handoff_show", func(ctx context.Context, _ Deps, hb HandoffBackend, in service.ItemRequest) *mcp.CallToolResult {
		v, err := hb.HandoffShow(ctx, in)
		if err != nil {
			return coreError("handoff_show", err)
		}
		if v.Handoff == nil {
			return result(v, v.WorkItem+" carries no handoff: it walks the ordinary loop.", v.Warnings)
		}
		rec, _ := handoff.DecodeJSON(v.Handoff.Record)
		text := fmt.Sprintf("%s: handed off by @%s at %s, enter %s, carried by %s; record %s; %d demotion(s)",
			v.WorkItem, strings.TrimLeft(v.Handoff.Author, "@"), rec.Stage, rec.Enter, rec.CarriedBy, v.Handoff.CommentURL, len(v.HandoffDemoted))
		return result(v, text, v.Warnings)
	}),
}

var handoffImportTool = Tool{
	Def: NewToolDef("handoff_import", Annotations{Title: "Import the handed-off files", Destructive: true, Idempotent: true, OpenWorld: true},
		mcp.WithDescription("Write the files a handoff carried into the work item's spec folder, each verified against the frozen record's sha256 over its bytes "+
			"with LF line endings. The same core as `the-loop handoff import`. Without a source the record's carrier decides: the checked-out spec branch or "+
			"the ticket comments; for a spec-chain artifact, pass the files extracted from its embedded <script id=\"the-loop-spec-files\"> element. "+
			"A missing or mismatched file is refused and nothing unverified is written; the verified files before the first refused one are written. "+
			"Then commit the files and claim import-handoff: a refused file makes the walk redo the phase that produces it. Refused once the walk has passed import-handoff."),
		repoArg(),
		mcp.WithString(ArgWorkItem, mcp.Required(), mcp.Description(workItemDescription)),
		mcp.WithString(argHandoffFromDir, mcp.Description("Directory on the server holding the files extracted from the spec-chain artifact.")),
		mcp.WithString(argHandoffFromArtifact, mcp.Description("A saved spec-chain artifact page on the server; its embedded files are read.")),
		mcp.WithObject(argHandoffFiles, mcp.Description("The extracted files themselves, by artifact name, e.g. {\"design.md\": \"# Design ...\"}."),
			mcp.AdditionalProperties(map[string]any{"type": "string"})),
	),
	Handler: handoffHandler("handoff_import", func(ctx context.Context, _ Deps, hb HandoffBackend, in service.HandoffImportRequest) *mcp.CallToolResult {
		res, err := hb.HandoffImport(ctx, in)
		if err != nil {
			return coreError("handoff_import", err)
		}
		text := fmt.Sprintf("%s: verified and written into %s: %s", res.WorkItem, res.SpecDir, strings.Join(res.Written, ", "))
		if len(res.Written) == 0 {
			text = fmt.Sprintf("%s: nothing verified, nothing written into %s", res.WorkItem, res.SpecDir)
		}
		if res.OK {
			return result(res, text, res.Warnings)
		}
		refused := make([]string, 0, len(res.Failed))
		for _, f := range res.Failed {
			refused = append(refused, f.Name+" "+f.Reason)
		}
		sort.Strings(refused)
		out := result(res, text+". Refused: "+strings.Join(refused, "; ")+
			". Claiming import-handoff now makes the walk redo the phase that produces the first refused file.", res.Warnings)
		out.IsError = true
		return out
	}),
}

var handoffNoteTool = Tool{
	Def: NewToolDef("handoff_note", Annotations{Title: "Point the handoff at the committed files", Destructive: true, Idempotent: true, OpenWorld: true},
		mcp.WithDescription("After the carried files are committed and their pull request exists, point the handoff record at them. The same core as "+
			"`the-loop handoff note`. The loop's own record is edited to read carried-by branch with the branch and pull request; a record someone else posted, "+
			"or files that do not all verify, get one superseding comment instead, rewritten (never repeated) on later calls. State is not changed."),
		repoArg(),
		mcp.WithString(ArgWorkItem, mcp.Required(), mcp.Description(workItemDescription)),
		mcp.WithString(argHandoffBranch, mcp.Required(), mcp.Description("The branch the files were committed on, the-loop/<name>.")),
		mcp.WithInteger(argHandoffPullRequest, mcp.Required(), mcp.Min(1), mcp.Description("That branch's pull request number.")),
	),
	Handler: handoffHandler("handoff_note", func(ctx context.Context, _ Deps, hb HandoffBackend, in service.HandoffNoteRequest) *mcp.CallToolResult {
		res, err := hb.HandoffNote(ctx, in)
		if err != nil {
			return coreError("handoff_note", err)
		}
		text := fmt.Sprintf("%s: %s %s", in.WorkItem, res.Action, res.CommentURL)
		if len(res.Unverified) > 0 {
			text += "; not committed as handed off: " + strings.Join(res.Unverified, ", ")
		}
		return result(res, text, res.Warnings)
	}),
}

// handoffHandler is handle for a handoff tool: on a backend without
// handoffs it refuses before reading any argument, and does nothing.
func handoffHandler[R any](tool string, call func(ctx context.Context, deps Deps, hb HandoffBackend, in R) *mcp.CallToolResult) func(Deps) server.ToolHandlerFunc {
	return func(deps Deps) server.ToolHandlerFunc {
		hb, ok := deps.Backend.(HandoffBackend)
		if !ok {
			return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultError(tool + " is not available: this server's core does not implement handoffs. Nothing was done."), nil
			}
		}
		return handle(func(ctx context.Context, deps Deps, in R) *mcp.CallToolResult {
			return call(ctx, deps, hb, in)
		})(deps)
	}
}
