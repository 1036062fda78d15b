package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"

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

// Error is a failure of the store file at Path while doing Op. Its message
// names the file, the cause as the file system shows it (a full disk, a
// read-only file system, a lock) and the fix, whether the store was being
// opened or was already open.
type Error struct {
	Path string
	Op   string
	// Cause is what went wrong, in words; Fix what to do about it ("" when
	// the error says it all).
	Cause, Fix string
	Err        error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s store %s", e.Op, e.Path)
	if e.Cause != "" {
		msg += ": " + e.Cause
	}
	if e.Fix != "" {
		msg += "; " + e.Fix
	}
	return msg + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

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

// nearlyFull is the free space below which a write failure is the disk's:
// SQLite grows its -wal and -shm files in steps of tens of kilobytes, so a
// disk with less than this left fails them before it reads as empty.
const nearlyFull = 1 << 20

// describe wraps an error met while opening, reading or writing the file at
// path so the message names the path, the cause and the fix. Where SQLite
// reports only "disk I/O error" or "disk is full", the file system holding
// the file is asked (free space, read-only mount), so a full disk says so
// whether it filled before the store was opened or while it was open.
func describe(path, op string, err error) error {
	if IsURL(path) {
		return describePG(path, op, err)
	}
	e := &Error{Path: path, Op: op, Err: err}
	code := sqliteCode(err)
	disk := diskOf(filepath.Dir(path))
	switch {
	case code == sqlite3.SQLITE_NOTADB || code == sqlite3.SQLITE_CORRUPT:
		e.Cause = "the file is not a valid the-loop SQLite database (corrupt or a different kind of file)"
		e.Fix = "stop the-loop, move the file and its -wal/-shm companions aside, and rerun to start a fresh store (see docs/store.md)"
	case code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED:
		return fmt.Errorf("%s store %s: %w; wait for the other process to finish, or stop it: %w", op, path, ErrLocked, err)
	case code == sqlite3.SQLITE_FULL || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || (isIOErr(code) && disk.known && disk.free < nearlyFull):
		e.Cause, e.Fix = disk.fullCause(filepath.Dir(path)), fmt.Sprintf("free space there, or point --db or %s at a store on another disk", EnvDB)
	case errors.Is(err, syscall.EROFS) || disk.known && disk.readOnly && writeFault(code):
		e.Cause = fmt.Sprintf("the file system holding %s is mounted read-only", filepath.Dir(path))
		e.Fix = fmt.Sprintf("remount it read-write, or point --db or %s at a store on a writable disk", EnvDB)
	case code == sqlite3.SQLITE_READONLY || code == sqlite3.SQLITE_PERM || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM):
		e.Cause = "the file or its directory is read-only for this user"
		e.Fix = fmt.Sprintf("make both writable, or point --db or %s at another file", EnvDB)
	case code == sqlite3.SQLITE_CANTOPEN:
		e.Cause = "cannot open the file"
		e.Fix = fmt.Sprintf("check that its directory exists and is readable and writable by this user, or point --db or %s at another file", EnvDB)
	case isIOErr(code):
		e.Cause = "the disk failed a read or a write"
		e.Fix = "check the disk and its file system (the kernel log names the device), then retry"
	}
	return e
}

func isIOErr(code int) bool { return code == sqlite3.SQLITE_IOERR }

// writeFault reports the codes a write to a read-only file system fails
// with.
func writeFault(code int) bool {
	switch code {
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM:
		return true
	}
	return false
}

// diskFault reports an operating-system error that is the disk's: it is
// full or mounted read-only.
func diskFault(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EDQUOT)
}

// disk is what the file system holding a directory says about itself.
type disk struct {
	known    bool
	free     uint64 // bytes available to this user
	readOnly bool
}

func (d disk) fullCause(dir string) string {
	if !d.known {
		return fmt.Sprintf("the disk holding %s is full", dir)
	}
	return fmt.Sprintf("the disk holding %s is full (%s free)", dir, bytesText(d.free))
}

// diskOf asks the file system holding dir (or its nearest existing
// parent) for its free space and whether it is mounted read-only.
func diskOf(dir string) disk {
	for {
		if d, ok := statDisk(dir); ok {
			return d
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return disk{}
		}
		dir = parent
	}
}

func bytesText(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
