package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/store/storetest"
)

// openTemp opens a fresh store of the backend under test (SQLite in
// t.TempDir, or a schema of its own on LOOP_TEST_PG while the contract
// suite runs on PostgreSQL) and closes it at cleanup.
func openTemp(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), tempLocation(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// tempLocation is a fresh, empty store location of the backend under test.
func tempLocation(t testing.TB) string {
	t.Helper()
	if onPostgres {
		return storetest.TempPostgres(t)
	}
	return filepath.Join(t.TempDir(), "state", "the-loop.db")
}

// counterState is the JSON blob the concurrency tests increment.
type counterState struct {
	N int `json:"n"`
}

// increment is an Update callback: it bumps the counter in the blob, mirrors
// it into a node row, and logs one event carrying the new value.
func increment(cur *WorkItem) (*WorkItem, []Event, error) {
	var st counterState
	next := &WorkItem{Loop: "counter", CurrentNode: "count"}
	if cur != nil {
		if err := json.Unmarshal(cur.State, &st); err != nil {
			return nil, nil, fmt.Errorf("decode counter: %w", err)
		}
		next = cur
	}
	st.N++
	blob, err := json.Marshal(st)
	if err != nil {
		return nil, nil, err
	}
	next.State = blob
	next.Nodes = []NodeRow{{Node: "count", Attempts: st.N, Outcome: "pass"}}
	data, err := json.Marshal(st)
	if err != nil {
		return nil, nil, err
	}
	return next, []Event{{Name: "count.incremented", Node: "count", Data: data}}, nil
}

// counterOf reads the counter of (repo, id); 0 when the item is missing.
func counterOf(t testing.TB, s *Store, repo, id string) int {
	t.Helper()
	it, found, err := s.Get(context.Background(), repo, id)
	require.NoError(t, err)
	if !found {
		return 0
	}
	var st counterState
	require.NoError(t, json.Unmarshal(it.State, &st))
	return st.N
}

// assertCounterConsistent checks that blob, node row and event log agree on
// the counter value n: one event per increment, values 1..n in order.
func assertCounterConsistent(t testing.TB, s *Store, repo, id string) int {
	t.Helper()
	ctx := context.Background()
	it, found, err := s.Get(ctx, repo, id)
	require.NoError(t, err)
	require.True(t, found, "item %s %s missing", repo, id)
	var st counterState
	require.NoError(t, json.Unmarshal(it.State, &st))
	require.Len(t, it.Nodes, 1)
	require.Equal(t, st.N, it.Nodes[0].Attempts, "node row disagrees with blob")
	evs, err := s.Events(ctx, repo, id)
	require.NoError(t, err)
	require.Len(t, evs, st.N, "one event per committed increment")
	var prev int64
	for i, ev := range evs {
		var got counterState
		require.NoError(t, json.Unmarshal(ev.Data, &got))
		require.Equal(t, i+1, got.N, "event %d out of order", i)
		require.Greater(t, ev.Seq, prev)
		prev = ev.Seq
	}
	return st.N
}
