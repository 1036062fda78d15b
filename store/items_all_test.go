package store

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestListAllSpansRepositories: ListAll returns the items of every
// repository, sorted by repository then id; an empty store lists none.
func TestListAllSpansRepositories(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	all, err := s.ListAll(ctx)
	require.NoError(t, err)
	assert.Empty(t, all)
	for _, k := range [][2]string{{"/b", "issue-2"}, {"/a", "issue-9"}, {"/a", "issue-1"}} {
		require.NoError(t, s.Update(ctx, k[0], k[1], func(*WorkItem) (*WorkItem, []Event, error) {
			return &WorkItem{Loop: "feature", CurrentNode: "design", State: []byte(`{}`)}, nil, nil
		}))
	}
	all, err = s.ListAll(ctx)
	require.NoError(t, err)
	var got []string
	for _, it := range all {
		got = append(got, it.Repo+" "+it.ID+" "+it.CurrentNode)
	}
	assert.Equal(t, []string{"/a issue-1 design", "/a issue-9 design", "/b issue-2 design"}, got)
}

// TestChangeMarkMoves: the mark moves when an item is saved, an event
// appended or a session started or metered, and stays otherwise.
func TestChangeMarkMoves(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	mark := func() string {
		m, err := s.ChangeMark(ctx)
		require.NoError(t, err)
		return m
	}
	m0 := mark()
	assert.Equal(t, m0, mark(), "nothing changed")
	require.NoError(t, s.Update(ctx, "/a", "issue-1", func(*WorkItem) (*WorkItem, []Event, error) {
		return &WorkItem{Loop: "feature", CurrentNode: "design", State: []byte(`{}`)}, nil, nil
	}))
	m1 := mark()
	assert.NotEqual(t, m0, m1, "an item saved")
	require.NoError(t, s.AppendEvents(ctx, "/a", "issue-1", []Event{{Name: "x"}}))
	m2 := mark()
	assert.NotEqual(t, m1, m2, "an event appended")
	require.NoError(t, s.StartSession(ctx, Session{ID: "s-1", Repo: "/a", WorkItem: "issue-1", Node: "design", Harness: "claude", Argv: []string{"claude"}, Attempt: 1, StartedAt: time.Now()}))
	m3 := mark()
	assert.NotEqual(t, m2, m3, "a session started")
	require.NoError(t, s.UpdateSessionUsage(ctx, "s-1", SessionUsage{Tokens: 10}))
	assert.NotEqual(t, m3, mark(), "a session metered")
}

// TestStatesReadARepositoryInOneQuery: States returns the pointer and
// state of every item of one repository (inner loops included), sorted by
// id, and nothing of another; each call counts as one state read; an empty
// repository key is refused.
func TestStatesReadARepositoryInOneQuery(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	none, err := s.States(ctx, "/a")
	require.NoError(t, err)
	assert.Empty(t, none)
	for _, k := range [][3]string{{"/a", "issue-9", "design"}, {"/b", "issue-2", "design"}, {"/a", "issue-1", ""}, {"/a", "issue-1/pr-loops/pr-3", "review"}} {
		require.NoError(t, s.Update(ctx, k[0], k[1], func(*WorkItem) (*WorkItem, []Event, error) {
			return &WorkItem{Loop: "feature", CurrentNode: k[2], State: []byte(`{"at":"` + k[2] + `"}`)}, nil, nil
		}))
	}
	before := s.StateReads()
	got, err := s.States(ctx, "/a")
	require.NoError(t, err)
	assert.Equal(t, before+1, s.StateReads())
	assert.Equal(t, []ItemState{
		{ID: "issue-1", CurrentNode: "", State: []byte(`{"at":""}`)},
		{ID: "issue-1/pr-loops/pr-3", CurrentNode: "review", State: []byte(`{"at":"review"}`)},
		{ID: "issue-9", CurrentNode: "design", State: []byte(`{"at":"design"}`)},
	}, got)
	_, err = s.States(ctx, "")
	require.ErrorContains(t, err, "repo is empty")
}
