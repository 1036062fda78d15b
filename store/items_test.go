package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUpdateRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	fixed := time.Date(2026, 7, 29, 10, 0, 0, 123456789, time.FixedZone("x", 3600))
	s.now = func() time.Time { return fixed }

	_, found, err := s.Get(ctx, "/repo", "issue-109")
	require.NoError(t, err)
	require.False(t, found)

	want := WorkItem{
		Loop:        "feature",
		CurrentNode: "design",
		State:       []byte(`{"version":1,"currentNode":"design","nodes":{"a":{}}}`),
		Nodes: []NodeRow{
			{Node: "requirements", Attempts: 2, Outcome: "pass", EnteredAt: "2026-07-29T09:00:00Z", ExitedAt: "2026-07-29T09:30:00Z", LastBlock: "missing goal", Forced: true},
			{Node: "design", EnteredAt: "2026-07-29T09:30:00Z"},
		},
	}
	var sawCur *WorkItem
	saved := want
	require.NoError(t, s.Update(ctx, "/repo", "issue-109", func(cur *WorkItem) (*WorkItem, []Event, error) {
		sawCur = cur
		return &saved, nil, nil
	}))
	assert.Nil(t, sawCur, "fn gets nil for a missing item")
	assert.Equal(t, fixed.UTC(), saved.UpdatedAt, "saved item gets UpdatedAt")
	assert.Equal(t, "/repo", saved.Repo)
	assert.Equal(t, "issue-109", saved.ID)

	got, found, err := s.Get(ctx, "/repo", "issue-109")
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, "/repo", got.Repo)
	assert.Equal(t, "issue-109", got.ID)
	assert.Equal(t, want.Loop, got.Loop)
	assert.Equal(t, want.CurrentNode, got.CurrentNode)
	assert.Equal(t, want.State, got.State, "state stored verbatim")
	assert.True(t, fixed.Equal(got.UpdatedAt))
	// Sorted by node name.
	assert.Equal(t, []NodeRow{want.Nodes[1], want.Nodes[0]}, got.Nodes)

	// The second Update sees the first one's item.
	require.NoError(t, s.Update(ctx, "/repo", "issue-109", func(cur *WorkItem) (*WorkItem, []Event, error) {
		require.NotNil(t, cur)
		assert.Equal(t, got, *cur)
		return nil, nil, nil
	}))
}

func TestUpdateReplacesNodeRows(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	save := func(nodes ...NodeRow) {
		require.NoError(t, s.Update(ctx, "r", "i", func(cur *WorkItem) (*WorkItem, []Event, error) {
			return &WorkItem{Loop: "l", State: []byte(`{}`), Nodes: nodes}, nil, nil
		}))
	}
	save(NodeRow{Node: "a", Attempts: 1}, NodeRow{Node: "b"}, NodeRow{Node: "c"})
	save(NodeRow{Node: "b", Attempts: 3, Outcome: "block"})

	got, _, err := s.Get(ctx, "r", "i")
	require.NoError(t, err)
	assert.Equal(t, []NodeRow{{Node: "b", Attempts: 3, Outcome: "block"}}, got.Nodes)

	save()
	got, _, err = s.Get(ctx, "r", "i")
	require.NoError(t, err)
	assert.Empty(t, got.Nodes)
	var n int
	require.NoError(t, s.read.QueryRowContext(ctx, `SELECT count(*) FROM node_states`).Scan(&n))
	assert.Zero(t, n, "old rows deleted, not accumulated")
}

func TestUpdateNilSavesNothing(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	require.NoError(t, s.Update(ctx, "r", "i", func(*WorkItem) (*WorkItem, []Event, error) { return nil, nil, nil }))
	_, found, err := s.Get(ctx, "r", "i")
	require.NoError(t, err)
	assert.False(t, found)
}

func TestUpdateCallsFnOnce(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	calls := 0
	require.NoError(t, s.Update(ctx, "r", "i", func(cur *WorkItem) (*WorkItem, []Event, error) {
		calls++
		return increment(cur)
	}))
	assert.Equal(t, 1, calls)
}

func TestUpdateErrorRollsBack(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	require.NoError(t, s.Update(ctx, "r", "i", increment))

	boom := errors.New("boom")
	err := s.Update(ctx, "r", "i", func(cur *WorkItem) (*WorkItem, []Event, error) {
		return nil, nil, boom
	})
	assert.ErrorIs(t, err, boom)

	// A bad event after a good item rolls back the item too.
	err = s.Update(ctx, "r", "i", func(cur *WorkItem) (*WorkItem, []Event, error) {
		next, evs, err := increment(cur)
		return next, append(evs, Event{Name: ""}), err
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Name is empty")
	assert.Equal(t, 1, assertCounterConsistent(t, s, "r", "i"))
}

func TestUpdatePanicRollsBack(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	assert.Panics(t, func() {
		_ = s.Update(ctx, "r", "i", func(*WorkItem) (*WorkItem, []Event, error) { panic("fn panicked") })
	})
	// The write connection was released: the next Update works.
	require.NoError(t, s.Update(ctx, "r", "i", increment))
	assert.Equal(t, 1, counterOf(t, s, "r", "i"))
}

func TestUpdateValidation(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	tests := []struct {
		name string
		item WorkItem
		want string
	}{
		{"repo mismatch", WorkItem{Repo: "other"}, `Repo "other"`},
		{"id mismatch", WorkItem{ID: "issue-2"}, `ID "issue-2"`},
		{"bad json", WorkItem{State: []byte(`{nope`)}, "State is not valid JSON"},
		{"empty node", WorkItem{Nodes: []NodeRow{{Node: ""}}}, "Nodes[0].Node is empty"},
		{"duplicate node", WorkItem{Nodes: []NodeRow{{Node: "a"}, {Node: "a"}}}, `node "a" twice`},
		{"negative attempts", WorkItem{Nodes: []NodeRow{{Node: "a", Attempts: -1}}}, "cannot be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := tt.item
			err := s.Update(ctx, "r", "issue-1", func(*WorkItem) (*WorkItem, []Event, error) { return &it, nil, nil })
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			_, found, gerr := s.Get(ctx, "r", "issue-1")
			require.NoError(t, gerr)
			assert.False(t, found)
		})
	}
}

func TestKeyValidation(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	for _, k := range []struct{ repo, id, want string }{
		{"", "i", "repo is empty"},
		{"r", "", "id is empty"},
	} {
		err := s.Update(ctx, k.repo, k.id, increment)
		assert.ErrorContains(t, err, k.want)
		_, _, err = s.Get(ctx, k.repo, k.id)
		assert.ErrorContains(t, err, k.want)
		err = s.AppendEvents(ctx, k.repo, k.id, []Event{{Name: "x"}})
		assert.ErrorContains(t, err, k.want)
		_, err = s.Events(ctx, k.repo, k.id)
		assert.ErrorContains(t, err, k.want)
	}
	assert.ErrorContains(t, s.Update(ctx, "r", "i", nil), "fn is nil")
	_, err := s.List(ctx, "")
	assert.ErrorContains(t, err, "repo is empty")
}

func TestListSortedAndScopedToRepo(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	for _, k := range []struct{ repo, id string }{
		{"r1", "issue-3"}, {"r1", "issue-1"}, {"r2", "issue-1"}, {"r1", "issue-2"},
	} {
		require.NoError(t, s.Update(ctx, k.repo, k.id, func(cur *WorkItem) (*WorkItem, []Event, error) {
			return &WorkItem{Loop: k.repo, Nodes: []NodeRow{{Node: "n-" + k.id}}}, nil, nil
		}))
	}
	items, err := s.List(ctx, "r1")
	require.NoError(t, err)
	var ids []string
	for _, it := range items {
		ids = append(ids, it.ID)
		assert.Equal(t, "r1", it.Repo)
		assert.Equal(t, "r1", it.Loop)
		assert.Equal(t, []NodeRow{{Node: "n-" + it.ID}}, it.Nodes, "nodes attached to the right item")
	}
	assert.Equal(t, []string{"issue-1", "issue-2", "issue-3"}, ids)

	// Same id in another repo is a different item.
	assert.Equal(t, 0, counterOf(t, s, "r3", "issue-1"))
	empty, err := s.List(ctx, "r3")
	require.NoError(t, err)
	assert.Empty(t, empty)
}

func TestUpdateCancelledContext(t *testing.T) {
	s := openTemp(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	err := s.Update(ctx, "r", "i", func(cur *WorkItem) (*WorkItem, []Event, error) {
		called = true
		return increment(cur)
	})
	assert.ErrorIs(t, err, context.Canceled)
	assert.False(t, called)
}

func TestStateBlobReadsWhatUpdateSaved(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	_, found, err := s.StateBlob(ctx, "repo", "issue-1")
	require.NoError(t, err)
	assert.False(t, found)
	require.NoError(t, s.Update(ctx, "repo", "issue-1", func(*WorkItem) (*WorkItem, []Event, error) {
		return &WorkItem{Repo: "repo", ID: "issue-1", State: []byte(`{"n":1}`)}, nil, nil
	}))
	blob, found, err := s.StateBlob(ctx, "repo", "issue-1")
	require.NoError(t, err)
	assert.True(t, found)
	assert.JSONEq(t, `{"n":1}`, string(blob))
	_, _, err = s.StateBlob(ctx, "", "issue-1")
	assert.Error(t, err, "an empty key is refused")
}

func TestHoldSeesTheCommittedItemAndWritesNothing(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	require.NoError(t, s.Hold(ctx, "r", "i", func(cur *WorkItem) error {
		assert.Nil(t, cur, "no item yet")
		return nil
	}))
	require.NoError(t, s.Update(ctx, "r", "i", increment))
	boom := errors.New("boom")
	err := s.Hold(ctx, "r", "i", func(cur *WorkItem) error {
		require.NotNil(t, cur)
		assert.JSONEq(t, `{"n":1}`, string(cur.State))
		return boom
	})
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, 1, assertCounterConsistent(t, s, "r", "i"))
}
