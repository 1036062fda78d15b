package store

import (
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrNoStore reports that a read-only open found no database file (or only an
// empty, never-initialised one): nothing has been recorded yet.
var ErrNoStore = errors.New("no state database exists yet")

// ErrOlderSchema reports that a read-only open found a store an earlier
// release wrote: a reader never migrates, so it reads as if there were none.
var ErrOlderSchema = errors.New("the next the-loop command that records state migrates it")

// ErrReadOnly reports a write attempted through a store opened with
// OpenReadOnly.
var ErrReadOnly = errors.New("store is open read-only")

// ErrLocked reports that another connection held the write lock for longer
// than the store is willing to wait.
var ErrLocked = errors.New("store is locked by another process (is another the-loop process stuck writing to it?)")

// sqliteCode returns the primary SQLite result code carried by err, or 0.
func sqliteCode(err error) int {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code() & 0xff
	}
	return 0
}

// isBusy reports whether err is SQLITE_BUSY or SQLITE_LOCKED.
func isBusy(err error) bool {
	c := sqliteCode(err)
	return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
}

// describe wraps an error met while opening or reading the file at path so
// the message names the path and, for the common failure classes, the fix.
func describe(path, op string, err error) error {
	if IsURL(path) {
		return describePG(path, op, err)
	}
	switch sqliteCode(err) {
	case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
		return fmt.Errorf("%s store %s: the file is not a valid the-loop SQLite database (corrupt or a different kind of file); "+
			"stop the-loop, move the file and its -wal/-shm companions aside, and rerun to start a fresh store (see docs/store.md): %w",
			op, path, err)
	case sqlite3.SQLITE_CANTOPEN:
		return fmt.Errorf("%s store %s: cannot open the file; check that its directory exists and is readable and writable by this user, or point --db or %s at another file: %w",
			op, path, EnvDB, err)
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM:
		return fmt.Errorf("%s store %s: the file or its directory is read-only for this user; make both writable, or point --db or %s at another file: %w",
			op, path, EnvDB, err)
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return fmt.Errorf("%s store %s: %w: %w", op, path, ErrLocked, err)
	case sqlite3.SQLITE_FULL:
		return fmt.Errorf("%s store %s: the disk or the database is full; free space and retry: %w", op, path, err)
	}
	return fmt.Errorf("%s store %s: %w", op, path, err)
}
