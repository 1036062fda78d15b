package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDependencyReadsKeepTheLatestReadOfEachItem(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	_, found, err := s.DependencyRead(ctx, "/srv/widgets", "issue-2")
	require.NoError(t, err)
	assert.False(t, found, "never read")

	first := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	require.NoError(t, s.RecordDependencyRead(ctx, "/srv/widgets", "issue-2", first))
	require.NoError(t, s.RecordDependencyRead(ctx, "/srv/widgets", "issue-2", first.Add(time.Minute)))
	require.NoError(t, s.RecordDependencyRead(ctx, "/srv/widgets", "issue-3", first))
	at, found, err := s.DependencyRead(ctx, "/srv/widgets", "issue-2")
	require.NoError(t, err)
	require.True(t, found)
	assert.True(t, at.Equal(first.Add(time.Minute)), "a later read replaces the earlier one: %s", at)

	assert.Error(t, s.RecordDependencyRead(ctx, "", "issue-2", first), "a read names its repository")
	assert.Error(t, s.RecordDependencyRead(ctx, "/srv/widgets", "issue-2", time.Time{}), "a read has a time")
}

func TestOpenMigratesAVersion4StoreToDependencyReads(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v4.db")
	var stmts []string
	for _, m := range migrations[:4] {
		stmts = append(stmts, m.stmts...)
	}
	stmts = append(stmts,
		`INSERT INTO work_items (repo, id, loop, current_node, updated_at) VALUES ('/srv/widgets', 'issue-1', 'pdlc-work-item-loop', 'phase-selection', '2026-01-01T00:00:00Z')`,
		`PRAGMA user_version = 4`)
	rawExec(t, path, stmts...)
	s, err := Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	it, found, err := s.Get(ctx, "/srv/widgets", "issue-1")
	require.NoError(t, err)
	require.True(t, found, "existing items survive the migration")
	assert.Equal(t, "phase-selection", it.CurrentNode)
	require.NoError(t, s.RecordDependencyRead(ctx, "/srv/widgets", "issue-1", time.Now()))
}
