package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpenCreatesDirAndFilePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	s, err := Open(context.Background(), filepath.Join(dir, "the-loop.db"))
	require.NoError(t, err)
	defer s.Close()

	di, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), di.Mode().Perm(), "parent dir mode")
	fi, err := os.Stat(s.Path())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "db file mode")
	assert.True(t, filepath.IsAbs(s.Path()))
}

func TestOpenPragmasOnEveryConnection(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)

	var mode string
	require.NoError(t, s.write.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode))
	assert.Equal(t, "wal", mode)

	check := func(t *testing.T, c *sql.Conn, wantQueryOnly int) {
		var fk, sync, busy, qo int
		require.NoError(t, c.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&fk))
		require.NoError(t, c.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&sync))
		require.NoError(t, c.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&busy))
		require.NoError(t, c.QueryRowContext(ctx, `PRAGMA query_only`).Scan(&qo))
		assert.Equal(t, 1, fk, "foreign_keys")
		assert.Equal(t, 10000, busy, "busy_timeout")
		assert.Equal(t, wantQueryOnly, qo, "query_only")
		if wantQueryOnly == 0 {
			assert.Equal(t, 2, sync, "synchronous=FULL")
		}
	}
	wc, err := s.write.Conn(ctx)
	require.NoError(t, err)
	check(t, wc, 0)
	require.NoError(t, wc.Close())

	// Hold several read connections at once so each is a distinct one.
	var conns []*sql.Conn
	for range s.opts.readConns {
		c, err := s.read.Conn(ctx)
		require.NoError(t, err)
		conns = append(conns, c)
	}
	for _, c := range conns {
		check(t, c, 1)
		require.NoError(t, c.Close())
	}
}

func TestOpenForeignKeysEnforced(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	_, err := s.write.ExecContext(ctx, `INSERT INTO node_states (repo, work_item, node) VALUES ('r', 'missing', 'n')`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "FOREIGN KEY")
}

func TestOpenMigrationsIdempotent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, path)
	require.NoError(t, err)
	require.NoError(t, s.Update(ctx, "r", "issue-1", increment))
	require.NoError(t, s.Close())

	for range 3 {
		s, err = Open(ctx, path)
		require.NoError(t, err)
		var v int
		require.NoError(t, s.read.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v))
		assert.Equal(t, SchemaVersion(), v)
		assert.Equal(t, 1, counterOf(t, s, "r", "issue-1"), "data survives reopen")
		require.NoError(t, s.Close())
	}
}

func TestMigrationsListIsOrdered(t *testing.T) {
	for i, m := range migrations {
		assert.Equal(t, i+1, m.version, "migration %d (%s) out of order", i, m.name)
		assert.NotEmpty(t, m.stmts)
	}
}

// rawExec runs statements on path with a plain connection, outside the store.
func rawExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open(driverName, path)
	require.NoError(t, err)
	defer db.Close()
	for _, q := range stmts {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, path)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	rawExec(t, path, `PRAGMA user_version = 99`)

	for name, open := range map[string]func(context.Context, string) (*Store, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		t.Run(name, func(t *testing.T) {
			_, err := open(ctx, path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), path)
			assert.Contains(t, err.Error(), "schema version 99")
			assert.Contains(t, err.Error(), fmt.Sprintf("version %d,", SchemaVersion()))
			assert.Contains(t, err.Error(), "upgrade the-loop")
		})
	}
}

func TestOpenRefusesForeignDatabase(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		stmts []string
		want  string
	}{
		{"other app id", []string{`PRAGMA application_id = 42`}, "not a the-loop database"},
		{"unmarked tables", []string{`CREATE TABLE photos (id INTEGER)`}, "did not create"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "other.db")
			rawExec(t, path, tt.stmts...)
			_, err := Open(ctx, path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), path)
			// Nothing of ours was added.
			db, err := sql.Open(driverName, path)
			require.NoError(t, err)
			defer db.Close()
			var n int
			require.NoError(t, db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'work_items'`).Scan(&n))
			assert.Zero(t, n)
		})
	}
}

func TestOpenEmptyPath(t *testing.T) {
	for name, open := range map[string]func(context.Context, string) (*Store, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		t.Run(name, func(t *testing.T) {
			_, err := open(context.Background(), " ")
			require.Error(t, err)
			assert.Contains(t, err.Error(), EnvDB)
			assert.Contains(t, err.Error(), "--db")
		})
	}
}

func TestOpenDirectoryPath(t *testing.T) {
	dir := t.TempDir()
	for name, open := range map[string]func(context.Context, string) (*Store, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		t.Run(name, func(t *testing.T) {
			_, err := open(context.Background(), dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "is a directory")
			assert.Contains(t, err.Error(), dir)
		})
	}
}

func TestOpenCorruptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "corrupt.db")
	junk := make([]byte, 8192)
	_, err := rand.Read(junk)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, junk, 0o600))

	for name, open := range map[string]func(context.Context, string) (*Store, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		t.Run(name, func(t *testing.T) {
			_, err := open(context.Background(), path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), path)
			assert.Contains(t, err.Error(), "not a valid the-loop SQLite database")
			assert.Contains(t, err.Error(), "docs/store.md")
		})
	}
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, junk, after, "a corrupt file is never rewritten")
}

func TestOpenReadOnlyMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nowhere")
	path := filepath.Join(dir, "the-loop.db")
	_, err := OpenReadOnly(context.Background(), path)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrNoStore)
	assert.Contains(t, err.Error(), path)
	_, statErr := os.Stat(dir)
	assert.True(t, errors.Is(statErr, os.ErrNotExist), "OpenReadOnly created %s", dir)
}

func TestOpenReadOnlyEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	_, err := OpenReadOnly(context.Background(), path)
	assert.ErrorIs(t, err, ErrNoStore)
}

func TestOpenReadOnlyRefusesWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, path)
	require.NoError(t, err)
	require.NoError(t, s.Update(ctx, "r", "issue-1", increment))
	require.NoError(t, s.Close())
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	ro, err := OpenReadOnly(ctx, path)
	require.NoError(t, err)
	defer ro.Close()

	// Reads work.
	assert.Equal(t, 1, counterOf(t, ro, "r", "issue-1"))
	items, err := ro.List(ctx, "r")
	require.NoError(t, err)
	assert.Len(t, items, 1)

	// The API refuses writes, and fn is never called.
	called := false
	err = ro.Update(ctx, "r", "issue-1", func(cur *WorkItem) (*WorkItem, []Event, error) {
		called = true
		return increment(cur)
	})
	assert.ErrorIs(t, err, ErrReadOnly)
	assert.False(t, called)
	assert.ErrorIs(t, ro.AppendEvents(ctx, "r", "issue-1", []Event{{Name: "x"}}), ErrReadOnly)

	// So does SQLite itself, on the raw connection.
	_, err = ro.read.ExecContext(ctx, `INSERT INTO events (repo, work_item, at, name) VALUES ('r','i','t','n')`)
	assert.Error(t, err)
	_, err = ro.read.ExecContext(ctx, `PRAGMA user_version = 7`)
	assert.Error(t, err)

	require.NoError(t, ro.Close())
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after, "read-only open changed the file")
}

func TestOpenReadOnlySeesLiveWrites(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	require.NoError(t, s.Update(ctx, "r", "issue-1", increment))
	ro, err := OpenReadOnly(ctx, s.Path())
	require.NoError(t, err)
	defer ro.Close()
	require.NoError(t, s.Update(ctx, "r", "issue-1", increment))
	assert.Equal(t, 2, counterOf(t, ro, "r", "issue-1"))
}

func TestIntegrityCheck(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	require.NoError(t, s.Update(ctx, "r", "issue-1", increment))
	assert.NoError(t, s.IntegrityCheck(ctx))
}

// corruptPages writes a store with some data, closes it, and overwrites
// every page except the header and the schema's pages with garbage.
func corruptPages(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "damaged.db")
	s, err := Open(ctx, path)
	require.NoError(t, err)
	for i := range 50 {
		require.NoError(t, s.Update(ctx, "r", fmt.Sprintf("issue-%d", i), increment))
	}
	schemaPages := map[int64]bool{1: true}
	rows, err := s.read.QueryContext(ctx, `SELECT pageno FROM dbstat WHERE name = 'sqlite_schema'`)
	require.NoError(t, err)
	for rows.Next() {
		var p int64
		require.NoError(t, rows.Scan(&p))
		schemaPages[p] = true
	}
	require.NoError(t, rows.Err())
	require.NoError(t, rows.Close())
	require.NoError(t, s.Close())
	fi, err := os.Stat(path)
	require.NoError(t, err)
	const page = 4096
	require.Greater(t, fi.Size(), int64(len(schemaPages)*page), "store should span several pages")
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	require.NoError(t, err)
	junk := bytes.Repeat([]byte{0xA5}, page)
	for p := int64(1); p*page < fi.Size(); p++ {
		if !schemaPages[p+1] {
			_, err = f.WriteAt(junk, p*page)
			require.NoError(t, err)
		}
	}
	require.NoError(t, f.Close())
	return path
}

func TestIntegrityCheckFindsDamage(t *testing.T) {
	ctx := context.Background()
	path := corruptPages(t)
	s, err := Open(ctx, path) // clean shutdown: no quick check on open
	require.NoError(t, err)
	defer s.Close()
	err = s.IntegrityCheck(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "integrity_check")
	assert.Contains(t, err.Error(), "docs/store.md")
}

func TestOpenAfterUncleanShutdownChecksFile(t *testing.T) {
	path := corruptPages(t)
	// A leftover -wal file is what an unclean shutdown leaves behind.
	require.NoError(t, os.WriteFile(path+"-wal", nil, 0o600))
	_, err := Open(context.Background(), path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "docs/store.md")
}

// A location that is a URL of another database is refused, its password
// hidden, instead of being taken for a SQLite file's path.
func TestOpenRefusesAURLOfAnotherKind(t *testing.T) {
	ctx := context.Background()
	for _, loc := range []string{"mysql://loop:hunter2@db/loop", "sqlite://state.db"} {
		_, err := Open(ctx, loc)
		require.ErrorContains(t, err, "not a PostgreSQL URL; give postgres://USER@HOST:PORT/DATABASE, or a SQLite file's path")
		assert.NotContains(t, err.Error(), "hunter2")
		_, err = OpenReadOnly(ctx, loc)
		require.ErrorContains(t, err, "not a PostgreSQL URL")
		_, _, err = NewHandle(loc).Reader(ctx)
		require.ErrorContains(t, err, "not a PostgreSQL URL")
	}
	_, err := Open(ctx, filepath.Join(t.TempDir(), "a.b://c", "state.db"))
	require.NoError(t, err, "a path that merely holds :// is a path")
}
