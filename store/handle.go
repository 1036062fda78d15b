package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
)

// Handle is the state database at one path, opened on first need: a
// command that only reads never creates the file, and a long-running
// process writes through one shared connection pool. It is safe for
// concurrent use.
type Handle struct {
	path string

	mu sync.Mutex
	st *Store
}

// NewHandle returns the handle of the database at path ("" = DefaultPath()).
// Nothing is opened until Writable or Reader is called.
func NewHandle(path string) *Handle {
	if path == "" {
		path = DefaultPath()
	}
	return &Handle{path: path}
}

// Path is the database file the handle opens.
func (h *Handle) Path() string { return h.path }

// Writable opens the database read-write (creating and migrating it) on the
// first call and returns the same store after.
func (h *Handle) Writable(ctx context.Context) (*Store, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.st != nil {
		return h.st, nil
	}
	st, err := Open(ctx, h.path)
	if err != nil {
		return nil, fmt.Errorf("open the state store: %w", err)
	}
	h.st = st
	return st, nil
}

// Reader returns a store for one read and the function that releases it:
// the open read-write store when there is one, else the database opened
// read-only, which never creates, migrates or writes the file. It returns a
// nil store when no database exists yet.
func (h *Handle) Reader(ctx context.Context) (*Store, func(), error) {
	h.mu.Lock()
	if h.st != nil {
		st := h.st
		h.mu.Unlock()
		return st, func() {}, nil
	}
	h.mu.Unlock()
	if err := checkLocation(h.path); err != nil {
		return nil, nil, err
	}
	if _, err := os.Stat(h.path); !IsURL(h.path) && errors.Is(err, os.ErrNotExist) {
		return nil, func() {}, nil
	}
	st, err := OpenReadOnly(ctx, h.path)
	if errors.Is(err, ErrNoStore) {
		return nil, func() {}, nil
	}
	if errors.Is(err, ErrOlderSchema) {
		slog.Warn("the state store was written by an earlier the-loop; this read uses the portable records in the repository instead", "err", err)
		return nil, func() {}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("open the state store %s read-only: %w", Redact(h.path), err)
	}
	return st, func() { st.Close() }, nil
}

// Close closes the read-write store if it was opened; the handle can open
// it again.
func (h *Handle) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.st == nil {
		return nil
	}
	err := h.st.Close()
	h.st = nil
	return err
}
