package gates

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/handoff/handofftest"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

// handoffSelectionCtx is the shipped loop's phase-selection gate for an item
// whose record rec (by @dev) is frozen in state; rec nil means no handoff.
// importRecordURL is where the handoff record of these tests was posted.
const importRecordURL = "https://github.test/o/r/issues/1#issuecomment-7"

func handoffSelectionCtx(t *testing.T, rec *handoff.Record) (*runtime.HookContext, *hooktest.Fake) {
	t.Helper()
	g := hooktest.CompileShipped(t, graphs.Default)
	n, _ := g.Node("phase-selection")
	hc, fake := hooktest.GateContext(t, n, nil)
	hc.Graph = g
	if rec != nil {
		raw, err := handoff.EncodeJSON(*rec)
		require.NoError(t, err)
		hc.State.Handoff = &runtime.HandoffState{Record: raw, Author: "dev", CommentURL: importRecordURL}
	}
	return hc, fake
}

func TestHandoffChecklistUnticksEveryPhaseBeforeTheEntry(t *testing.T) {
	for _, row := range handofftest.Rows() {
		t.Run(row.Enter, func(t *testing.T) {
			rec, _ := handofftest.Build(row.Spec)
			hc, fake := handoffSelectionCtx(t, &rec)
			c := postChecklist(t, hc, fake)
			assert.Contains(t, c.Body, "Handed off by @dev at `"+row.Spec.Stage+"` ([record]("+importRecordURL+"))")
			enter, _ := hc.Graph.Node(row.Enter)
			for _, n := range hc.Graph.Nodes {
				if !n.Skippable || n.OptIn {
					continue
				}
				if n.Index() < enter.Index() {
					assert.Contains(t, c.Body, "- [ ] "+n.ID+"\n", n.ID)
				} else {
					assert.Contains(t, c.Body, "- [x] "+n.ID+"\n", n.ID)
				}
			}
			assert.Contains(t, c.Body, "- import-handoff\n", "with a handoff, import-handoff always runs")
		})
	}
}

func TestHandoffSkipsAreStampedAndSignedByTheReplier(t *testing.T) {
	rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageRequirementsSettled})
	hc, fake := handoffSelectionCtx(t, &rec)
	c := postChecklist(t, hc, fake)
	fake.Thread[len(fake.Thread)-1].Body = editBox(c.Body, "review-chain", false)
	hooktest.SetEvent(hc, hooktest.Comment(9, "alice", "the-loop execute"))
	r, err := ClassifyPhaseSelection(hc)
	require.NoError(t, err)
	require.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
	byNode := map[string]*runtime.Decision{}
	for _, d := range r.Data["declaredSkips"].([]*runtime.Decision) {
		byNode[d.Node] = d
	}
	reply := "https://github.test/o/r/issues/1#issuecomment-9"
	for _, n := range []string{"brainstorming", "brainstorm-approval", "requirements-definition"} {
		require.Contains(t, byNode, n)
		d := byNode[n]
		assert.Equal(t, runtime.ViaHandoff, d.Via, n)
		assert.Equal(t, "@alice", d.By, "the replier who said execute signs, not the record's author")
		assert.Equal(t, importRecordURL, d.CommentURL, n)
		assert.Equal(t, map[string]any{"handoff": importRecordURL, "reply": reply}, d.Data, n)
		assert.Equal(t, "skipped by handoff (declared by @alice)", runtime.Provenance(d))
	}
	assert.NotContains(t, byNode, "requirements-approval", "the entry node runs")
	self := byNode["self-review"]
	require.NotNil(t, self, "the replier's own untick after the entry node is honoured")
	assert.Equal(t, runtime.ViaSelection, self.Via)
	assert.Equal(t, reply, self.CommentURL)
	assert.Nil(t, self.Data)
	sel := hooktest.DecisionOf(t, r)
	assert.Equal(t, "@alice", sel.By)
	assert.Equal(t, reply, sel.CommentURL)
}

func TestHandoffRecordTextNeverSignsTheSelection(t *testing.T) {
	// An authorized developer's record whose carried body says the execute
	// keyword: the body is data, so the gate keeps waiting.
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageBrainstormSettled, CarriedBy: handoff.CarriedByTicket, Extra: "the-loop execute"})
	require.Contains(t, files[handoff.Brainstorm], "the-loop execute")
	hc, fake := handoffSelectionCtx(t, &rec)
	postChecklist(t, hc, fake)
	bodies, err := handoff.Render(rec)
	require.NoError(t, err)
	hooktest.SetEvent(hc, hooktest.Comment(7, "alice", bodies[0]))
	r, err := ClassifyPhaseSelection(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Wait, r.Status)

	part := handoff.PartMarker("0123456789abcdef", 1)
	assert.True(t, strings.HasPrefix(part, handoffPartMarkerPrefix))
	hooktest.SetEvent(hc, hooktest.Comment(8, "alice", part+"\n\nthe-loop execute"))
	r, err = ClassifyPhaseSelection(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Wait, r.Status, "a continuation part is data too")
}

func TestInvalidFrozenHandoffPrefillsNothing(t *testing.T) {
	hc, fake := handoffSelectionCtx(t, nil)
	// Hand-edited state: a record that could never have been accepted.
	hc.State.Handoff = &runtime.HandoffState{Record: json.RawMessage(`{"version":1,"stage":"design-settled","enter":"implementation","artifacts":[],"carriedBy":"branch","branch":"the-loop/x"}`),
		Author: "mallory", CommentURL: "https://github.test/c/1"}
	c := postChecklist(t, hc, fake)
	assert.NotContains(t, c.Body, "Handed off")
	assert.Contains(t, c.Body, "- [x] brainstorming\n")
	hooktest.SetEvent(hc, hooktest.Comment(9, "alice", "the-loop execute\n- [ ] brainstorming"))
	r, err := ClassifyPhaseSelection(hc)
	require.NoError(t, err)
	skips := r.Data["declaredSkips"].([]*runtime.Decision)
	require.Len(t, skips, 1)
	assert.Equal(t, runtime.ViaSelection, skips[0].Via, "no handoff stamp from a record that does not validate")
}

func TestFrozenGraphOmitsHandoffOnlyNodesWithoutAHandoff(t *testing.T) {
	ids := func(hc *runtime.HookContext) []string {
		hooktest.SetEvent(hc, hooktest.Comment(9, "alice", "the-loop execute"))
		r, err := ClassifyPhaseSelection(hc)
		require.NoError(t, err)
		var out []string
		for _, n := range hooktest.DecisionOf(t, r).Data["graph"].(map[string]any)["nodes"].([]any) {
			out = append(out, n.(map[string]any)["id"].(string))
		}
		return out
	}
	plain, _ := handoffSelectionCtx(t, nil)
	assert.NotContains(t, ids(plain), "import-handoff")
	rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageExploring})
	handed, _ := handoffSelectionCtx(t, &rec)
	assert.Contains(t, ids(handed), "import-handoff")
}

func TestHandoffCommentDetection(t *testing.T) {
	assert.True(t, gateHandoffComment("intro\n"+handoff.RecordMarker+"\n"))
	assert.True(t, gateHandoffComment(integrations.MarkSelfAuthored(handoff.PartMarker("0123456789abcdef", 2))))
	assert.False(t, gateHandoffComment("the-loop execute — see <!-- the-loop:handoff --> above"), "only a marker line counts")
}
