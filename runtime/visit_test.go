package runtime

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
)

// comment is a reply by the owner numbered as a ticket system numbers its
// comments, written at the given time.
func comment(body string, at time.Time) integrations.Comment {
	id := lastCommentID.Add(1)
	return integrations.Comment{ID: id, Author: "owner", Body: body, URL: fmt.Sprintf("https://example.test/c#%d", id), CreatedAt: at, UpdatedAt: at}
}

// toApproval walks the rig's item to the approve gate: phase selection
// answered, the spec written and claimed.
func (h *rig) toApproval() {
	h.t.Helper()
	h.advance(h.say("select"))
	h.write("spec.md", "# spec\n")
	h.claim("write")
	require.Equal(h.t, "approve", h.state().CurrentNode)
}

func (h *rig) claim(node string) {
	h.t.Helper()
	env, err := h.rt.Complete(context.Background(), "issue-1", node, "agent")
	require.NoError(h.t, err)
	require.True(h.t, env.Moved, "%+v", env)
}

// One change request sends the work back exactly once, whether the ticket
// system's clock runs years ahead of the loop's or years behind it: once
// the agent has claimed its node again, the gate reads the same thread cycle
// after cycle and waits for a new reply.
func TestOneChangeRequestRoutesBackOnceWhateverTheClock(t *testing.T) {
	for _, skew := range []time.Duration{10 * 365 * 24 * time.Hour, -10 * 365 * 24 * time.Hour} {
		t.Run(fmt.Sprintf("clock %+dy", int(skew.Hours()/24/365)), func(t *testing.T) {
			h := newRig(t, nil)
			h.toApproval()
			change := comment("change", time.Now().Add(skew))
			thread := &Event{Comments: []integrations.Comment{change}}
			rep := h.advance(thread)
			require.Equal(t, "write", h.state().CurrentNode, "%+v", rep)
			h.claim("write")
			for i := 0; i < 5; i++ {
				rep := h.advance(thread)
				assert.Equal(t, "wait", rep.Status, "cycle %d: %+v", i+1, rep)
				assert.Equal(t, "approve", h.state().CurrentNode, "the change request decided its visit and no other")
			}
			assert.Equal(t, 1, h.state().Nodes["approve"].RouteBacks)
			rep = h.advance(&Event{Comments: []integrations.Comment{change, comment("approve", time.Now().Add(skew))}})
			assert.Equal(t, "build", h.state().CurrentNode, "%+v", rep)
		})
	}
}

// A comment that existed when a visit began is not the visit's, even when
// the caller hands it over with the thread, and a comment an entry chain
// posted opens the visit: a reply written before it belongs to the time
// between visits.
func TestAVisitReadsOnlyCommentsAboveItsFloor(t *testing.T) {
	graph := strings.Replace(walkGraph, "  - id: approve\n    actor: human\n", "  - id: approve\n    actor: human\n    entry: [post-request]\n", 1)
	h := newRigOf(t, nil, graph)
	h.advance(h.say("select"))
	h.write("spec.md", "# spec\n")
	early := comment("approve", time.Now())
	h.claim("write")
	require.Len(t, h.posted, 1)
	floor := h.state().Nodes["approve"].Visit.Floor[CommentStream(h.posted[0])]
	assert.Equal(t, h.posted[0].ID, floor, "the review request opens the visit")
	rep := h.advance(&Event{Comments: []integrations.Comment{early, h.posted[0]}})
	assert.Equal(t, "wait", rep.Status, "a reply older than the review request is not this visit's: %+v", rep)
	rep = h.advance(&Event{Comments: []integrations.Comment{early, h.posted[0], comment("approve", time.Now())}})
	assert.Equal(t, "build", h.state().CurrentNode, "%+v", rep)
}

// A decision resting on a comment at or below the visit's floor is refused,
// whatever the hook that made it read.
func TestADecisionOnAnEarlierVisitsCommentIsRefused(t *testing.T) {
	old := comment("change", time.Now())
	rec := &NodeRecord{Visit: &Visit{Floor: map[string]int64{CommentStream(old): old.ID}}}
	d := &Decision{Node: "approve", Kind: KindGate, Outcome: OutcomeChangesRequested,
		Data: map[string]any{EvidenceKey: []any{map[string]any{"id": fmt.Sprint(old.ID), "url": old.URL}}}}
	why, stale := staleDecision(rec, []Result{OK("gate", map[string]any{"decision": d})})
	assert.True(t, stale)
	assert.Contains(t, why, "a comment decides once")
	fresh := comment("change", time.Now())
	d.Data[EvidenceKey] = []any{map[string]any{"id": fmt.Sprint(fresh.ID), "url": fresh.URL}}
	_, stale = staleDecision(rec, []Result{OK("gate", map[string]any{"decision": d})})
	assert.False(t, stale)
	review := integrations.Comment{ID: old.ID, URL: old.URL, Kind: integrations.CommentReview}
	assert.True(t, rec.Visit.reads(review), "ids of another stream (a review) are not compared with a conversation comment's")
}

// Past gates.maxRouteBacks, a gate that sends the work back once more
// escalates the item with the figures instead.
func TestRouteBacksPastTheCapEscalate(t *testing.T) {
	h := newRig(t, nil)
	cfg := config.Default()
	cfg.Gates.MaxRouteBacks = 2
	h.rt.Config = cfg
	h.toApproval()
	for i := 1; i <= 2; i++ {
		h.advance(&Event{Comments: []integrations.Comment{comment("change", time.Now())}})
		require.Equal(t, "write", h.state().CurrentNode)
		h.claim("write")
	}
	last := comment("change", time.Now())
	rep := h.advance(&Event{Comments: []integrations.Comment{last}})
	assert.Equal(t, StatusEscalated, rep.Status)
	st := h.state()
	assert.Equal(t, "escalated", st.CurrentNode)
	require.NotNil(t, st.Escalation)
	assert.Equal(t, "approve sent the work back 3 times, more than gates.maxRouteBacks (2); the last reply was "+last.URL, st.Escalation.Reason)
	_, err := h.rt.Force(context.Background(), "issue-1", "write", "resume after talking it through", "op")
	require.NoError(t, err)
	assert.Zero(t, h.state().Nodes["approve"].RouteBacks, "an operator's resume counts afresh")
}
