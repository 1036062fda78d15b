package service

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/relations"
)

// A cycle reads each ticket once, and every collection of the cycle gets
// the same answer: a collection rewriting its lists never changes what the
// next one reads.
func TestACycleReadsEachTicketOnceAndSharesIt(t *testing.T) {
	r := newDAGRig(t)
	a, b, c := r.issue("a"), r.issue("b"), r.issue("c")
	r.gh.AddBlocker(b, a)
	r.gh.AddBlocker(c, b)
	r.gh.AddSubIssue(r.gh.Ticket(), b)
	require.NoError(t, r.ghp.EditIssueBody(context.Background(), b, "Blocked by: #2, #2, jira:PROJ-9\n- [ ] #4\n"))
	trackers, _ := r.svc.trackers()
	trackers.GitHub, trackers.Jira = onceEach(trackers.GitHub), onceEach(trackers.Jira)
	roots := []integrations.Ref{c}
	first, err := relations.Collect(context.Background(), trackers, roots, relations.Options{})
	require.NoError(t, err)
	requests := r.gh.RequestCount()
	for range 3 {
		again, err := relations.Collect(context.Background(), trackers, roots, relations.Options{})
		require.NoError(t, err)
		assert.Equal(t, first, again)
	}
	assert.Equal(t, requests, r.gh.RequestCount(), "the cycle answers from its first read")
}

// What a caller does to an answer's lists never reaches the next answer.
func TestACycleAnswerIsACopy(t *testing.T) {
	r := newDAGRig(t)
	a, b := r.issue("a"), r.issue("b")
	r.gh.AddBlocker(b, a)
	rr := onceEach(r.ghp)
	got, err := rr.ReadRelations(context.Background(), b)
	require.NoError(t, err)
	require.Len(t, got.BlockedBy, 1)
	got.BlockedBy[0].Ref.Number = 99
	got.BlockedBy = append(got.BlockedBy[:0], integrations.Related{})
	again, err := rr.ReadRelations(context.Background(), b)
	require.NoError(t, err)
	require.Len(t, again.BlockedBy, 1)
	assert.Equal(t, a.Number, again.BlockedBy[0].Ref.Number)
}
