package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/the-loop/the-loop/agents/continuity"
	"github.com/the-loop/the-loop/service"
)

// Argument names of the continuity tools (camelCase, as the JSON of
// continuity.Entry, BriefOptions and PromptOptions).
const (
	argKind        = "kind"
	argText        = "text"
	argWhy         = "why"
	argStatus      = "status"
	argDependsOn   = "dependsOn"
	argBlocks      = "blocks"
	argResolves    = "resolves"
	argFiles       = "files"
	argNext        = "next"
	argSource      = "source"
	argExclude     = "exclude"
	argBudget      = "budget"
	argTask        = "task"
	argContext     = "context"
	argConstraints = "constraints"
	argCriteria    = "criteria"
	argNonGoals    = "nonGoals"
	argValidation  = "validation"
	argAllowPaths  = "allowPaths"
)

func continuityRepoArg() mcp.ToolOption {
	return mcp.WithString(argRepo, mcp.Description("Any directory inside the git checkout whose continuity record to use (default: the server's --repo)."))
}

var continuityUpdateTool = Tool{
	Def: NewToolDef("continuity_update", Annotations{Title: "Record a continuity fact"},
		mcp.WithDescription("Record one changed fact in the live continuity record under the git-ignored .handoff/ directory, and flush notes, graph and death point at once. "+
			"The same core as `the-loop continuity update --format json`. Call it whenever a decision, discovery, task change, blocker or phase boundary happens. "+
			"It needs a live set: a session starts one with `the-loop continuity init --goal TEXT`. Each call appends a record, so do not repeat one that succeeded."),
		continuityRepoArg(),
		mcp.WithString(argKind, mcp.Required(), mcp.Enum(continuity.KindDecision, continuity.KindDiscovery, continuity.KindTask, continuity.KindBlocker, continuity.KindPhase),
			mcp.Description("What changed: decision, discovery, task, blocker or phase.")),
		mcp.WithString(argText, mcp.Description("The changed fact, one line. May be left out only when node and status change an existing task or blocker.")),
		mcp.WithString(argWhy, mcp.Description("Why it matters: the rationale a later session needs.")),
		mcp.WithString(argNode, mcp.Description("Task or blocker id to create or change, e.g. t3 (default: a new id).")),
		mcp.WithString(argStatus, mcp.Enum(continuity.StatusOpen, continuity.StatusDone, continuity.StatusBlocked),
			mcp.Description("New status of the task or blocker: open, done or blocked (task and blocker entries only).")),
		stringList(argDependsOn, "Ids of the tasks this task needs first (task entries only)."),
		mcp.WithString(argBlocks, mcp.Description("Id of the task a new blocker holds up (blocker entries only).")),
		mcp.WithString(argResolves, mcp.Description("Id of the blocker this decision or task resolves.")),
		stringList(argFiles, "Files the fact concerns, relative to the repository root."),
		mcp.WithString(argNext, mcp.Description("Replace the recorded next action with this one.")),
	),
	Handler: handle(func(ctx context.Context, deps Deps, in service.ContinuityUpdateRequest) *mcp.CallToolResult {
		if strings.TrimSpace(in.Text) == "" && (in.Node == "" || in.Status == "") {
			return mcp.NewToolResultError("continuity_update: give text (the changed fact), or node with status to change an existing task or blocker. Fix the arguments and call again.")
		}
		res, err := deps.Backend.ContinuityUpdate(ctx, in)
		if err != nil {
			return coreError("continuity_update", err)
		}
		return result(res, updateSummary(res.UpdateResult), res.Warnings)
	}),
}

// updateSummary is the short text beside an update's structured result.
func updateSummary(res continuity.UpdateResult) string {
	what := "recorded " + res.Kind
	if res.Node != "" {
		what += fmt.Sprintf(" %s (%s)", res.Node, res.NodeStatus)
	}
	text := fmt.Sprintf("%s; revision %d; status %s\nnext action: %s", what, res.Revision, res.Status, res.NextAction)
	for _, b := range res.Blockers {
		text += "\nblocker: " + b
	}
	return text
}

var continuityBriefTool = Tool{
	Def: NewToolDef("continuity_brief", Annotations{Title: "Package a continuity brief", ReadOnly: true, Idempotent: true},
		mcp.WithDescription("Package the continuity record as one budgeted markdown brief (at most 6144 bytes) that a fresh session can continue from: "+
			"source receipt, goal, active files, the task/decision/blocker graph, decisions, evidence, next action and where the work stopped. "+
			"The same core as `the-loop continuity brief --format json`, read-only: the brief is returned, never written to a file. The text content is the brief itself."),
		continuityRepoArg(),
		mcp.WithString(argSource, mcp.Description("Exact session handle (full or short) to brief instead of the live set.")),
		stringList(argExclude, "Projects or paths that must not be packaged; a matching source is refused or withheld."),
		mcp.WithInteger(argBudget, mcp.Min(1), mcp.Max(continuity.BriefBudget), mcp.Description("Byte budget of the brief, 1 to 6144 (default 6144).")),
	),
	Handler: handle(func(ctx context.Context, deps Deps, in service.ContinuityBriefRequest) *mcp.CallToolResult {
		b, err := deps.Backend.ContinuityBrief(ctx, in)
		if err != nil {
			return coreError("continuity_brief", err)
		}
		return result(b, b.Text, b.Warnings)
	}),
}

var continuityPromptTool = Tool{
	Def: NewToolDef("continuity_prompt", Annotations{Title: "Build a delegation prompt", ReadOnly: true, Idempotent: true},
		mcp.WithDescription("Build a path-free prompt that hands a task to another agent: review-and-assess first, then context (with the live continuity record's goal, "+
			"next action, blockers and recent decisions), task, validation and output. Filesystem paths are rewritten as portable names or their line dropped; a path in the task itself refuses the prompt (rephrase it). "+
			"The same core as `the-loop continuity prompt --format json`, except that the prompt is returned rather than copied to a clipboard. "+
			"Fields left out are marked as needing user input. The text content is the prompt itself."),
		continuityRepoArg(),
		mcp.WithString(argTask, mcp.Required(), mcp.Description("The task to delegate, one or more sentences.")),
		mcp.WithString(argTitle, mcp.Description("Short task title (default: the task's first sentence).")),
		stringList(argContext, "Context lines: what triggered the task, the branch, issue or PR."),
		stringList(argConstraints, "Constraints and ownership boundaries."),
		stringList(argCriteria, "Expected behaviour or decision criteria."),
		stringList(argNonGoals, "What is out of scope."),
		stringList(argValidation, "Checks the receiving agent should run."),
		mcp.WithBoolean(argAllowPaths, mcp.Description("Keep filesystem paths as written; only when the user explicitly asked for them.")),
	),
	Handler: handle(func(ctx context.Context, deps Deps, in service.ContinuityPromptRequest) *mcp.CallToolResult {
		p, err := deps.Backend.ContinuityPrompt(ctx, in)
		if err != nil {
			return coreError("continuity_prompt", err)
		}
		return result(p, p.Text, p.Warnings)
	}),
}
