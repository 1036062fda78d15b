// Package hooks is the list of the hooks the shipped process graphs call.
// Each entry names a hook, its kind, what it does, its function and the
// integration operations it may call; the graph compiler resolves names
// from this list alone, the start-up check asks the configured provider for
// exactly the operations it declares, and docs/engine.md carries the table
// Table renders from it.
//
// To add a hook: write its function in the folder of its kind, then add one
// entry to All. A hook that calls an operation its entry does not declare
// is refused at run time and fails TestHooksCallOnlyTheOperationsTheyDeclare.
package hooks

import (
	"fmt"
	"strings"
	"sync"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/artifacts"
	"github.com/the-loop/the-loop/runtime/hooks/dependencies"
	"github.com/the-loop/the-loop/runtime/hooks/gates"
	"github.com/the-loop/the-loop/runtime/hooks/handoffs"
	"github.com/the-loop/the-loop/runtime/hooks/reviews"
	"github.com/the-loop/the-loop/runtime/hooks/ship"
	"github.com/the-loop/the-loop/runtime/hooks/work"
)

// The kinds of hook; each is one folder below runtime/hooks.
const (
	KindArtifact = "artifact"
	KindGate     = "gate"
	KindWork     = "work"
	KindHandoff  = "handoff"
	KindDepends  = "dependency"
	KindReview   = "review"
	KindShip     = "ship"
)

// Integration operations, short names for the list below.
const (
	getIssue      = integrations.OpGetIssue
	listComments  = integrations.OpListComments
	createComment = integrations.OpCreateComment
	addLabels     = integrations.OpAddLabels
	removeLabel   = integrations.OpRemoveLabel
	editComment   = integrations.OpEditComment
	getPull       = integrations.OpGetPullRequest
	readChecks    = integrations.OpReadChecks
	listThreads   = integrations.OpListReviewThreads
	readDetails   = integrations.OpReadCheckDetails
	listPullFiles = integrations.OpListPullRequestFiles
)

// ops is a list of operations.
func ops(o ...integrations.Op) []integrations.Op { return o }

// All is every shipped hook, grouped by kind.
var All = []runtime.HookSpec{
	{Name: artifacts.HookValidate, Kind: KindArtifact, Func: artifacts.ValidateArtifacts,
		Summary: "the node's artifacts exist, one per slot, and pass the declared content checks"},
	{Name: artifacts.HookBoundaries, Kind: KindArtifact, Func: artifacts.EnforceBoundaries,
		Summary: "every boundary marker an upstream artifact names is answered in the node's own"},
	{Name: artifacts.HookLint, Kind: KindArtifact, Func: artifacts.LintArtifacts,
		Summary: "mermaid blocks parse and prose lines stay under `maxLineLength`"},
	{Name: artifacts.HookSuccessCriteria, Kind: KindArtifact, Func: artifacts.CheckSuccessCriteria,
		Summary: "each success criterion of the recorded goal stands ticked"},
	{Name: artifacts.HookLock, Kind: KindArtifact, Func: artifacts.LockArtifacts,
		Summary: "an approval writes `status: approved` and `approvedBy` into the artifacts it covers"},
	{Name: artifacts.HookLogEntry, Kind: KindArtifact, Func: artifacts.LogEntry,
		Summary: "appends a dated entry or exit line to the execution log"},

	{Name: gates.HookSetPhaseLabel, Kind: KindGate, Func: gates.SetPhaseLabel, Ops: ops(getIssue, removeLabel, addLabels),
		Summary: "moves the ticket to the node's `loop:<phase>` label"},
	{Name: gates.HookRequestReview, Kind: KindGate, Func: gates.RequestReview, Ops: ops(createComment),
		Summary: "posts the review request that opens a human gate's visit"},
	{Name: gates.HookNotify, Kind: KindGate, Func: gates.Notify,
		Summary: "tells the entry's roles, through the notifier, that the item reached the node"},
	{Name: gates.HookPublishArtifact, Kind: KindGate, Func: gates.PublishArtifact, Ops: ops(createComment),
		Summary: "posts an artifact on the thread when the repository does not carry it"},
	{Name: gates.HookDeliverAssignment, Kind: KindGate, Func: gates.DeliverAssignment,
		Summary: "hands an agent node's assignment to the item's supervised session; skips on the CLI path, where the claim's answer and graph_status carry it"},
	{Name: gates.HookPostPhaseSelection, Kind: KindGate, Func: gates.PostPhaseSelection, Ops: ops(listComments, createComment),
		Summary: "posts the phase-selection checklist once"},
	{Name: gates.HookClassifyPhaseSelection, Kind: KindGate, Func: gates.ClassifyPhaseSelection, Ops: ops(listComments, createComment),
		Summary: "reads an authorized execute reply and the checklist into declared skips and opt-ins"},
	{Name: gates.HookClassifyFeedback, Kind: KindGate, Func: gates.ClassifyFeedback, Ops: ops(createComment, editComment),
		Summary: "reads the newest authorized reply of the visit as approved, approved with comments or changes requested"},
	{Name: gates.HookRecordFeedback, Kind: KindGate, Func: gates.RecordFeedback,
		Summary: "records the replies a gate read under `## Review comments` of its artifact"},
	{Name: gates.HookPostGoalRequest, Kind: KindGate, Func: gates.PostGoalRequest, Ops: ops(listComments, createComment),
		Summary: "asks once for the contribution's goal and success criteria"},
	{Name: gates.HookClassifyGoal, Kind: KindGate, Func: gates.ClassifyGoal, Ops: ops(listComments, createComment),
		Summary: "freezes the newest authorized goal statement"},
	{Name: gates.HookPostReviewBrief, Kind: KindGate, Func: gates.PostReviewBrief, Ops: ops(listComments, createComment),
		Summary: "asks once what a review should cover"},
	{Name: gates.HookClassifyReviewBrief, Kind: KindGate, Func: gates.ClassifyReviewBrief, Ops: ops(listComments, createComment),
		Summary: "freezes the newest authorized review brief"},
	{Name: gates.HookClassifyAdhocReply, Kind: KindGate, Func: gates.ClassifyAdhocReply, Ops: ops(createComment, editComment),
		Summary: "reads the newest authorized reply as done or more work"},
	{Name: gates.HookSecuritySignOff, Kind: KindGate, Func: gates.SecuritySignOff, Ops: ops(createComment, editComment),
		Summary: "holds risk tier 4 and above until an authorized reviewer signs off on security"},

	{Name: work.HookVerifyTests, Kind: KindWork, Func: work.VerifyTests, RunsCommands: true,
		Summary: "runs the repository's lint, type-check and test commands and passes only when each exits 0; waits while none is declared"},
	{Name: work.HookInnerLoops, Kind: KindWork, Func: work.AwaitInnerLoops,
		Summary: "holds the item until every pull request's inner loop is complete"},

	{Name: reviews.HookReviewRounds, Kind: KindReview, Func: reviews.ReviewRounds,
		Summary: "the node's round table (`evidence/self-review.md`, `evidence/critic-review.md`) stops on zero new findings or at the cap; a critic round counts only with a run the loop recorded"},
	{Name: ship.HookPostBriefing, Kind: KindShip, Func: ship.PostBriefing, HostOps: ops(getPull, listComments, createComment, editComment),
		Summary: "renders `pr-briefing.md` through the PR-briefing template into one marked comment on each pull request, edited in place when the head moves"},
	{Name: ship.HookReadyToShip, Kind: KindShip, Func: ship.ReadyToShip, HostOps: ops(getPull, readChecks, listThreads, listComments, listPullFiles, readDetails),
		Summary: "each pull request's head commit: checks green, review threads resolved, the reviewer briefing current, the capability docs folded in; failing checks and unanswered threads send the work back with what they say"},

	{Name: handoffs.HookImportHandoff, Kind: KindHandoff, Func: handoffs.ImportHandoff,
		Summary: "verifies the artifacts a handoff carried and demotes the walk to the first that fails"},

	{Name: dependencies.HookAwaitBlockers, Kind: KindDepends, Func: dependencies.AwaitBlockers,
		Summary: "holds the item at phase selection while the poller's recorded read of its blockers says one has not finished"},
}

var registry = sync.OnceValues(func() (*runtime.Registry, error) { return runtime.NewRegistry(All...) })

// Registry returns the registry the graph compiler resolves the shipped
// hooks from; an invalid list (a duplicate or empty name) is an error.
func Registry() (*runtime.Registry, error) { return registry() }

// Table renders All as the markdown table of docs/engine.md: one row per
// hook with its kind, the integration operations it declares and what it
// does.
func Table() string {
	var b strings.Builder
	b.WriteString("| hook | kind | integration operations | what it does |\n| --- | --- | --- | --- |\n")
	for _, s := range All {
		used := "—"
		var names []string
		for _, op := range s.Ops {
			names = append(names, "`"+string(op)+"`")
		}
		for _, op := range s.HostOps {
			names = append(names, "`"+string(op)+"` (code host)")
		}
		if len(names) > 0 {
			used = strings.Join(names, ", ")
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", s.Name, s.Kind, used, s.Summary)
	}
	return b.String()
}
