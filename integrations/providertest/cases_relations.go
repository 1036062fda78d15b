package providertest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
)

// notDoneReason is how each fake closes a ticket without doing it.
func (s *Server) notDoneReason() string {
	if s.system == "jira" {
		return "Won't Do"
	}
	return "not_planned"
}

// doneReason is how each fake closes a ticket as done.
func (s *Server) doneReason() string {
	if s.system == "jira" {
		return "Done"
	}
	return "completed"
}

func reader(t *testing.T, h *rig) integrations.RelationReader {
	t.Helper()
	r, ok := h.p.(integrations.RelationReader)
	require.True(t, ok, "a provider declaring read-relations must implement integrations.RelationReader")
	if h.batched {
		b, ok := h.p.(integrations.RelationBatchReader)
		require.True(t, ok, "the batched cases run only where the provider reads in batches")
		return batchOfOne{b}
	}
	return r
}

// batchOfOne reads one ticket through a provider's batched read, so every
// relations case holds for it too.
type batchOfOne struct {
	integrations.RelationBatchReader
}

func (b batchOfOne) ReadRelations(ctx context.Context, ref integrations.Ref) (integrations.Relations, error) {
	got := b.ReadRelationsBatch(ctx, []integrations.Ref{ref})
	if len(got.Reads) != 1 {
		return integrations.Relations{}, fmt.Errorf("a batched read of one ticket gave %d answers", len(got.Reads))
	}
	return got.Reads[0].Relations, got.Reads[0].Err
}

func refsOf(rs []integrations.Related) []integrations.Ref {
	out := []integrations.Ref{}
	for _, r := range rs {
		out = append(out, integrations.Ref{System: r.Ref.System, Owner: r.Ref.Owner, Repo: r.Ref.Repo, Number: r.Ref.Number, Key: r.Ref.Key})
	}
	return out
}

// caseReadRelations: a parent with two children, the second blocked by the
// first; the first closed as done, a third child closed as not done.
func caseReadRelations(t *testing.T, h *rig) {
	rr := reader(t, h)
	parent := h.ref()
	a := h.f.SeedIssue("First", nil, true)
	b := h.f.SeedIssue("Second", nil, true)
	c := h.f.SeedIssue("Dropped", nil, true)
	for _, child := range []integrations.Ref{a, b, c} {
		h.f.AddSubIssue(parent, child)
	}
	h.f.AddBlocker(b, a)
	h.f.SetState(a, false, h.f.doneReason())
	h.f.SetState(c, false, h.f.notDoneReason())

	top, err := rr.ReadRelations(h.ctx, parent)
	require.NoError(t, err)
	assert.Equal(t, "Seeded ticket", top.Item.Title)
	assert.Equal(t, integrations.StateOpen, top.Item.State)
	assert.Equal(t, "Seeded body", top.Body)
	assert.Equal(t, []integrations.Ref{a, b, c}, refsOf(top.Children), "children in the tracker's order")
	assert.Equal(t, []integrations.ItemState{integrations.StateDone, integrations.StateOpen, integrations.StateNotDone},
		[]integrations.ItemState{top.Children[0].State, top.Children[1].State, top.Children[2].State})
	assert.Nil(t, top.Parent)
	assert.Empty(t, top.Warnings)

	second, err := rr.ReadRelations(h.ctx, b)
	require.NoError(t, err)
	require.NotNil(t, second.Parent)
	assert.Equal(t, refsOf([]integrations.Related{{Ref: parent}}), refsOf([]integrations.Related{*second.Parent}))
	assert.Equal(t, []integrations.Ref{a}, refsOf(second.BlockedBy))
	assert.Equal(t, integrations.StateDone, second.BlockedBy[0].State)
	assert.Equal(t, "First", second.BlockedBy[0].Title)
	assert.Empty(t, second.Blocking)

	first, err := rr.ReadRelations(h.ctx, a)
	require.NoError(t, err)
	assert.Equal(t, integrations.StateDone, first.Item.State)
	assert.Equal(t, []integrations.Ref{b}, refsOf(first.Blocking))
	assert.Empty(t, first.BlockedBy)

	dropped, err := rr.ReadRelations(h.ctx, c)
	require.NoError(t, err)
	assert.Equal(t, integrations.StateNotDone, dropped.Item.State)
	assert.Equal(t, h.f.notDoneReason(), dropped.Item.Reason)

	h.f.RemoveBlocker(b, a)
	second, err = rr.ReadRelations(h.ctx, b)
	require.NoError(t, err)
	assert.Empty(t, second.BlockedBy, "a removed dependency is gone on the next read")
}

func testRelations(t *testing.T, target Target) {
	h := setup(t, target)
	if !integrations.Supports(h.p, integrations.OpReadRelations) {
		t.Skip("the provider does not declare read-relations")
	}
	testRelationsWith(t, target)
	if _, ok := h.p.(integrations.RelationBatchReader); ok {
		t.Run("batched", func(t *testing.T) {
			t.Run("the relations case", func(t *testing.T) { caseReadRelations(t, setup(t, target, batched)) })
			testRelationsWith(t, target, batched)
		})
	}
}

func testRelationsWith(t *testing.T, target Target, opts ...option) {
	t.Run("pagination across three pages", func(t *testing.T) { testRelationsPagination(t, setup(t, target, opts...)) })
	t.Run("a tracker without the features reads none, with a warning", func(t *testing.T) { testRelationsMissing(t, setup(t, target, opts...)) })
	t.Run("a missing ticket is ErrNotFound", func(t *testing.T) { testRelationsNotFound(t, setup(t, target, opts...)) })
	t.Run("401 is ErrUnauthorized", func(t *testing.T) {
		testRelationsUnauthorized(t, setup(t, target, append(opts, withToken("wrong-token-value-123"))...))
	})
}

func relationListings(f *Server) int {
	n := 0
	for _, r := range f.Requests() {
		if r.Method == http.MethodGet && (strings.HasSuffix(r.Path, "/sub_issues") || strings.Contains(r.Path, "/rest/api/2/search")) {
			n++
		}
	}
	return n
}

func testRelationsPagination(t *testing.T, h *rig) {
	h.f.SetPageSize(2)
	var want []integrations.Ref
	for i := range 5 {
		child := h.f.SeedIssue("Child "+string(rune('A'+i)), nil, true)
		h.f.AddSubIssue(h.ref(), child)
		want = append(want, child)
	}
	got, err := reader(t, h).ReadRelations(h.ctx, h.ref())
	require.NoError(t, err)
	assert.Equal(t, want, refsOf(got.Children), "every child, in order, across pages")
	assert.Equal(t, 3, relationListings(h.f), "five children at two per page take three requests")
}

func testRelationsMissing(t *testing.T, h *rig) {
	h.f.DisableRelations()
	blocker := h.f.SeedIssue("Blocker", nil, true)
	child := h.f.SeedIssue("Child", nil, true)
	h.f.AddBlocker(h.ref(), blocker)
	h.f.AddSubIssue(h.ref(), child)
	got, err := reader(t, h).ReadRelations(h.ctx, h.ref())
	require.NoError(t, err, "a missing feature is not an error")
	assert.Equal(t, "Seeded ticket", got.Item.Title)
	assert.Empty(t, got.Children)
	assert.Empty(t, got.BlockedBy)
	require.NotEmpty(t, got.Warnings)
	for _, w := range got.Warnings {
		assert.Contains(t, w, "read as none")
	}
}

func testRelationsNotFound(t *testing.T, h *rig) {
	_, err := reader(t, h).ReadRelations(h.ctx, h.f.Missing())
	assert.ErrorIs(t, err, integrations.ErrNotFound)
	want := 1
	if h.batched {
		want = 2 // the batch's query, then the ticket's own read says why
	}
	assert.Equal(t, want, h.f.RequestCount(), "a missing ticket stops at its own read")
}

func testRelationsUnauthorized(t *testing.T, h *rig) {
	_, err := reader(t, h).ReadRelations(h.ctx, h.ref())
	assert.ErrorIs(t, err, integrations.ErrUnauthorized)
	h.noSecret(t, err)
	assert.Equal(t, 1, h.f.RequestCount(), "a 401 is never retried")
}
