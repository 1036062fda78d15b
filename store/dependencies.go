package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// dependencyReadsSchema is migration 5: when the poller last read each work
// item's dependency graph. What it read is kept in the item's state (the
// engine holds on it); this is only when, so `check` can say how old that
// is without the state changing every cycle.
var dependencyReadsSchema = []string{
	`CREATE TABLE dependency_reads (
		repo      TEXT NOT NULL CHECK (repo <> ''),
		work_item TEXT NOT NULL CHECK (work_item <> ''),
		read_at   TEXT NOT NULL CHECK (read_at <> ''),
		PRIMARY KEY (repo, work_item)
	) STRICT`,
}

// RecordDependencyRead notes that the poller read the dependency graph of
// repo's work item id at at.
func (s *Store) RecordDependencyRead(ctx context.Context, repo, id string, at time.Time) error {
	if err := checkKey(repo, id); err != nil {
		return err
	}
	if at.IsZero() {
		return fmt.Errorf("record the dependency read of %s: no time given", id)
	}
	_, err := s.write.ExecContext(ctx, `INSERT INTO dependency_reads (repo, work_item, read_at) VALUES (?, ?, ?)
		ON CONFLICT (repo, work_item) DO UPDATE SET read_at = excluded.read_at`, repo, id, stamp(at))
	if err != nil {
		return describe(s.path, "record a dependency read in", err)
	}
	return nil
}

// DependencyRead returns when the poller last read the dependency graph of
// repo's work item id; found is false when it never did (in this store).
func (s *Store) DependencyRead(ctx context.Context, repo, id string) (at time.Time, found bool, err error) {
	var raw string
	err = s.read.QueryRowContext(ctx, `SELECT read_at FROM dependency_reads WHERE repo = ? AND work_item = ?`, repo, id).Scan(&raw)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return time.Time{}, false, nil
	case err != nil:
		return time.Time{}, false, describe(s.path, "read a dependency read from", err)
	}
	at, err = time.Parse(sessionTime, raw)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("dependency read of %s in %s: %q is not a time: %w", id, s.path, raw, err)
	}
	return at, true, nil
}
