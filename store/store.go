// Package store is the-loop's durable state: one SQLite file (through the
// pure-Go modernc.org/sqlite driver) holding every work item's state blob,
// its per-node rows and an append-only event log.
//
// Every connection runs in WAL mode with synchronous=FULL, a busy timeout
// and foreign keys on. Writes go through a single pooled connection and
// begin with BEGIN IMMEDIATE, so concurrent updaters in one process queue in
// Go and updaters in other processes wait on SQLite's busy handler; reads use
// a separate pool and never block the writer. Update commits before it
// returns, so state is on disk before any side effect that depends on it.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// driverName is the database/sql name modernc.org/sqlite registers.
const driverName = "sqlite"

// Store is an open state database. It is safe for concurrent use.
type Store struct {
	path     string
	write    *sql.DB // single connection, BEGIN IMMEDIATE; nil when read-only
	read     *sql.DB
	readOnly bool
	opts     options
	now      func() time.Time

	pageSaves atomic.Int64 // counts saved pages between prunes
	pages     pageWriter   // writes the conditional-request cache

	stateReads atomic.Int64 // the queries that read items' states

	stateOnce sync.Once
	stateStmt *sql.Stmt // prepared once: the hot read of a server
	stateErr  error

	pg     *pgBackend // nil: SQLite
	wakes  wakeHub    // the wakes' listeners and their feed
	fences fences     // the leases this process works items under
	// writeWait, when set, observes each write's wait for the write lock
	// (set by the Handle before the store is shared).
	writeWait func(time.Duration)
}

// options are the tunables; only tests and benchmarks change them.
type options struct {
	busyTimeout   time.Duration // SQLite busy_timeout per lock wait
	beginAttempts int           // BEGIN IMMEDIATE attempts before ErrLocked
	synchronous   string        // PRAGMA synchronous value
	readConns     int           // read pool size
}

func defaultOptions() options {
	return options{
		busyTimeout:   10 * time.Second,
		beginAttempts: 3,
		synchronous:   "FULL",
		readConns:     4,
	}
}

// Open opens (creating when missing) the store at path and brings its
// schema up to date. It creates the parent directory (0700) and the file
// (0600), enables WAL, synchronous=FULL, busy_timeout and foreign keys on
// every connection, and applies pending migrations in one transaction. A
// file with a newer schema, another application's database, or a corrupt
// file is refused with an error naming the path, and is left untouched: its
// header is read over a read-only connection before any write connection
// (which would switch the file to WAL) is opened.
//
// A PostgreSQL URL (postgres://… or postgresql://…, see IsURL) opens that
// database instead, with the same schema history and the same behaviour.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := checkLocation(path); err != nil {
		return nil, err
	}
	if IsURL(path) {
		return openPostgres(ctx, path, false, defaultOptions())
	}
	return openStore(ctx, path, defaultOptions())
}

func openStore(ctx context.Context, path string, o options) (*Store, error) {
	abs, err := absPath(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		if diskFault(err) {
			return nil, describe(abs, "create", err)
		}
		return nil, fmt.Errorf("create store directory %s: %w; point --db or %s at a writable location", filepath.Dir(abs), err, EnvDB)
	}
	if err := createFile(abs); err != nil {
		return nil, err
	}
	hadWAL := fileExists(abs + "-wal")
	if err := vetBeforeWriting(ctx, abs, o); err != nil {
		return nil, err
	}

	s := &Store{path: abs, opts: o, now: time.Now}
	s.write, err = sql.Open(driverName, dsn(abs, writePragmas(o), "_txlock=immediate"))
	if err != nil {
		return nil, describe(abs, "open", err)
	}
	s.write.SetMaxOpenConns(1)
	s.write.SetMaxIdleConns(1)
	s.write.SetConnMaxLifetime(0)
	s.write.SetConnMaxIdleTime(0)
	if err := s.write.PingContext(ctx); err != nil {
		_ = s.write.Close()
		return nil, describe(abs, "open", err)
	}
	if err := migrate(ctx, s.write, abs); err != nil {
		_ = s.write.Close()
		return nil, err
	}
	s.read, err = openReadPool(ctx, dsn(abs, readPragmas(o)), o.readConns, abs)
	if err != nil {
		_ = s.write.Close()
		return nil, err
	}
	if hadWAL {
		// A -wal file left before we opened means an unclean shutdown or a
		// concurrent user; a quick check is cheap at the-loop's sizes.
		if err := s.quickCheck(ctx); err != nil {
			_ = s.Close()
			return nil, err
		}
	}
	return s, nil
}

// OpenReadOnly opens an existing store for reading only, for commands such
// as check. It never creates, migrates or writes the file: connections use
// mode=ro and query_only. A missing (or empty) file yields an error wrapping
// ErrNoStore; a schema other than SchemaVersion is refused.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	if err := checkLocation(path); err != nil {
		return nil, err
	}
	if IsURL(path) {
		return openPostgres(ctx, path, true, defaultOptions())
	}
	return openReadOnly(ctx, path, defaultOptions())
}

func openReadOnly(ctx context.Context, path string, o options) (*Store, error) {
	abs, err := absPath(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("store %s: %w (nothing has been recorded yet; it is created on the first write)", abs, ErrNoStore)
	case err != nil:
		return nil, fmt.Errorf("store %s: %w", abs, err)
	case fi.IsDir():
		return nil, fmt.Errorf("store %s is a directory; --db and %s name the database file", abs, EnvDB)
	case fi.Size() == 0:
		return nil, fmt.Errorf("store %s is empty: %w", abs, ErrNoStore)
	}
	s := &Store{path: abs, readOnly: true, opts: o, now: time.Now}
	s.read, err = openReadPool(ctx, dsn(abs, readPragmas(o), "mode=ro"), o.readConns, abs)
	if err != nil {
		return nil, err
	}
	if err := vetReadOnly(ctx, s.read, abs); err != nil {
		_ = s.read.Close()
		return nil, err
	}
	return s, nil
}

// vetBeforeWriting reads the header of an existing, non-empty file through a
// read-only connection and refuses it before any write connection exists:
// opening a write connection already switches the file to WAL, which must
// never happen to a database that is not ours.
func vetBeforeWriting(ctx context.Context, path string, o options) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("store %s: %w", path, err)
	}
	if fi.Size() == 0 {
		return nil
	}
	probe, err := openReadPool(ctx, dsn(path, readPragmas(o), "mode=ro"), 1, path)
	if err != nil {
		return err
	}
	defer func() { _ = probe.Close() }()
	h, err := readHeader(ctx, probe)
	if err != nil {
		return describe(path, "open", err)
	}
	return h.vet(path)
}

func openReadPool(ctx context.Context, name string, conns int, path string) (*sql.DB, error) {
	db, err := sql.Open(driverName, name)
	if err != nil {
		return nil, describe(path, "open", err)
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxLifetime(0)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, describe(path, "open", err)
	}
	return db, nil
}

// Close closes both connection pools. The last connection to close
// checkpoints the WAL into the main file.
func (s *Store) Close() error {
	s.wakes.close()
	s.pages.close()
	var errs []error
	if s.stateStmt != nil {
		errs = append(errs, s.stateStmt.Close())
	}
	if s.read != nil {
		errs = append(errs, s.read.Close())
	}
	if s.write != nil && s.write != s.read {
		errs = append(errs, s.write.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close store %s: %w", s.path, err)
	}
	return nil
}

// Path returns the absolute path of the database file, or the URL of a
// PostgreSQL store with its password redacted.
func (s *Store) Path() string { return s.path }

// Postgres reports whether the store is a PostgreSQL database.
func (s *Store) Postgres() bool { return s.pg != nil }

// IntegrityCheck runs PRAGMA integrity_check and returns nil only when
// SQLite reports "ok"; otherwise the error lists the first problems found.
func (s *Store) IntegrityCheck(ctx context.Context) error {
	return s.check(ctx, "integrity_check")
}

func (s *Store) quickCheck(ctx context.Context) error { return s.check(ctx, "quick_check") }

func (s *Store) check(ctx context.Context, pragma string) error {
	if s.pg != nil {
		// PostgreSQL checks its own pages; this only proves it answers.
		if err := s.read.PingContext(ctx); err != nil {
			return describe(s.path, pragma, err)
		}
		return nil
	}
	rows, err := s.read.QueryContext(ctx, "PRAGMA "+pragma+"(20)")
	if err != nil {
		return describe(s.path, pragma, err)
	}
	defer func() { _ = rows.Close() }()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return describe(s.path, pragma, err)
		}
		problems = append(problems, line)
	}
	if err := rows.Err(); err != nil {
		return describe(s.path, pragma, err)
	}
	if len(problems) == 1 && problems[0] == "ok" {
		return nil
	}
	return fmt.Errorf("store %s failed %s: %s; stop the-loop, move the file and its -wal/-shm companions aside, and rerun to start a fresh store (see docs/store.md)",
		s.path, pragma, strings.Join(problems, "; "))
}

// beginWrite starts a BEGIN IMMEDIATE transaction on the write connection.
// The busy handler waits up to busyTimeout for another process's write lock;
// a BUSY at BEGIN (before any caller code ran) is retried beginAttempts
// times, then reported as ErrLocked.
func (s *Store) beginWrite(ctx context.Context, op string) (*sql.Tx, error) {
	if s.readOnly {
		return nil, fmt.Errorf("%s: store %s: %w (opened with OpenReadOnly)", op, s.path, ErrReadOnly)
	}
	start := time.Now()
	for attempt := 1; ; attempt++ {
		tx, err := s.write.BeginTx(ctx, nil)
		if err == nil {
			if s.writeWait != nil {
				s.writeWait(time.Since(start))
			}
			return tx, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: store %s: %w", op, s.path, ctx.Err())
		}
		if !isBusy(err) {
			return nil, describe(s.path, op, err)
		}
		if attempt >= s.opts.beginAttempts {
			return nil, fmt.Errorf("%s: store %s: waited %d×%s for the write lock: %w: %w",
				op, s.path, attempt, s.opts.busyTimeout, ErrLocked, err)
		}
		slog.Warn("store write lock busy; waiting again", "path", s.path, "op", op, "attempt", attempt)
	}
}

func absPath(path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", fmt.Errorf("store path is empty: set %s or pass --db with the database file path", EnvDB)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("store path %q: %w", path, err)
	}
	return abs, nil
}

// createFile creates path with mode 0600 when it is missing, so SQLite (and
// its -wal/-shm files, which copy the main file's mode) never widen access.
func createFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		fi, serr := os.Stat(path)
		if serr == nil && fi.IsDir() {
			return fmt.Errorf("store %s is a directory; --db and %s name the database file", path, EnvDB)
		}
		return nil
	}
	if err != nil {
		if diskFault(err) {
			return describe(path, "create", err)
		}
		return fmt.Errorf("create store %s: %w; point --db or %s at a writable location", path, err, EnvDB)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("create store %s: %w", path, err)
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// writePragmas are applied to every write connection. modernc runs
// busy_timeout first, so the journal_mode change can wait for a lock.
func writePragmas(o options) []string {
	return []string{
		"busy_timeout(" + strconv.FormatInt(o.busyTimeout.Milliseconds(), 10) + ")",
		"journal_mode(WAL)",
		"synchronous(" + o.synchronous + ")",
		"foreign_keys(1)",
	}
}

// readPragmas are applied to every read connection; query_only makes any
// write on the read pool fail.
func readPragmas(o options) []string {
	return []string{
		"busy_timeout(" + strconv.FormatInt(o.busyTimeout.Milliseconds(), 10) + ")",
		"foreign_keys(1)",
		"query_only(1)",
	}
}

// dsn builds a file: URI for modernc.org/sqlite. The path is escaped so a
// '?', '#' or '%' in it cannot leak into the query; the pragmas are fixed
// strings built in code, never taken from configuration.
func dsn(path string, pragmas []string, extra ...string) string {
	params := make([]string, 0, len(pragmas)+len(extra))
	for _, p := range pragmas {
		params = append(params, "_pragma="+p)
	}
	params = append(params, extra...)
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	return u.String() + "?" + strings.Join(params, "&")
}
