package gates

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/checklist"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

const gateSelectionYAML = `
name: pdlc-work-item-loop
start: phase-selection
skipSets:
  review-chain: [self-review, security-review]
nodes:
  - {id: phase-selection, actor: human, phase: phase-selection, required: true, entry: [post-phase-selection], exit: [classify-phase-selection]}
  - {id: brainstorming, skippable: true, phase: brainstorming}
  - {id: design, skippable: true, phase: design}
  - {id: design-critic-review, optIn: true, description: another model reads the design}
  - {id: implementation, skippable: true}
  - {id: self-review, skippable: true}
  - {id: security-review, skippable: true}
  - {id: complete, terminal: true}
edges:
  - {from: phase-selection, to: brainstorming, on: selected}
  - {from: brainstorming, to: design, on: pass}
  - {from: brainstorming, to: design, on: skipped}
  - {from: design, to: design-critic-review, on: pass}
  - {from: design, to: design-critic-review, on: skipped}
  - {from: design-critic-review, to: implementation, on: pass}
  - {from: design-critic-review, to: implementation, on: skipped}
  - {from: implementation, to: self-review, on: pass}
  - {from: implementation, to: self-review, on: skipped}
  - {from: self-review, to: security-review, on: pass}
  - {from: self-review, to: security-review, on: skipped}
  - {from: security-review, to: complete, on: pass}
  - {from: security-review, to: complete, on: skipped}
`

func gateSelectionCtx(t *testing.T) (*runtime.HookContext, *hooktest.Fake) {
	t.Helper()
	g := hooktest.Compile(t, "pdlc-work-item-loop", []byte(gateSelectionYAML))
	n, _ := g.Node("phase-selection")
	hc, fake := hooktest.GateContext(t, n, nil)
	hc.Graph = g
	hc.Config.Routing.Models = []string{"opus-5", "fable-5.1"}
	return hc, fake
}

// postChecklist runs the entry hook and returns the posted checklist.
func postChecklist(t *testing.T, hc *runtime.HookContext, fake *hooktest.Fake) integrations.Comment {
	t.Helper()
	r, err := PostPhaseSelection(hc)
	require.NoError(t, err)
	require.Equal(t, true, r.Data["posted"], r.Data)
	return fake.Thread[len(fake.Thread)-1]
}

func editBox(body, token string, ticked bool) string {
	from, to := "- [x] "+token, "- [ ] "+token
	if ticked {
		from, to = to, from
	}
	return strings.Replace(body, from, to, 1)
}

func skipNodes(r runtime.Result) []string {
	var out []string
	for _, d := range r.Data["declaredSkips"].([]*runtime.Decision) {
		out = append(out, d.Node)
	}
	return out
}

func TestPostPhaseSelectionIsIdempotent(t *testing.T) {
	hc, fake := gateSelectionCtx(t)
	c := postChecklist(t, hc, fake)
	assert.Contains(t, c.Body, checklist.Marker)
	assert.True(t, integrations.IsSelfAuthored(c.Body))
	assert.Contains(t, c.Body, "- [x] design\n")
	assert.Contains(t, c.Body, "- [ ] `model-opus-5`")

	r, err := PostPhaseSelection(hc)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"posted": false, "reason": "already asked"}, r.Data)
	assert.Len(t, fake.Posted, 1)
}

func TestPostPhaseSelectionIgnoresAForgedChecklist(t *testing.T) {
	hc, fake := gateSelectionCtx(t)
	fake.Thread = []integrations.Comment{{ID: 1, Author: "mallory", Body: integrations.MarkSelfAuthored("- [ ] design\n" + checklist.Marker)}}
	postChecklist(t, hc, fake)
	assert.Len(t, fake.Posted, 1, "a drive-by comment carrying the markers does not pre-empt the checklist")
}

func TestPostPhaseSelectionDegrades(t *testing.T) {
	hc, fake := gateSelectionCtx(t)
	fake.ListErr = hooktest.ErrOutage
	postChecklist(t, hc, fake)
	assert.Len(t, fake.Posted, 1, "a thread that cannot be listed is posted to anyway")

	fake.PostErr = hooktest.ErrOutage
	fake.ListErr = nil
	fake.Thread = nil
	r, err := PostPhaseSelection(hc)
	require.NoError(t, err)
	assert.Equal(t, false, r.Data["posted"])
	assert.Contains(t, r.Data["error"], "502")

	hc.Tracker = nil
	r, _ = PostPhaseSelection(hc)
	assert.Equal(t, gateNoTracker, r.Data["error"])
}

func TestUntickedPhasesBecomeDeclaredSkips(t *testing.T) {
	hc, fake := gateSelectionCtx(t)
	c := postChecklist(t, hc, fake)
	edited := editBox(editBox(editBox(c.Body, "brainstorming", false), "review-chain", false), "design-critic-review", true)
	fake.Thread[len(fake.Thread)-1].Body = edited
	hooktest.SetEvent(hc, hooktest.Comment(50, "Alice", "Looks right.\n\nthe-loop execute"))

	r, err := ClassifyPhaseSelection(hc)
	require.NoError(t, err)
	require.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
	assert.Equal(t, "selected", r.Data["outcome"])
	assert.Equal(t, "checklist", r.Data["selectionSource"])
	assert.Equal(t, []string{"brainstorming", "self-review", "security-review"}, skipNodes(r))
	skips := r.Data["declaredSkips"].([]*runtime.Decision)
	assert.Equal(t, runtime.Decision{Node: "self-review", Kind: runtime.KindSkip, Via: "selection", Token: "review-chain", By: "@Alice",
		CommentURL: "https://github.test/o/r/issues/1#issuecomment-50"}, *skips[1])
	optIns := r.Data["optIns"].([]*runtime.Decision)
	require.Len(t, optIns, 1)
	assert.Equal(t, "design-critic-review", optIns[0].Node)
	assert.Equal(t, runtime.KindOptIn, optIns[0].Kind)

	d := hooktest.DecisionOf(t, r)
	assert.Equal(t, "phase-selection", d.Node)
	assert.Equal(t, runtime.KindSelection, d.Kind)
	assert.Equal(t, "selected", d.Outcome)
	assert.Equal(t, "checklist", d.Via)
	assert.Equal(t, "the-loop execute", d.Token)
	assert.Equal(t, "@Alice", d.By)
	assert.Equal(t, "https://github.test/o/r/issues/1#issuecomment-50", d.CommentURL)
	assert.Equal(t, "work-item", d.Data["surface"])
	assert.Equal(t, "cross-repository", d.Data["sessionPerPr"])
	assert.Equal(t, "cross-repository", d.Data["sessionPerPrChoice"], "the untouched pre-ticked row is one tick")
	assert.Equal(t, "", d.Data["model"], "no model ticked is no choice")
	frozen := d.Data["graph"].(map[string]any)
	assert.Equal(t, "pdlc-work-item-loop", frozen["loop"])
	assert.Equal(t, "issue-1", frozen["workItem"])
	nodes := frozen["nodes"].([]any)
	require.Len(t, nodes, len(hc.Graph.Nodes))
	assert.Equal(t, map[string]any{"id": "brainstorming", "phase": "brainstorming", "skipped": true, "selectable": true, "optIn": false}, nodes[1])
	assert.Equal(t, map[string]any{"id": "design-critic-review", "phase": "", "skipped": false, "selectable": true, "optIn": true}, nodes[3])
	_, err = json.Marshal(d)
	require.NoError(t, err, "the decision is plain JSON data")

	require.Len(t, fake.Posted, 2)
	confirm := fake.Posted[1]
	assert.Contains(t, confirm, "**phase selection recorded**")
	assert.Contains(t, confirm, "Skipped, as @Alice declared: `brainstorming`, `self-review`, `security-review`.")
	assert.Contains(t, confirm, "Also running, as @Alice asked: `design-critic-review`.")
	assert.True(t, integrations.IsSelfAuthored(confirm))
}

func TestReplyChecklistWinsOverTheBoxes(t *testing.T) {
	hc, fake := gateSelectionCtx(t)
	c := postChecklist(t, hc, fake)
	fake.Thread[len(fake.Thread)-1].Body = editBox(c.Body, "design", false)
	hooktest.SetEvent(hc, hooktest.Comment(9, "bob", "the-loop execute\n- [ ] implementation\n- [x] `model-fable-5.1`\n- [x] pr-sessions-always"))
	r, err := ClassifyPhaseSelection(hc)
	require.NoError(t, err)
	assert.Equal(t, "reply", r.Data["selectionSource"])
	assert.Equal(t, []string{"implementation"}, skipNodes(r), "the unticked design box is not read when the reply carries rows")
	d := hooktest.DecisionOf(t, r)
	assert.Equal(t, "fable-5.1", d.Data["model"])
	assert.Equal(t, "always", d.Data["sessionPerPr"])
	assert.Equal(t, false, d.Data["armChildren"], "children are armed only on a tick")
	assert.NotContains(t, fake.Calls[1:], "list-comments", "the thread is not read when the reply carries rows")
}

// The arm-children tick is part of the signed selection: the poller arms a
// parent's children only on a decision it verifies.
func TestArmChildrenIsRecordedInTheSelection(t *testing.T) {
	hc, _ := gateSelectionCtx(t)
	hooktest.SetEvent(hc, hooktest.Comment(9, "bob", "the-loop execute\n- [x] arm-children"))
	r, err := ClassifyPhaseSelection(hc)
	require.NoError(t, err)
	d := hooktest.DecisionOf(t, r)
	assert.Equal(t, true, d.Data["armChildren"])
	assert.Equal(t, "@bob", d.By)
}

func TestAmbiguousNonPhaseAnswersAreNoChoice(t *testing.T) {
	hc, _ := gateSelectionCtx(t)
	hooktest.SetEvent(hc, hooktest.Comment(9, "bob", "the-loop execute\n- [x] model-opus-5\n- [x] model-fable-5.1\n- [x] pr-sessions-never\n- [x] pr-sessions-always\n- [x] model-nope"))
	r, err := ClassifyPhaseSelection(hc)
	require.NoError(t, err)
	d := hooktest.DecisionOf(t, r)
	assert.Equal(t, "", d.Data["model"])
	assert.Equal(t, "", d.Data["sessionPerPrChoice"], "two session ticks are no choice, recorded as such")
	assert.Equal(t, "cross-repository", d.Data["sessionPerPr"], "…and the operator default applies")
	assert.Empty(t, skipNodes(r))
}

func TestOptInNobodyTickedIsNotSelected(t *testing.T) {
	hc, fake := gateSelectionCtx(t)
	postChecklist(t, hc, fake)
	hooktest.SetEvent(hc, hooktest.Comment(9, "alice", "the-loop execute"))
	r, err := ClassifyPhaseSelection(hc)
	require.NoError(t, err)
	assert.Empty(t, r.Data["optIns"])
	assert.Empty(t, skipNodes(r), "a bare execute runs every default phase")
	d := hooktest.DecisionOf(t, r)
	assert.Equal(t, []string{"design-critic-review"}, d.Data["notSelected"])
	nodes := d.Data["graph"].(map[string]any)["nodes"].([]any)
	assert.Equal(t, true, nodes[3].(map[string]any)["skipped"], "an unticked opt-in is frozen as not running")
	assert.Contains(t, fake.Posted[1], "Offered and not selected, so not running: `design-critic-review`.")
}

func TestGitHubOutageLeavesPhaseSelectionWaiting(t *testing.T) {
	hc, fake := gateSelectionCtx(t)
	postChecklist(t, hc, fake)
	fake.ListErr = hooktest.ErrOutage
	hooktest.SetEvent(hc, hooktest.Comment(9, "alice", "the-loop execute"))
	r, err := ClassifyPhaseSelection(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Wait, r.Status)
	assert.NotContains(t, r.Data, "declaredSkips")
	assert.NotContains(t, r.Data, "decision")
	assert.Contains(t, hooktest.Texts(r)[0], "the posted checklist could not be read (github: 502 bad gateway)")
	assert.Len(t, fake.Posted, 1, "no confirmation")
}

func TestPhaseSelectionWaitsForAnAuthorizedExecute(t *testing.T) {
	tests := []struct {
		name     string
		comments []integrations.Comment
	}{
		{"nothing", nil},
		{"unauthorized execute", []integrations.Comment{hooktest.Comment(1, "mallory", "the-loop execute")}},
		{"self-authored execute", []integrations.Comment{{Author: "alice", Body: integrations.MarkSelfAuthored("the-loop execute")}}},
		{"keyword glued to a word", []integrations.Comment{hooktest.Comment(1, "alice", "the-loop executed it")}},
		{"inline execute", []integrations.Comment{hooktest.Comment(1, "alice", "Looks right. the-loop execute")}},
		{"ambiguous command", []integrations.Comment{hooktest.Comment(1, "alice", "the-loop start and the-loop execute")}},
		{"negated execute", []integrations.Comment{hooktest.Comment(1, "alice", "do NOT the-loop execute yet")}},
		{"quoted execute", []integrations.Comment{hooktest.Comment(1, "alice", "> the-loop execute")}},
		{"execute in an html comment", []integrations.Comment{hooktest.Comment(1, "alice", "<!--\nthe-loop execute\n-->")}},
		{"execute in code", []integrations.Comment{hooktest.Comment(1, "alice", "```\nthe-loop execute\n```")}},
		{"withdrawn by a newer comment", []integrations.Comment{hooktest.Comment(1, "alice", "the-loop execute"), hooktest.Comment(2, "bob", "please do not the-loop execute until Monday")}},
		{"edited execute", []integrations.Comment{hooktest.Edited(hooktest.Comment(1, "alice", "the-loop execute"))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc, fake := gateSelectionCtx(t)
			hooktest.SetEvent(hc, tt.comments...)
			r, err := ClassifyPhaseSelection(hc)
			require.NoError(t, err)
			assert.Equal(t, runtime.Wait, r.Status)
			assert.Regexp(t, "`the-loop execute`|was edited after it was posted", hooktest.Texts(r)[0])
			assert.NotContains(t, r.Data, "decision")
			for _, p := range fake.Posted {
				assert.Contains(t, p, "<!-- the-loop:edited ", "only the edited-comment notice is ever posted")
			}
		})
	}
}

func TestForgedChecklistIsNotRead(t *testing.T) {
	hc, fake := gateSelectionCtx(t)
	c := postChecklist(t, hc, fake)
	forged := editBox(c.Body, "security-review", false)
	fake.Thread = append(fake.Thread, integrations.Comment{ID: 77, Author: "mallory", Body: forged})
	hooktest.SetEvent(hc, hooktest.Comment(9, "alice", "the-loop execute"))
	r, err := ClassifyPhaseSelection(hc)
	require.NoError(t, err)
	assert.Empty(t, skipNodes(r), "only the loop's own checklist is read")
}

func TestAnsweredSelectionStaysAnsweredForCheck(t *testing.T) {
	hc, fake := gateSelectionCtx(t)
	hc.State.Decisions["phase-selection"] = &runtime.Decision{Kind: runtime.KindSelection, Outcome: "selected", By: "@alice"}
	hooktest.CheckOnly(hc)
	r, err := ClassifyPhaseSelection(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Equal(t, "selected", r.Data["outcome"])
	assert.Empty(t, fake.Calls)
}

func TestPhaseSelectionUnderCheckReadsAndPostsNothing(t *testing.T) {
	hc, fake := gateSelectionCtx(t)
	postChecklist(t, hc, fake)
	calls := len(fake.Calls)
	hc.ReadOnly = true
	hooktest.SetEvent(hc, hooktest.Comment(9, "alice", "the-loop execute\n- [ ] design"))
	r, err := ClassifyPhaseSelection(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Equal(t, []string{"design"}, skipNodes(r))
	assert.Len(t, fake.Calls, calls, "no confirmation under check")
	assert.NotContains(t, r.Data, "error")

	hooktest.SetEvent(hc, hooktest.Comment(9, "alice", "the-loop execute"))
	r, err = ClassifyPhaseSelection(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Wait, r.Status, "the posted checklist is not fetched under check")
	assert.Len(t, fake.Calls, calls)
}

func TestPhaseSelectionConfirmationFailureIsADegradation(t *testing.T) {
	hc, fake := gateSelectionCtx(t)
	hooktest.SetEvent(hc, hooktest.Comment(9, "alice", "the-loop execute\n- [ ] design"))
	fake.PostErr = hooktest.ErrOutage
	r, err := ClassifyPhaseSelection(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status, "the selection stands")
	assert.Contains(t, r.Data["error"], "the confirmation was not posted")
}

// A drive-by user's copy of the checklist, all unticked and carrying the
// marker, is never read as the loop's own: without selfLogins nothing is.
func TestForgedChecklistIsNotReadBack(t *testing.T) {
	hc, fake := gateSelectionCtx(t)
	hc.Config.Routing.SelfLogins = nil
	posted := postChecklist(t, hc, fake)
	forged := posted.Body
	for _, n := range []string{"brainstorming", "design", "implementation", "self-review", "security-review"} {
		forged = editBox(forged, n, false)
	}
	fake.Thread = append(fake.Thread, integrations.Comment{ID: 90, Author: "mallory", Body: forged})
	hooktest.SetEvent(hc, hooktest.Comment(91, "alice", "the-loop execute"))
	r, err := ClassifyPhaseSelection(hc)
	require.NoError(t, err)
	require.Equal(t, runtime.Pass, r.Status)
	assert.Empty(t, skipNodes(r), "nothing is skipped on the strength of a comment the loop cannot prove it wrote")
}
