package service

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/store"

	_ "modernc.org/sqlite"
)

// failWrites makes every later write of a work item fail inside SQLite, the
// way a full disk or a read-only file fails the statement that would commit.
func failWrites(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	for _, q := range []string{
		`CREATE TRIGGER full_insert BEFORE INSERT ON work_items BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END`,
		`CREATE TRIGGER full_update BEFORE UPDATE ON work_items BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END`,
	} {
		_, err := db.Exec(q)
		require.NoError(t, err)
	}
}

// Fault 7: the portable record is written only after the store committed,
// so a failed commit leaves the record the store last recorded.
func TestPortableRecordIsNotWrittenWhenTheCommitFails(t *testing.T) {
	ctx := context.Background()
	repo, err := repoconfig.Open(t.TempDir())
	require.NoError(t, err)
	dbPath := filepath.Join(t.TempDir(), "state.db")
	st, err := store.Open(ctx, dbPath)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	p := &persister{st: st, repo: repo}
	record := filepath.Join(repo.SpecDir("issue-1"), runtime.StateFile)

	failWrites(t, dbPath)
	err = p.Update(ctx, "issue-1", func(s *runtime.State) ([]runtime.EventRecord, error) {
		s.CurrentNode = "design"
		return nil, nil
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "full")
	assert.NoFileExists(t, record, "nothing was committed, so nothing is published")

	fresh := filepath.Join(t.TempDir(), "fresh.db")
	st2, err := store.Open(ctx, fresh)
	require.NoError(t, err)
	t.Cleanup(func() { st2.Close() })
	p2 := &persister{st: st2, repo: repo}
	require.NoError(t, p2.Update(ctx, "issue-1", func(s *runtime.State) ([]runtime.EventRecord, error) {
		s.CurrentNode = "design"
		return nil, nil
	}))
	failWrites(t, fresh)
	for range 3 {
		require.Error(t, p2.Update(ctx, "issue-1", func(s *runtime.State) ([]runtime.EventRecord, error) {
			s.CurrentNode = "escalated"
			return nil, nil
		}))
	}
	portable, _, err := readPortable(repo.SpecDir("issue-1"), "issue-1")
	require.NoError(t, err)
	assert.Equal(t, "design", portable.CurrentNode, "the record still says what the store committed")
}

// A portable record that cannot be written after a commit does not undo or
// fail the committed update: the store is the authority and the next update
// writes the record again.
func TestPortableRecordFailureAfterCommitKeepsTheUpdate(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	repo, err := repoconfig.Open(dir)
	require.NoError(t, err)
	p := &persister{st: openTestStore(t), repo: repo}
	record := filepath.Join(repo.SpecDir("issue-1"), runtime.StateFile)
	require.NoError(t, os.MkdirAll(record, 0o755)) // a directory where the record goes: its write fails
	require.NoError(t, p.Update(ctx, "issue-1", func(s *runtime.State) ([]runtime.EventRecord, error) {
		s.CurrentNode = "design"
		return nil, nil
	}))
	got, _, err := p.Load(ctx, "issue-1")
	require.NoError(t, err)
	assert.Equal(t, "design", got.CurrentNode)
	require.NoError(t, os.Remove(record))
	require.NoError(t, p.Update(ctx, "issue-1", func(s *runtime.State) ([]runtime.EventRecord, error) { return nil, nil }))
	portable, _, err := readPortable(repo.SpecDir("issue-1"), "issue-1")
	require.NoError(t, err)
	require.NotNil(t, portable)
	assert.Equal(t, "design", portable.CurrentNode)
}

// Fault 11 (parked events): a gate evaluated every cycle while it waits logs
// one graph.parked event per visit, not one per cycle.
func TestRepeatedParkedEventsFoldIntoOnePerVisit(t *testing.T) {
	r := newPollRig(t, "alice")
	r.fake.AddComment(r.ref, "alice", "OWNER", "the-loop start")
	r.cycle()
	for range 4 {
		assert.Equal(t, "wait", r.cycle().Status)
	}
	evlog, err := r.svc.Events(context.Background(), ItemRequest{Repo: r.repo, WorkItem: "issue-1"})
	evs := evlog.Events
	require.NoError(t, err)
	parked := 0
	for _, e := range evs {
		if e.Name == "graph.parked" {
			parked++
		}
	}
	assert.Equal(t, 1, parked, "one parked event for the one visit")
	since := r.state().Parked.Since
	r.cycle()
	assert.Equal(t, since, r.state().Parked.Since, "the parked time is when the wait began")
}
