package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAReaderOfAnOlderStoreReadsNothingAndLeavesItUntouched: a read-only
// command (check) over a store an earlier release wrote neither fails nor
// migrates it: it reads as if no store existed (the portable records), and
// the file keeps its schema for the next command that writes.
func TestAReaderOfAnOlderStoreReadsNothingAndLeavesItUntouched(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v2.db")
	var stmts []string
	for _, m := range migrations[:2] {
		stmts = append(stmts, m.stmts...)
	}
	rawExec(t, path, append(stmts, `PRAGMA user_version = 2`)...)

	_, err := OpenReadOnly(ctx, path)
	require.ErrorIs(t, err, ErrOlderSchema)
	assert.ErrorContains(t, err, "schema version 2 is older than version")

	st, release, err := NewHandle(path).Reader(ctx)
	require.NoError(t, err)
	defer release()
	assert.Nil(t, st, "an older store reads as no store")

	db, err := sql.Open(driverName, path)
	require.NoError(t, err)
	defer db.Close()
	var v int
	require.NoError(t, db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v))
	assert.Equal(t, 2, v, "a reader never migrates")

	s, err := Open(ctx, path)
	require.NoError(t, err, "the next writer migrates it")
	require.NoError(t, s.Close())
}
