package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// Event is one entry of a work item's append-only event log.
type Event struct {
	// Seq is the log position, set by the store; it grows with every append.
	Seq int64
	// Repo and WorkItem identify the item; the store fills them in.
	Repo     string
	WorkItem string
	// At is an RFC 3339 timestamp; the store sets it when empty.
	At string
	// Name says what happened, e.g. "node.entered"; required.
	Name string
	// Node is the node the event concerns, if any.
	Node string
	// Data is an optional JSON payload.
	Data json.RawMessage
}

// AppendEvents appends evs to the log of (repo, id) in one transaction. On
// success each event's Seq (and At when empty) is filled in.
func (s *Store) AppendEvents(ctx context.Context, repo, id string, evs []Event) error {
	if err := checkKey(repo, id); err != nil {
		return err
	}
	if len(evs) == 0 {
		return nil
	}
	tx, err := s.beginWrite(ctx, "append events")
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	stamped, err := insertEvents(ctx, tx, repo, id, evs, s.now().UTC())
	if err != nil {
		return fmt.Errorf("append events to %s %s in %s: %w", repo, id, s.path, err)
	}
	if err := tx.Commit(); err != nil {
		return describe(s.path, "commit events to", err)
	}
	copy(evs, stamped)
	return nil
}

// Events returns the log of (repo, id) in append order.
func (s *Store) Events(ctx context.Context, repo, id string) ([]Event, error) {
	if err := checkKey(repo, id); err != nil {
		return nil, err
	}
	return s.queryEvents(ctx, `SELECT seq, repo, work_item, at, name, node, data FROM events
		WHERE repo = ? AND work_item = ? ORDER BY seq`, repo, id)
}

// queryEvents reads the events a query selects (seq, repo, work_item, at,
// name, node, data, in that order).
func (s *Store) queryEvents(ctx context.Context, query string, args ...any) ([]Event, error) {
	rows, err := s.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, describe(s.path, "read events from", err)
	}
	defer func() { _ = rows.Close() }()
	var out []Event
	for rows.Next() {
		var ev Event
		var data sql.NullString
		if err := rows.Scan(&ev.Seq, &ev.Repo, &ev.WorkItem, &ev.At, &ev.Name, &ev.Node, &data); err != nil {
			return nil, describe(s.path, "read events from", err)
		}
		if data.Valid {
			ev.Data = json.RawMessage(data.String)
		}
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, describe(s.path, "read events from", err)
	}
	return out, nil
}

// insertEvents validates and inserts evs, returning stamped copies (Seq,
// At, Repo, WorkItem set) for the caller to publish after commit.
func insertEvents(ctx context.Context, tx *sql.Tx, repo, id string, evs []Event, now time.Time) ([]Event, error) {
	if len(evs) == 0 {
		return nil, nil
	}
	for i, ev := range evs {
		if err := validateEvent(repo, id, i, ev); err != nil {
			return nil, err
		}
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO events (repo, work_item, at, name, node, data) VALUES (?, ?, ?, ?, ?, ?) RETURNING seq`)
	if err != nil {
		return nil, fmt.Errorf("append events: %w", err)
	}
	defer func() { _ = stmt.Close() }()
	out := make([]Event, len(evs))
	for i, ev := range evs {
		if ev.At == "" {
			ev.At = now.Format(time.RFC3339Nano)
		}
		var data any
		if len(ev.Data) > 0 {
			data = string(ev.Data)
		}
		if err := stmt.QueryRowContext(ctx, repo, id, ev.At, ev.Name, ev.Node, data).Scan(&ev.Seq); err != nil {
			return nil, fmt.Errorf("append event %d (%s): %w", i, ev.Name, err)
		}
		ev.Repo, ev.WorkItem = repo, id
		out[i] = ev
	}
	return out, nil
}

func validateEvent(repo, id string, i int, ev Event) error {
	switch {
	case ev.Name == "":
		return fmt.Errorf("event %d: Name is empty; name what happened, e.g. node.entered", i)
	case ev.Repo != "" && ev.Repo != repo:
		return fmt.Errorf("event %d (%s): Repo %q does not match repo %q; leave Repo empty or make it match", i, ev.Name, ev.Repo, repo)
	case ev.WorkItem != "" && ev.WorkItem != id:
		return fmt.Errorf("event %d (%s): WorkItem %q does not match id %q; leave WorkItem empty or make it match", i, ev.Name, ev.WorkItem, id)
	case len(ev.Data) > 0 && !json.Valid(ev.Data):
		return fmt.Errorf("event %d (%s): Data is not valid JSON; pass a JSON value or leave Data empty", i, ev.Name)
	}
	return nil
}

// EventsNamed returns the events of every item whose name starts with
// prefix (e.g. "condition."), in append order, each with its Repo and
// WorkItem: one read where a view folds one kind of event over all items.
func (s *Store) EventsNamed(ctx context.Context, prefix string) ([]Event, error) {
	if prefix == "" {
		return nil, fmt.Errorf("read events by name from %s: the name prefix is empty", s.path)
	}
	return s.queryEvents(ctx, `SELECT seq, repo, work_item, at, name, node, data FROM events
		WHERE substr(name, 1, ?) = ? ORDER BY seq`, len(prefix), prefix)
}
