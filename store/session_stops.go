package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// sessionStopsSchema is migration 6: an operator's word to stop a session.
// A row also holds the session's item on its node — no session is launched
// for it there — until the item moves on (a human took the work over and
// claimed it), so a restarted poller honours it too.
var sessionStopsSchema = []string{
	`CREATE TABLE session_stops (
		session      TEXT PRIMARY KEY CHECK (session <> ''),
		repo         TEXT NOT NULL CHECK (repo <> ''),
		work_item    TEXT NOT NULL CHECK (work_item <> ''),
		node         TEXT NOT NULL CHECK (node <> ''),
		reason       TEXT NOT NULL DEFAULT '',
		requested_at TEXT NOT NULL,
		applied_at   TEXT NOT NULL DEFAULT ''
	) STRICT`,
	`CREATE INDEX session_stops_by_item ON session_stops (repo, work_item)`,
}

// sessionStopsByMigration is migration 7: who asked for a stop, so the
// hold it leaves names them.
var sessionStopsByMigration = []string{
	`ALTER TABLE session_stops ADD COLUMN requested_by TEXT NOT NULL DEFAULT ''`,
}

// SessionStop is an operator's request to stop a session and hold its item
// on its node.
type SessionStop struct {
	Session  string
	Repo     string
	WorkItem string
	Node     string
	Reason   string
	// By names who asked ("" when the operator gave no name).
	By          string
	RequestedAt time.Time
	// AppliedAt is when the supervisor stopped the session (zero while
	// pending).
	AppliedAt time.Time
}

// ErrStopRequested reports a session whose stop was already requested.
var ErrStopRequested = errors.New("a stop was already requested for this session")

// RequestSessionStop records a stop request and appends the
// session.stop_requested event to the item's log, in one transaction.
func (s *Store) RequestSessionStop(ctx context.Context, st SessionStop) error {
	if st.Session == "" || st.Node == "" || st.RequestedAt.IsZero() {
		return errors.New("request session stop: Session, Node and RequestedAt are required")
	}
	if err := checkKey(st.Repo, st.WorkItem); err != nil {
		return err
	}
	tx, err := s.beginWrite(ctx, "request session stop")
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	res, err := tx.ExecContext(ctx, `INSERT INTO session_stops (session, repo, work_item, node, reason, requested_by, requested_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session) DO NOTHING`,
		st.Session, st.Repo, st.WorkItem, st.Node, st.Reason, st.By, stamp(st.RequestedAt))
	if err != nil {
		return describe(s.path, "record a session stop in", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("session %s: %w", st.Session, ErrStopRequested)
	}
	fields := map[string]any{"session": st.Session, "reason": st.Reason}
	if st.By != "" {
		fields["by"] = st.By
	}
	data, _ := json.Marshal(fields)
	ev := Event{Name: "session.stop_requested", Node: st.Node, Data: data}
	if _, err := insertEvents(ctx, tx, st.Repo, st.WorkItem, []Event{ev}, s.now().UTC()); err != nil {
		return fmt.Errorf("request session stop %s: %w", st.Session, err)
	}
	if err := tx.Commit(); err != nil {
		return describe(s.path, "commit a session stop to", err)
	}
	return nil
}

// SessionStops lists every stop request, oldest first.
func (s *Store) SessionStops(ctx context.Context) ([]SessionStop, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT session, repo, work_item, node, reason, requested_by, requested_at, applied_at
		FROM session_stops ORDER BY requested_at, session`)
	if err != nil {
		return nil, describe(s.path, "list session stops in", err)
	}
	defer func() { _ = rows.Close() }()
	var out []SessionStop
	for rows.Next() {
		var st SessionStop
		var req, applied string
		if err := rows.Scan(&st.Session, &st.Repo, &st.WorkItem, &st.Node, &st.Reason, &st.By, &req, &applied); err != nil {
			return nil, describe(s.path, "list session stops in", err)
		}
		st.RequestedAt, _ = time.Parse(time.RFC3339Nano, req)
		if applied != "" {
			st.AppliedAt, _ = time.Parse(time.RFC3339Nano, applied)
		}
		out = append(out, st)
	}
	if err := rows.Err(); err != nil {
		return nil, describe(s.path, "list session stops in", err)
	}
	return out, nil
}

// MarkSessionStopApplied records that the supervisor acted on a stop
// request.
func (s *Store) MarkSessionStopApplied(ctx context.Context, session string, at time.Time) error {
	tx, err := s.beginWrite(ctx, "apply session stop")
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `UPDATE session_stops SET applied_at = ? WHERE session = ? AND applied_at = ''`,
		stamp(at), session); err != nil {
		return describe(s.path, "apply a session stop in", err)
	}
	if err := tx.Commit(); err != nil {
		return describe(s.path, "commit a session stop to", err)
	}
	return nil
}
