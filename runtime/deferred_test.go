package runtime

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deferring is a second runtime over the same state and repository that
// defers entry chains, as a launched session's server does.
func (h *rig) deferring() *Runtime {
	d := *h.rt
	d.DeferEntry = true
	return &d
}

func TestADeferringClaimLeavesItsEntryChainToThePoller(t *testing.T) {
	h := newRig(t, nil)
	ctx := context.Background()
	h.advance(h.say("select"))
	h.write("spec.md", "# spec\n")
	sess := h.deferring()
	env, err := sess.Complete(ctx, "issue-1", "write", "agent")
	require.NoError(t, err)
	require.True(t, env.Moved, "%+v", env)
	assert.Equal(t, "approve", h.state().EntryPending)
	h.entries = nil
	_, err = sess.Advance(ctx, "issue-1", h.say("change"))
	require.NoError(t, err)
	assert.Equal(t, "write", h.state().CurrentNode)
	assert.Empty(t, h.entries, "the session's server runs no entry chain")
	assert.Equal(t, "write", h.state().EntryPending)

	_, _, err = sess.RunPendingEntry(ctx, "issue-1")
	assert.Error(t, err, "a deferring runtime never runs what it deferred")

	node, _, err := h.rt.RunPendingEntry(ctx, "issue-1")
	require.NoError(t, err)
	assert.Equal(t, "write", node)
	assert.Equal(t, []string{"write@write"}, h.entries, "the poller ran it once")
	assert.Empty(t, h.state().EntryPending)
	node, _, err = h.rt.RunPendingEntry(ctx, "issue-1")
	require.NoError(t, err)
	assert.Empty(t, node, "nothing runs twice")
	assert.Len(t, h.entries, 1)
}

func TestAPendingEntryOfANodeLeftIsDropped(t *testing.T) {
	h := newRig(t, nil)
	ctx := context.Background()
	h.advance(h.say("select"))
	h.write("spec.md", "# spec\n")
	_, err := h.deferring().Complete(ctx, "issue-1", "write", "agent")
	require.NoError(t, err)
	st := h.state()
	st.EntryPending = "write" // as if the item had moved on without it
	h.mem.Put("issue-1", st)
	h.entries = nil
	node, _, err := h.rt.RunPendingEntry(ctx, "issue-1")
	require.NoError(t, err)
	assert.Empty(t, node)
	assert.Empty(t, h.entries, "a visit that is over gets no entry effects")
	assert.Empty(t, h.state().EntryPending)
}

func TestEscalateMovesOnlyFromTheNamedNode(t *testing.T) {
	h := newRig(t, nil)
	ctx := context.Background()
	h.advance(h.say("select"))
	moved, err := h.rt.Escalate(ctx, "issue-1", "approve", "sessions gave up")
	require.NoError(t, err)
	assert.False(t, moved, "the item is not on approve: nothing moves")
	assert.Equal(t, "write", h.state().CurrentNode)

	moved, err = h.rt.Escalate(ctx, "issue-1", "write", "the session for write ended 4 times with the node unmet")
	require.NoError(t, err)
	assert.True(t, moved)
	st := h.state()
	assert.Equal(t, "escalated", st.CurrentNode)
	require.NotNil(t, st.Escalation)
	assert.Equal(t, "write", st.Escalation.From)
	assert.Equal(t, "the session for write ended 4 times with the node unmet", st.Escalation.Reason)
	assert.Contains(t, h.entries, "escalated@escalated", "the escalated node's entry chain notifies")
	rep := h.status(false)
	assert.Equal(t, "escalated", rep.CurrentNode)
}

func TestAnEntryChainADeathCutShortIsRunByTheNextPoller(t *testing.T) {
	h := newRig(t, nil)
	ctx := context.Background()
	h.advance(h.say("select"))
	require.Equal(t, []string{"write@write"}, h.entries)
	assert.Equal(t, []string{"write"}, h.pendingSeen, "the state saved before the chain ran says it is pending")
	assert.Empty(t, h.state().EntryPending, "and stops saying so once it ran")

	// The process that entered write died before its chain ran: the saved
	// state still says so, and the next poller runs the chain.
	h.mutate(func(st *State) { st.EntryPending = "write" })
	h.entries = nil
	node, _, err := h.rt.RunPendingEntry(ctx, "issue-1")
	require.NoError(t, err)
	assert.Equal(t, "write", node)
	assert.Equal(t, []string{"write@write"}, h.entries)
	assert.Empty(t, h.state().EntryPending)
}
