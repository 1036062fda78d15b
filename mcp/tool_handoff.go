package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/service"
)

// HandoffBackend is the part of the core the handoff tools call. It is kept
// apart from Backend so a backend without handoffs still serves every other
// tool; the handoff tools refuse with a tool error on such a backend.
type HandoffBackend interface {
	HandoffPost(ctx context.Context, req service.HandoffPostRequest) (service.HandoffPostResult, error)
	HandoffShow(ctx context.Context, req service.ItemRequest) (service.HandoffView, []string, error)
	HandoffImport(ctx context.Context, req service.HandoffImportRequest) (service.HandoffImportResult, []string, error)
	HandoffNote(ctx context.Context, req service.HandoffNoteRequest) (service.HandoffNoteResult, []string, error)
}

var _ HandoffBackend = (*service.Service)(nil)

func init() {
	register(handoffPostTool)
	register(handoffShowTool)
	register(handoffImportTool)
	register(handoffNoteTool)
}

// Argument names of the handoff tools (camelCase, as the core's JSON).
const (
	argHandoffRecord       = "record"
	argHandoffFiles        = "files"
	argHandoffFromDir      = "fromDir"
	argHandoffFromArtifact = "fromArtifact"
	argHandoffBranch       = "branch"
	argHandoffPullRequest  = "pullRequest"
)

// handoffBackend returns the handoff core, or the tool error to return.
func handoffBackend(deps Deps, tool string) (HandoffBackend, *mcp.CallToolResult) {
	if hb, ok := deps.Backend.(HandoffBackend); ok {
		return hb, nil
	}
	return nil, mcp.NewToolResultError(tool + " is not available: this server's core does not implement handoffs. Nothing was done.")
}

func handoffItemArgs(req mcp.CallToolRequest, deps Deps) (service.ItemRequest, *mcp.CallToolResult) {
	repo, bad := OptionalString(req, argRepo, deps.DefaultRepo)
	if bad != nil {
		return service.ItemRequest{}, bad
	}
	item, bad := RequiredString(req, ArgWorkItem)
	if bad != nil {
		return service.ItemRequest{}, bad
	}
	return service.ItemRequest{Repo: repo, WorkItem: item}, nil
}

// handoffFilesArg reads an object of artifact name → text; nil when absent.
func handoffFilesArg(req mcp.CallToolRequest) (map[string]string, *mcp.CallToolResult) {
	raw, ok := req.GetArguments()[argHandoffFiles]
	if !ok || raw == nil {
		return nil, nil
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, argError(req, "argument %q must be an object of artifact name to file text", argHandoffFiles)
	}
	out := make(map[string]string, len(obj))
	for _, k := range sortedKeys(obj) {
		s, ok := obj[k].(string)
		if !ok {
			return nil, argError(req, "argument %q: the value of %q must be the file's text as a string", argHandoffFiles, k)
		}
		if !handoff.IsArtifactName(k) {
			return nil, argError(req, "argument %q: %q is not an artifact name; use %s", argHandoffFiles, k, strings.Join(handoff.ChainOrder(), ", "))
		}
		out[k] = s
	}
	return out, nil
}

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
	Handler: func(deps Deps) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			hb, bad := handoffBackend(deps, "handoff_post")
			if bad != nil {
				return bad, nil
			}
			ref, bad := RequiredString(req, ArgWorkItem)
			if bad != nil {
				return bad, nil
			}
			repo, bad := OptionalString(req, argRepo, deps.DefaultRepo)
			if bad != nil {
				return bad, nil
			}
			raw, err := json.Marshal(req.GetArguments()[argHandoffRecord])
			if err != nil {
				return argError(req, "argument %q is not JSON data", argHandoffRecord), nil
			}
			rec, err := handoff.DecodeJSON(raw)
			if err != nil {
				return argError(req, "argument %q: %v", argHandoffRecord, err), nil
			}
			if rec.Files, bad = handoffFilesArg(req); bad != nil {
				return bad, nil
			}
			// The record is posted for the caller's person, never the loop.
			principal, _ := PrincipalFromContext(ctx)
			res, err := hb.HandoffPost(ctx, service.HandoffPostRequest{Repo: repo, WorkItem: ref, Record: rec, By: principal.Person(deps.Operator)})
			switch {
			case errors.Is(err, service.ErrHandoffRefused):
				return mcp.NewToolResultError("handoff_post: " + err.Error() + ". Fix the record or post what it points at first, then call again."), nil
			case err != nil:
				return coreError("handoff_post", err), nil
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
			return mcp.NewToolResultStructured(res, strings.Join(lines, "\n")), nil
		}
	},
}

var handoffShowTool = Tool{
	Def: NewToolDef("handoff_show", Annotations{Title: "Show the frozen handoff", ReadOnly: true, Idempotent: true},
		mcp.WithDescription("The handoff record frozen in a work item's state when it was armed: the record, its author and comment URL, any demotions "+
			"import-handoff recorded, and the spec-chain artifact URL. The same core as `the-loop handoff show --format json`. Read-only; "+
			"a record posted or edited after the item was armed is never shown here, because it never reaches state."),
		repoArg(),
		mcp.WithString(ArgWorkItem, mcp.Required(), mcp.Description("Work item id: a folder under the spec directory, e.g. issue-12.")),
	),
	Handler: func(deps Deps) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			hb, bad := handoffBackend(deps, "handoff_show")
			if bad != nil {
				return bad, nil
			}
			item, bad := handoffItemArgs(req, deps)
			if bad != nil {
				return bad, nil
			}
			v, _, err := hb.HandoffShow(ctx, item)
			if err != nil {
				return coreError("handoff_show", err), nil
			}
			if v.Handoff == nil {
				return mcp.NewToolResultStructured(v, v.WorkItem+" carries no handoff: it walks the ordinary loop."), nil
			}
			rec, _ := handoff.DecodeJSON(v.Handoff.Record)
			text := fmt.Sprintf("%s: handed off by @%s at %s, enter %s, carried by %s; record %s; %d demotion(s)",
				v.WorkItem, strings.TrimLeft(v.Handoff.Author, "@"), rec.Stage, rec.Enter, rec.CarriedBy, v.Handoff.CommentURL, len(v.HandoffDemoted))
			return mcp.NewToolResultStructured(v, text), nil
		}
	},
}

var handoffImportTool = Tool{
	Def: NewToolDef("handoff_import", Annotations{Title: "Import the handed-off files", Destructive: true, Idempotent: true, OpenWorld: true},
		mcp.WithDescription("Write the files a handoff carried into the work item's spec folder, each verified against the frozen record's sha256 over its bytes "+
			"with LF line endings. The same core as `the-loop handoff import`. Without a source the record's carrier decides: the checked-out spec branch or "+
			"the ticket comments; for a spec-chain artifact, pass the files extracted from its embedded <script id=\"the-loop-spec-files\"> element. "+
			"A missing or mismatched file is refused and nothing unverified is written; the verified files before the first refused one are written. "+
			"Then commit the files and claim import-handoff: a refused file makes the walk redo the phase that produces it. Refused once the walk has passed import-handoff."),
		repoArg(),
		mcp.WithString(ArgWorkItem, mcp.Required(), mcp.Description("Work item id, e.g. issue-12.")),
		mcp.WithString(argHandoffFromDir, mcp.Description("Directory on the server holding the files extracted from the spec-chain artifact.")),
		mcp.WithString(argHandoffFromArtifact, mcp.Description("A saved spec-chain artifact page on the server; its embedded files are read.")),
		mcp.WithObject(argHandoffFiles, mcp.Description("The extracted files themselves, by artifact name, e.g. {\"design.md\": \"# Design ...\"}."),
			mcp.AdditionalProperties(map[string]any{"type": "string"})),
	),
	Handler: func(deps Deps) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			hb, bad := handoffBackend(deps, "handoff_import")
			if bad != nil {
				return bad, nil
			}
			item, bad := handoffItemArgs(req, deps)
			if bad != nil {
				return bad, nil
			}
			ireq := service.HandoffImportRequest{ItemRequest: item}
			if ireq.FromDir, bad = OptionalString(req, argHandoffFromDir, ""); bad != nil {
				return bad, nil
			}
			if ireq.FromArtifact, bad = OptionalString(req, argHandoffFromArtifact, ""); bad != nil {
				return bad, nil
			}
			if ireq.Files, bad = handoffFilesArg(req); bad != nil {
				return bad, nil
			}
			res, _, err := hb.HandoffImport(ctx, ireq)
			if err != nil {
				return coreError("handoff_import", err), nil
			}
			text := fmt.Sprintf("%s: verified and written into %s: %s", res.WorkItem, res.SpecDir, strings.Join(res.Written, ", "))
			if len(res.Written) == 0 {
				text = fmt.Sprintf("%s: nothing verified, nothing written into %s", res.WorkItem, res.SpecDir)
			}
			if res.OK {
				return mcp.NewToolResultStructured(res, text), nil
			}
			refused := make([]string, 0, len(res.Failed))
			for _, f := range res.Failed {
				refused = append(refused, f.Name+" "+f.Reason)
			}
			sort.Strings(refused)
			out := mcp.NewToolResultStructured(res, text+". Refused: "+strings.Join(refused, "; ")+
				". Claiming import-handoff now makes the walk redo the phase that produces the first refused file.")
			out.IsError = true
			return out, nil
		}
	},
}

var handoffNoteTool = Tool{
	Def: NewToolDef("handoff_note", Annotations{Title: "Point the handoff at the committed files", Destructive: true, Idempotent: true, OpenWorld: true},
		mcp.WithDescription("After the carried files are committed and their pull request exists, point the handoff record at them. The same core as "+
			"`the-loop handoff note`. The loop's own record is edited to read carried-by branch with the branch and pull request; a record someone else posted, "+
			"or files that do not all verify, get one superseding comment instead, rewritten (never repeated) on later calls. State is not changed."),
		repoArg(),
		mcp.WithString(ArgWorkItem, mcp.Required(), mcp.Description("Work item id, e.g. issue-12.")),
		mcp.WithString(argHandoffBranch, mcp.Required(), mcp.Description("The branch the files were committed on, the-loop/<name>.")),
		mcp.WithInteger(argHandoffPullRequest, mcp.Required(), mcp.Min(1), mcp.Description("That branch's pull request number.")),
	),
	Handler: func(deps Deps) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			hb, bad := handoffBackend(deps, "handoff_note")
			if bad != nil {
				return bad, nil
			}
			item, bad := handoffItemArgs(req, deps)
			if bad != nil {
				return bad, nil
			}
			nreq := service.HandoffNoteRequest{ItemRequest: item}
			if nreq.Branch, bad = RequiredString(req, argHandoffBranch); bad != nil {
				return bad, nil
			}
			if nreq.PullRequest, bad = OptionalInt(req, argHandoffPullRequest, 0); bad != nil {
				return bad, nil
			}
			res, _, err := hb.HandoffNote(ctx, nreq)
			if err != nil {
				return coreError("handoff_note", err), nil
			}
			text := fmt.Sprintf("%s: %s %s", item.WorkItem, res.Action, res.CommentURL)
			if len(res.Unverified) > 0 {
				text += "; not committed as handed off: " + strings.Join(res.Unverified, ", ")
			}
			return mcp.NewToolResultStructured(res, text), nil
		}
	},
}
