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

// ChangeMark is a short string that changes whenever anything a view of
// the store shows changes: an item saved, an event appended, a session
// started, finished or metered, a takeover requested. Equal marks mean
// nothing changed between the two reads.
func (s *Store) ChangeMark(ctx context.Context) (string, error) {
	var updated string
	var seq, sessions, tokens, ended, stops int64
	err := s.read.QueryRowContext(ctx, `SELECT
		(SELECT coalesce(max(updated_at), '') FROM work_items),
		(SELECT coalesce(max(seq), 0) FROM events),
		(SELECT count(*) FROM sessions),
		(SELECT coalesce(sum(tokens), 0) FROM sessions),
		(SELECT count(*) FROM sessions WHERE ended_at <> ''),
		(SELECT count(*) FROM session_stops)`).Scan(&updated, &seq, &sessions, &tokens, &ended, &stops)
	if err != nil {
		return "", describe(s.path, "read the change mark of", err)
	}
	return fmt.Sprintf("%s:%d:%d:%d:%d:%d", updated, seq, sessions, tokens, ended, stops), nil
}
