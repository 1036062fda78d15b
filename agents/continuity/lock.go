package continuity

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/the-loop/the-loop/internal/atomicfile"
	"github.com/the-loop/the-loop/internal/lockfile"
)

// lockName is the continuity lock file, kept in the checkout's git
// directory so it is never a file git could stage.
const lockName = "the-loop-continuity.lock"

// lockWait bounds the wait for another process's continuity call.
const lockWait = 30 * time.Second

// commitMarker, in the continuity directory, says that the three pending
// files of a write are complete and must replace the live ones.
const commitMarker = ".commit"

// setFiles are the three files of a set, in write order.
var setFiles = []string{NotesFile, GraphFile, DeathPointFile}

func pendingName(name string) string { return "." + name + ".next" }

func (s *Set) lockPath() string {
	if s.gitDir != "" {
		return filepath.Join(s.gitDir, lockName)
	}
	return filepath.Join(s.Root, HandoffDir, "continuity.lock")
}

// locked runs fn holding the repository's continuity lock, a kernel file
// lock shared by every process (CLI, MCP server, hooks) and released when
// its holder dies. Before fn runs, a write that a dead holder left part-way
// is finished or undone, so fn always sees a whole set.
func locked[T any](s *Set, fn func() (T, error)) (T, error) {
	var zero T
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	l, err := lockfile.Acquire(ctx, s.lockPath())
	if errors.Is(err, context.DeadlineExceeded) {
		return zero, fmt.Errorf("continuity: another process has held the continuity lock %s for %s; is a the-loop continuity command stuck? %w", s.lockPath(), lockWait, err)
	}
	if err != nil {
		return zero, fmt.Errorf("continuity: %w", err)
	}
	defer func() { _ = l.Release() }()
	if err := s.finishWrite(); err != nil {
		return zero, err
	}
	return fn()
}

func (s *Set) step(name string) {
	if s.afterWriteStep != nil {
		s.afterWriteStep(name)
	}
}

// writeSet replaces notes, graph and death point as one step. Each file is
// first written whole beside the live one (".NAME.next"); then a commit
// marker is written; then the three are renamed into place and the marker
// removed. A crash before the marker leaves the old set (the pending files
// are dropped by the next call); a crash after it is finished by the next
// call. Either way every reader sees whole revisions that agree.
func (s *Set) writeSet(n Notes, g TaskGraph, dp DeathPoint) error {
	dir := s.Dir()
	data := map[string][]byte{NotesFile: n.render(), GraphFile: g.render(), DeathPointFile: dp.render()}
	for _, name := range setFiles {
		if err := atomicfile.Write(filepath.Join(dir, pendingName(name)), data[name], 0o644); err != nil {
			s.dropPending()
			return fmt.Errorf("continuity: failed to write %s (the set is unchanged): %w", name, err)
		}
		s.step("pending " + name)
	}
	if err := atomicfile.Write(filepath.Join(dir, commitMarker), []byte(fmt.Sprintf("revision %d\n", dp.Revision)), 0o644); err != nil {
		s.dropPending()
		return fmt.Errorf("continuity: failed to commit the update (the set is unchanged): %w", err)
	}
	s.step("commit")
	return s.finishWrite()
}

// finishWrite completes or undoes a write left part-way, and removes the
// temporary files a killed writer leaves behind. It runs under the lock.
func (s *Set) finishWrite() error {
	dir := s.Dir()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("continuity: read %s: %w", s.rel(dir), err)
	}
	committed := false
	for _, e := range entries {
		committed = committed || e.Name() == commitMarker
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".tmp-") {
			_ = os.Remove(filepath.Join(dir, e.Name())) // a write killed before its rename
		}
	}
	if !committed {
		s.dropPending()
		return nil
	}
	for _, name := range setFiles {
		pending := filepath.Join(dir, pendingName(name))
		if _, err := os.Stat(pending); err != nil {
			continue // already installed
		}
		if err := os.Rename(pending, filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("continuity: finish the interrupted write of %s: %w", name, err)
		}
		s.step("installed " + name)
	}
	atomicfile.SyncDir(dir)
	if err := os.Remove(filepath.Join(dir, commitMarker)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("continuity: finish the interrupted write: %w", err)
	}
	atomicfile.SyncDir(dir)
	return nil
}

// dropPending removes pending files of a write that never committed.
func (s *Set) dropPending() {
	for _, name := range setFiles {
		_ = os.Remove(filepath.Join(s.Dir(), pendingName(name)))
	}
}
