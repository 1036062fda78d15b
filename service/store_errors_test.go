package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/store"
)

// Fault 11 (messages): a damaged store names the damage and its fix, not an
// unrelated "set --db to a writable path" hint.
func TestAStoreErrorNamesTheRealCause(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "state.db")
	junk := make([]byte, 8192)
	for i := range junk {
		junk[i] = byte(i*7 + 3)
	}
	require.NoError(t, os.WriteFile(db, junk, 0o600))
	svc := testService(t, nil, Deps{Store: store.NewHandle(db)})
	_, err := svc.Start(context.Background(), StartRequest{ItemRequest: ItemRequest{Repo: dir, WorkItem: "issue-1"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a valid the-loop SQLite database")
	assert.Contains(t, err.Error(), "move the file and its -wal/-shm companions aside")
	assert.NotContains(t, err.Error(), "writable path")
}

// Fault 11: reading the event log never creates, migrates or writes the
// store.
func TestEventsOpenTheStoreReadOnly(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "docs", "specs", "issue-1"), 0o755))
	svc := testService(t, nil, Deps{Store: store.NewHandle(filepath.Join(t.TempDir(), "state", "the-loop.db"))})
	evlog, err := svc.Events(context.Background(), ItemRequest{Repo: dir, WorkItem: "issue-1"})
	evs := evlog.Events
	require.NoError(t, err)
	assert.Empty(t, evs)
	assert.NoFileExists(t, svc.DBPath(), "no store is created to read an empty log")

	_, err = svc.Start(context.Background(), StartRequest{ItemRequest: ItemRequest{Repo: dir, WorkItem: "issue-1"}})
	require.NoError(t, err)
	require.NoError(t, svc.Close())
	before, err := os.ReadFile(svc.DBPath())
	require.NoError(t, err)
	reader := testService(t, nil, Deps{Store: store.NewHandle(svc.DBPath())})
	evlog, err = reader.Events(context.Background(), ItemRequest{Repo: dir, WorkItem: "issue-1"})
	evs = evlog.Events
	require.NoError(t, err)
	assert.NotEmpty(t, evs)
	require.NoError(t, reader.Close())
	after, err := os.ReadFile(svc.DBPath())
	require.NoError(t, err)
	assert.Equal(t, before, after, "the database file is unchanged by a read")
}
