package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ListAll returns every item the store holds, in every repository, sorted
// by repository then id, without node rows (the state blob carries them),
// from one read snapshot.
func (s *Store) ListAll(ctx context.Context) ([]WorkItem, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, describe(s.path, "list", err)
	}
	defer func() { _ = tx.Rollback() }()
	rows, err := tx.QueryContext(ctx, `SELECT repo, id, loop, current_node, state, updated_at FROM work_items ORDER BY repo, id`)
	if err != nil {
		return nil, describe(s.path, "list", err)
	}
	var items []WorkItem
	for rows.Next() {
		var it WorkItem
		var updated string
		if err := rows.Scan(&it.Repo, &it.ID, &it.Loop, &it.CurrentNode, &it.State, &updated); err != nil {
			_ = rows.Close()
			return nil, fmt.Errorf("list every work item in %s: %w", s.path, err)
		}
		if it.UpdatedAt, err = time.Parse(time.RFC3339Nano, updated); err != nil {
			_ = rows.Close()
			return nil, fmt.Errorf("list every work item in %s: %s %s updated_at %q: %w", s.path, it.Repo, it.ID, updated, err)
		}
		items = append(items, it)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, fmt.Errorf("list every work item in %s: %w", s.path, err)
	}
	return items, nil
}
