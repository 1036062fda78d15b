package gates

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

func TestSetPhaseLabel(t *testing.T) {
	hc, fake := hooktest.GateContext(t, &runtime.Node{ID: "design", Phase: "design"}, nil)
	fake.Labels = []string{"bug", "loop:requirements-definition", "the-loop: auto-execute"}
	r, err := SetPhaseLabel(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Equal(t, map[string]any{"label": "loop:design", "applied": true}, r.Data)
	assert.ElementsMatch(t, []string{"bug", "the-loop: auto-execute", "loop:design"}, fake.Labels, "only loop:* labels are replaced")
	assert.Contains(t, fake.Calls, "remove-label:loop:requirements-definition")

	fake.LabelErr = hooktest.ErrOutage
	r, err = SetPhaseLabel(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Equal(t, false, r.Data["applied"])
	assert.Contains(t, r.Data["error"], "502")

	hc.Tracker = nil
	r, _ = SetPhaseLabel(hc)
	assert.Equal(t, gateNoTracker, r.Data["error"])

	hc.Node = &runtime.Node{ID: "design-approval"}
	r, _ = SetPhaseLabel(hc)
	assert.Equal(t, runtime.Skip, r.Status)
	assert.Equal(t, []string{"node declares no phase label"}, hooktest.Texts(r))
}

func TestRequestReview(t *testing.T) {
	node := &runtime.Node{ID: "design-approval", Actor: "human", Exit: []runtime.ChainEntry{{Hook: HookClassifyFeedback, With: map[string]any{"subject": "design.md"}}}}
	hc, fake := hooktest.GateContext(t, node, nil)
	r, err := RequestReview(hc)
	require.NoError(t, err)
	assert.Equal(t, true, r.Data["posted"])
	require.Len(t, fake.Posted, 1)
	body := fake.Posted[0]
	assert.Contains(t, body, "**design-approval** is ready for review")
	assert.Contains(t, body, "over `design.md`")
	assert.Contains(t, body, ReviewMarker("design-approval"))
	assert.True(t, integrations.IsSelfAuthored(body))

	adhoc := &runtime.Node{ID: "review", Actor: "human", Exit: []runtime.ChainEntry{{Hook: HookClassifyAdhocReply}}}
	hc2, fake2 := hooktest.GateContext(t, adhoc, nil)
	_, err = RequestReview(hc2)
	require.NoError(t, err)
	assert.Contains(t, fake2.Posted[0], "Reply `done`")

	fake.PostErr = hooktest.ErrOutage
	r, _ = RequestReview(hc)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Equal(t, false, r.Data["posted"])
	assert.Contains(t, r.Data["error"], "502")

	hc.Tracker = nil
	r, _ = RequestReview(hc)
	assert.Equal(t, gateNoTracker, r.Data["error"])
}

func TestNotify(t *testing.T) {
	hc, _ := hooktest.GateContext(t, &runtime.Node{ID: "design-approval"}, map[string]any{"event": "phase-approval-pending", "roles": []any{"approver", "lead"}})
	n := &hooktest.Notifier{}
	hc.Notifier = n
	r, err := Notify(hc)
	require.NoError(t, err)
	assert.Equal(t, true, r.Data["delivered"])
	assert.Equal(t, []string{"phase-approval-pending|the-loop: issue-1 (github:o/r#1) is at *design-approval* (phase-approval-pending). Roles: approver, lead"}, n.Sent)

	hc.Node = &runtime.Node{ID: "design-approval", Actor: "human"}
	n.Sent = nil
	_, _ = Notify(hc)
	assert.Equal(t, []string{"phase-approval-pending|the-loop: issue-1 (github:o/r#1) is at *design-approval* (phase-approval-pending). " +
		"It is ready for review: an authorized reviewer answers on the ticket. Roles: approver, lead"}, n.Sent)

	esc, _ := hooktest.GateContext(t, &runtime.Node{ID: "escalated", Actor: "human", Terminal: true}, map[string]any{"event": "conflict-escalated", "roles": []any{"operator"}})
	esc.Notifier = n
	esc.State.Escalation = &runtime.Escalation{From: "implementation", Reason: "implementation failed the same check twice in a row"}
	n.Sent = nil
	_, _ = Notify(esc)
	assert.Equal(t, []string{"conflict-escalated|the-loop: issue-1 (github:o/r#1) is at *escalated* (conflict-escalated). " +
		"Escalated from implementation: implementation failed the same check twice in a row. A human decides how to go on. Roles: operator"}, n.Sent)

	hc.Config.Integrations.Slack.Events = []string{"pr-review-pending"}
	r, _ = Notify(hc)
	assert.Equal(t, runtime.Skip, r.Status)
	assert.Equal(t, []string{"no channel subscribed to phase-approval-pending — add it to integrations.slack.events"}, hooktest.Texts(r))
	hc.Config.Integrations.Slack.Events = nil

	n.Err = errors.New("slack: 500")
	r, _ = Notify(hc)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Equal(t, "slack: 500", r.Data["error"])

	hc.Notifier = nil
	r, _ = Notify(hc)
	assert.Equal(t, runtime.Skip, r.Status)

	bare, _ := hooktest.GateContext(t, &runtime.Node{ID: "escalated"}, nil)
	bare.Notifier = &hooktest.Notifier{}
	r, _ = Notify(bare)
	assert.Equal(t, runtime.Skip, r.Status)
	assert.Equal(t, []string{"no roles configured for phase-approval-pending"}, hooktest.Texts(r))
}

func TestPublishArtifact(t *testing.T) {
	hc, fake := hooktest.GateContext(t, &runtime.Node{ID: "plan-approval"}, map[string]any{"artifact": "contribution.md"})
	r, err := PublishArtifact(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Skip, r.Status)
	assert.Equal(t, []string{"no `contribution.md` for this work item"}, hooktest.Texts(r))

	hooktest.WriteArtifact(t, hc, "contribution.md", "# Plan\n\n## Goal\n\nx\n")
	r, err = PublishArtifact(hc)
	require.NoError(t, err)
	assert.Equal(t, true, r.Data["posted"])
	require.Len(t, fake.Posted, 1)
	assert.Contains(t, fake.Posted[0], "**`contribution.md`** for `issue-1`")
	assert.Contains(t, fake.Posted[0], "---\n\n# Plan\n\n## Goal\n\nx")

	hooktest.WriteArtifact(t, hc, "contribution.md", strings.Repeat("é", gatePublishLimit))
	_, err = PublishArtifact(hc)
	require.NoError(t, err)
	assert.Less(t, len(fake.Posted[1]), gatePublishLimit+1000)
	assert.Contains(t, fake.Posted[1], "cut here")

	require.NoError(t, os.MkdirAll(filepath.Join(hc.Repo, ".the-loop"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(hc.Repo, ".the-loop", "harness-config.yaml"), []byte("{}\n"), 0o644))
	r, _ = PublishArtifact(hc)
	assert.Equal(t, runtime.Skip, r.Status)
	assert.Equal(t, []string{"the repository carries the artifact; it is reviewable there"}, hooktest.Texts(r))
	assert.Len(t, fake.Posted, 2)
}

func TestDeliverAssignmentAndText(t *testing.T) {
	hc, fake := hooktest.GateContext(t, &runtime.Node{ID: "design"}, nil)
	r, err := DeliverAssignment(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Skip, r.Status)
	assert.Empty(t, fake.Calls)

	g := &runtime.Graph{Name: "pdlc-work-item-loop"}
	text := AssignmentText(g, &runtime.Node{ID: "design", Phase: "design", Command: "create-design", Produces: []string{"design.md"}}, Assignment{WorkItem: "issue-7", Surface: "work-item"})
	assert.Equal(t, "the-loop assignment for issue-7:\n"+
		"  you are at node: design (phase: design) of pdlc-work-item-loop\n"+
		"  produce: design.md\n"+
		"  iterate it on: the work item, as comments on it; link the checked-in file rather than pasting it\n"+
		"  work it with: `/the-loop:create-design issue-7`\n"+
		"  when this node's work is done, report back: `the-loop graph complete issue-7`\n"+
		"  (assigned by the-loop's graph — not part of any event payload)\n", text)

	pr := AssignmentText(nil, &runtime.Node{ID: "pr-approval", Actor: "human"}, Assignment{WorkItem: "issue-7", PR: 16, PRRepo: "octo/infra"})
	assert.Contains(t, pr, "pull request #16's pdlc-pr-loop on issue-7 (in octo/infra)")
	assert.Contains(t, pr, "HUMAN gate")
	assert.NotContains(t, pr, "graph complete")

	inner := AssignmentText(nil, &runtime.Node{ID: "implementation"}, Assignment{WorkItem: "issue-7", PR: 16, PRRepo: "octo/infra"})
	assert.Contains(t, inner, "`the-loop graph complete issue-7 --pr 16 --pr-repo octo/infra`")
}

type recordingSink struct{ got []string }

func (s *recordingSink) Deliver(_ context.Context, item, node, text string) (string, error) {
	s.got = append(s.got, item+" "+node+": "+text)
	return "the next session starts with it", nil
}

func TestDeliverAssignmentHandsAnAgentNodeToTheSessionSink(t *testing.T) {
	sink := &recordingSink{}
	node := &runtime.Node{ID: "design", Phase: "design", Command: "create-design", Produces: []string{"design.md"}}
	hc, _ := hooktest.GateContext(t, node, nil)
	hc.Graph = &runtime.Graph{Name: "pdlc-work-item-loop"}
	hc.Assignments = sink
	r, err := DeliverAssignment(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Equal(t, true, r.Data["delivered"])
	assert.Equal(t, "the next session starts with it", r.Data["how"])
	require.Len(t, sink.got, 1)
	assert.Contains(t, sink.got[0], "issue-1 design: the-loop assignment for issue-1")
	assert.Contains(t, sink.got[0], "/the-loop:create-design issue-1")

	gate, _ := hooktest.GateContext(t, &runtime.Node{ID: "design-approval", Actor: "human"}, nil)
	gate.Assignments = sink
	r, err = DeliverAssignment(gate)
	require.NoError(t, err)
	assert.Equal(t, runtime.Skip, r.Status, "a human gate is never assigned")
	assert.Len(t, sink.got, 1)
}

// TestSideEffectsUnderCheck proves each side-effecting hook posts, labels,
// notifies and writes nothing in a read-only evaluation, even when handed a
// live integration by mistake.
func TestSideEffectsUnderCheck(t *testing.T) {
	hooks := map[string]runtime.HookFunc{
		HookSetPhaseLabel: SetPhaseLabel, HookRequestReview: RequestReview, HookNotify: Notify,
		HookPublishArtifact: PublishArtifact, HookDeliverAssignment: DeliverAssignment,
		HookPostPhaseSelection: PostPhaseSelection, HookPostGoalRequest: PostGoalRequest,
		HookPostReviewBrief: PostReviewBrief, HookRecordFeedback: RecordFeedback,
	}
	for name, fn := range hooks {
		t.Run(name, func(t *testing.T) {
			node := &runtime.Node{ID: "phase-selection", Phase: "phase-selection", Actor: "human"}
			hc, fake := hooktest.GateContext(t, node, map[string]any{"artifact": "contribution.md", "into": "contribution.md", "roles": []any{"approver"}})
			hc.Graph = gateLockGraph(t)
			n := &hooktest.Notifier{}
			hc.Notifier = n
			hooktest.WriteArtifact(t, hc, "contribution.md", "# C\n")
			hc.Results = []runtime.Result{gateFeedbackResult("approved", hooktest.Comment(1, "alice", "ok"))}
			hc.ReadOnly = true
			r, err := fn(hc)
			require.NoError(t, err)
			assert.Equal(t, runtime.Skip, r.Status, hooktest.Texts(r))
			assert.Empty(t, fake.Calls, "no integration call at all")
			assert.Empty(t, n.Sent)
			assert.Equal(t, "# C\n", hooktest.ReadArtifact(t, hc, "contribution.md"))
		})
	}
}
