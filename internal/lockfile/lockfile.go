// Package lockfile takes exclusive kernel file locks (flock) that die with
// their holder: the kernel releases the lock when the process exits, however
// it exits (kill -9 included), so a crashed holder never leaves a stale lock
// to clean up. A lock file is never renamed or replaced while held, because
// a lock belongs to the file's inode, not to its name.
package lockfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// ErrHeld reports that another holder has the lock.
var ErrHeld = errors.New("the lock is held by another process")

// pollEvery is how often Acquire retries a held lock.
const pollEvery = 10 * time.Millisecond

// Lock is a held exclusive lock on one file.
type Lock struct {
	f    *os.File
	path string
}

// TryLock takes the exclusive lock on path (creating the file, mode 0600,
// and its directory when missing) without waiting. It returns an error
// wrapping ErrHeld when another process, or another Lock in this process,
// holds it.
func TryLock(path string) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("lock %s: create directory: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := tryLock(f); err != nil {
		_ = f.Close()
		if errors.Is(err, ErrHeld) {
			return nil, fmt.Errorf("lock %s: %w", path, ErrHeld)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f: f, path: path}, nil
}

// Acquire waits for the exclusive lock on path until ctx ends.
func Acquire(ctx context.Context, path string) (*Lock, error) {
	for {
		l, err := TryLock(path)
		if err == nil || !errors.Is(err, ErrHeld) {
			return l, err
		}
		t := time.NewTimer(pollEvery)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
		case <-t.C:
		}
	}
}

// Path is the lock file's path.
func (l *Lock) Path() string { return l.path }

// WriteInfo replaces the lock file's content with data in place (the file
// is truncated and rewritten, never renamed, so the lock stays on it).
// Others read it with ReadInfo to say who holds the lock.
func (l *Lock) WriteInfo(data []byte) error {
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("lock %s: write holder: %w", l.path, err)
	}
	if _, err := l.f.WriteAt(data, 0); err != nil {
		return fmt.Errorf("lock %s: write holder: %w", l.path, err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("lock %s: write holder: %w", l.path, err)
	}
	return nil
}

// Release drops the lock and closes the file. The file itself stays, so a
// waiting process keeps locking the same inode.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if err != nil {
		return fmt.Errorf("unlock %s: %w", l.path, err)
	}
	return nil
}

// ReadInfo returns what the holder wrote with WriteInfo (at most 4 KiB).
func ReadInfo(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	return io.ReadAll(io.LimitReader(f, 4<<10))
}
