package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// sessionsSchema is migration 2: one row per launched agent session.
var sessionsSchema = []string{
	`CREATE TABLE sessions (
		id              TEXT PRIMARY KEY CHECK (id <> ''),
		repo            TEXT NOT NULL CHECK (repo <> ''),
		work_item       TEXT NOT NULL CHECK (work_item <> ''),
		node            TEXT NOT NULL CHECK (node <> ''),
		harness         TEXT NOT NULL CHECK (harness <> ''),
		runner          TEXT NOT NULL DEFAULT 'process',
		model           TEXT NOT NULL DEFAULT '',
		effort          TEXT NOT NULL DEFAULT '',
		argv            TEXT NOT NULL DEFAULT '[]',
		pid             INTEGER NOT NULL DEFAULT 0,
		attempt         INTEGER NOT NULL DEFAULT 1 CHECK (attempt >= 1),
		started_at      TEXT NOT NULL,
		ended_at        TEXT NOT NULL DEFAULT '',
		exit_status     TEXT NOT NULL DEFAULT '',
		transcript      TEXT NOT NULL DEFAULT '',
		harness_session TEXT NOT NULL DEFAULT '',
		attach          TEXT NOT NULL DEFAULT '',
		turns           INTEGER NOT NULL DEFAULT 0 CHECK (turns >= 0),
		tokens          INTEGER NOT NULL DEFAULT 0 CHECK (tokens >= 0),
		cost_usd        REAL NOT NULL DEFAULT 0 CHECK (cost_usd >= 0),
		state           TEXT NOT NULL CHECK (state IN ('running', 'exited', 'stopped', 'timed_out', 'over_budget', 'lost')),
		reason          TEXT NOT NULL DEFAULT ''
	) STRICT`,
	`CREATE INDEX sessions_by_item ON sessions (repo, work_item, started_at)`,
	`CREATE INDEX sessions_running ON sessions (state) WHERE state = 'running'`,
}

// sessionPullsSchema is migration 8: the pull request whose loop a session
// works (pr 0: the item's own loop). A session of a pull request's own and
// the item's session working that pull request's loop both carry it.
var sessionPullsSchema = []string{
	`ALTER TABLE sessions ADD COLUMN pr INTEGER NOT NULL DEFAULT 0 CHECK (pr >= 0)`,
	`ALTER TABLE sessions ADD COLUMN pr_repo TEXT NOT NULL DEFAULT ''`,
}

// sessionConfinementSchema is migration 9: how each session was confined
// (the layers in effect, or none) and how much of its transcript's head
// was cut to hold it to sessions.maxTranscriptBytes.
var sessionConfinementSchema = []string{
	`ALTER TABLE sessions ADD COLUMN confinement TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE sessions ADD COLUMN transcript_cut INTEGER NOT NULL DEFAULT 0 CHECK (transcript_cut >= 0)`,
}

// sessionUsageSchema is migration 10: what every agent CLI reports, read
// the same way whichever ran — input and output tokens apart, where the
// cost came from (reported by the CLI, estimated from the harness's
// prices, or unknown: then cost_usd is 0 and means nothing), the final
// result and the last error. A session an earlier release recorded with a
// cost had it from Claude Code, which reports it.
var sessionUsageSchema = []string{
	`ALTER TABLE sessions ADD COLUMN input_tokens INTEGER NOT NULL DEFAULT 0 CHECK (input_tokens >= 0)`,
	`ALTER TABLE sessions ADD COLUMN output_tokens INTEGER NOT NULL DEFAULT 0 CHECK (output_tokens >= 0)`,
	`ALTER TABLE sessions ADD COLUMN cost_source TEXT NOT NULL DEFAULT '' CHECK (cost_source IN ('', 'reported', 'estimated'))`,
	`ALTER TABLE sessions ADD COLUMN result TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE sessions ADD COLUMN error TEXT NOT NULL DEFAULT ''`,
	`UPDATE sessions SET cost_source = 'reported' WHERE cost_usd > 0`,
}

// Cost sources of a session's cost ("" = unknown).
const (
	CostReported  = "reported"
	CostEstimated = "estimated"
)

// Session states.
const (
	SessionRunning    = "running"     // launched, not yet seen to end
	SessionExited     = "exited"      // ended on its own
	SessionStopped    = "stopped"     // stopped by the loop or an operator
	SessionTimedOut   = "timed_out"   // stopped at its time limit
	SessionOverBudget = "over_budget" // stopped when its item's budget ran out
	SessionLost       = "lost"        // the supervisor restarted while it ran
)

// Session is one launched agent session.
type Session struct {
	ID       string
	Repo     string
	WorkItem string
	Node     string
	// PR and PRRepo name the pull request whose loop Node belongs to (0:
	// the item's own loop).
	PR      int
	PRRepo  string
	Harness string
	// Runner is process or tmux.
	Runner string
	Model  string
	Effort string
	// Argv is the launched argv with secrets redacted.
	Argv []string
	PID  int
	// Attempt counts launches for the same item and node (1 = first).
	Attempt   int
	StartedAt time.Time
	EndedAt   time.Time // zero while running
	// ExitStatus is e.g. "exit 0" or "killed by SIGTERM".
	ExitStatus string
	// Transcript is the path of the session's stream-json output.
	Transcript string
	// Attach says how a human takes the session over (tmux runner).
	Attach string
	SessionUsage
	State string
	// Reason says why the session ended as it did.
	Reason string
	// Confinement is how the session was confined: the layers in effect
	// (e.g. "user,pid,landlock"), or "none".
	Confinement string
	// TranscriptCut is how many bytes were cut from the head of the
	// transcript to hold it to sessions.maxTranscriptBytes (0: none).
	TranscriptCut int64
	// Owner is the poller instance whose item lease it was launched under
	// ("" when none was).
	Owner string
}

// SessionUsage is what a session's harness reported: its figures, where
// its cost came from, its final result and its last error.
type SessionUsage struct {
	// HarnessSession is the harness's own session id (claude --resume).
	HarnessSession string
	Turns          int
	// Tokens is every token (input, output and cache); InputTokens and
	// OutputTokens the input not read from a cache and the output.
	Tokens       int64
	InputTokens  int64
	OutputTokens int64
	// CostUSD is the cost when CostSource says where it came from
	// (CostReported, CostEstimated); "" is unknown, whatever CostUSD says.
	CostUSD    float64
	CostSource string
	// Result is the session's final answer, Error its last error.
	Result string
	Error  string
}

// CostKnown says whether the session's cost is known.
func (u SessionUsage) CostKnown() bool { return u.CostSource != "" }

// Running reports whether the record is of a live session.
func (s Session) Running() bool { return s.State == SessionRunning }

// SessionFilter selects sessions for ListSessions.
type SessionFilter struct {
	Repo     string // "" = every repository
	WorkItem string // "" = every item (needs Repo)
	State    string // "" = every state
	Limit    int    // 0 = no limit
}

// ErrSessionNotRunning reports an attempt to finish a session twice.
var ErrSessionNotRunning = errors.New("session is not running")

// StartSession records a launched session (State running) and appends evs
// to its item's event log, in one transaction.
func (s *Store) StartSession(ctx context.Context, sess Session, evs ...Event) error {
	if err := checkSession(sess); err != nil {
		return err
	}
	sess.State = SessionRunning
	if sess.Runner == "" {
		sess.Runner = "process"
	}
	argv, err := json.Marshal(nonNil(sess.Argv))
	if err != nil {
		return fmt.Errorf("record session %s: %w", sess.ID, err)
	}
	return s.sessionTx(ctx, "record session", sess, evs, func(tx *sql.Tx) error {
		// A session launched under an item's lease is the lease holder's:
		// refused when the lease changed hands, and marked with its owner
		// so another poller settles it only once that owner is gone.
		owner, err := s.checkFence(ctx, tx, sess.Repo, sess.WorkItem)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO sessions (id, repo, work_item, node, pr, pr_repo, harness, runner, model, effort, argv, pid,
			attempt, started_at, transcript, attach, state, confinement, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			sess.ID, sess.Repo, sess.WorkItem, sess.Node, sess.PR, sess.PRRepo, sess.Harness, sess.Runner, sess.Model, sess.Effort, string(argv), sess.PID,
			max(sess.Attempt, 1), stamp(sess.StartedAt), sess.Transcript, sess.Attach, sess.State, sess.Confinement, owner)
		return err
	})
}

// FinishSession records how a running session ended (EndedAt,
// ExitStatus, usage, State, Reason) and appends evs, in one transaction. A
// session already finished is refused with ErrSessionNotRunning.
func (s *Store) FinishSession(ctx context.Context, sess Session, evs ...Event) error {
	if sess.ID == "" {
		return errors.New("finish session: ID is empty")
	}
	switch sess.State {
	case SessionExited, SessionStopped, SessionTimedOut, SessionOverBudget, SessionLost:
	default:
		return fmt.Errorf("finish session %s: state %q is not an end state", sess.ID, sess.State)
	}
	return s.sessionTx(ctx, "finish session", sess, evs, func(tx *sql.Tx) error {
		u, err := checkUsage(sess.ID, sess.SessionUsage)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET ended_at = ?, exit_status = ?, harness_session = ?, turns = ?, tokens = ?,
			input_tokens = ?, output_tokens = ?, cost_usd = ?, cost_source = ?, result = ?, error = ?, state = ?, reason = ?, transcript_cut = ?
			WHERE id = ? AND state = 'running'`,
			stamp(sess.EndedAt), sess.ExitStatus, u.HarnessSession, u.Turns, u.Tokens, u.InputTokens, u.OutputTokens, u.CostUSD, u.CostSource,
			u.Result, u.Error, sess.State, sess.Reason, sess.TranscriptCut, sess.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("session %s: %w", sess.ID, ErrSessionNotRunning)
		}
		return nil
	})
}

// checkUsage refuses figures no harness reports: negative counts or cost,
// a cost source that is not one.
func checkUsage(id string, u SessionUsage) (SessionUsage, error) {
	switch {
	case u.Turns < 0 || u.Tokens < 0 || u.InputTokens < 0 || u.OutputTokens < 0 || u.CostUSD < 0:
		return u, fmt.Errorf("session %s: negative usage figures", id)
	case u.CostSource != "" && u.CostSource != CostReported && u.CostSource != CostEstimated:
		return u, fmt.Errorf("session %s: cost source %q is not one of reported, estimated or unknown", id, u.CostSource)
	}
	if u.CostSource == "" {
		u.CostUSD = 0
	}
	return u, nil
}

// UpdateSessionUsage records a running session's figures so far.
func (s *Store) UpdateSessionUsage(ctx context.Context, id string, u SessionUsage) error {
	u, err := checkUsage(id, u)
	if err != nil {
		return err
	}
	tx, err := s.beginWrite(ctx, "update session usage")
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET harness_session = ?, turns = ?, tokens = ?, input_tokens = ?, output_tokens = ?,
		cost_usd = ?, cost_source = ?, result = ?, error = ? WHERE id = ?`,
		u.HarnessSession, u.Turns, u.Tokens, u.InputTokens, u.OutputTokens, u.CostUSD, u.CostSource, u.Result, u.Error, id); err != nil {
		return describe(s.path, "update session usage in", err)
	}
	if err := tx.Commit(); err != nil {
		return describe(s.path, "commit session usage to", err)
	}
	return nil
}

// sessionTx runs write and appends evs to the session's item log in one
// write transaction.
func (s *Store) sessionTx(ctx context.Context, op string, sess Session, evs []Event, write func(*sql.Tx) error) error {
	tx, err := s.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := write(tx); err != nil {
		if errors.Is(err, ErrSessionNotRunning) {
			return err
		}
		if errors.Is(err, ErrStaleFence) {
			return fmt.Errorf("%s %s: %w", op, sess.ID, err)
		}
		return fmt.Errorf("%s %s in %s: %w", op, sess.ID, s.path, err)
	}
	if len(evs) > 0 {
		repo, item := sess.Repo, sess.WorkItem
		if repo == "" || item == "" {
			if err := tx.QueryRowContext(ctx, `SELECT repo, work_item FROM sessions WHERE id = ?`, sess.ID).Scan(&repo, &item); err != nil {
				return fmt.Errorf("%s %s: %w", op, sess.ID, err)
			}
		}
		if _, err := insertEvents(ctx, tx, repo, item, evs, s.now().UTC()); err != nil {
			return fmt.Errorf("%s %s: %w", op, sess.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return describe(s.path, op+" in", err)
	}
	return nil
}

const sessionCols = `id, repo, work_item, node, pr, pr_repo, harness, runner, model, effort, argv, pid, attempt, started_at, ended_at,
	exit_status, transcript, harness_session, attach, turns, tokens, input_tokens, output_tokens, cost_usd, cost_source, result, error,
	state, reason, confinement, transcript_cut, owner`

// GetSession returns the session with id; found is false when there is none.
func (s *Store) GetSession(ctx context.Context, id string) (Session, bool, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+sessionCols+` FROM sessions WHERE id = ?`, id)
	if err != nil {
		return Session{}, false, describe(s.path, "read session from", err)
	}
	out, err := scanSessions(rows)
	if err != nil {
		return Session{}, false, describe(s.path, "read session from", err)
	}
	if len(out) == 0 {
		return Session{}, false, nil
	}
	return out[0], true, nil
}

// ListSessions returns the sessions f selects, newest first.
func (s *Store) ListSessions(ctx context.Context, f SessionFilter) ([]Session, error) {
	var where []string
	var args []any
	if f.WorkItem != "" && f.Repo == "" {
		return nil, errors.New("list sessions: a work item filter needs its repo")
	}
	for _, c := range []struct{ col, val string }{{"repo", f.Repo}, {"work_item", f.WorkItem}, {"state", f.State}} {
		if c.val != "" {
			where = append(where, c.col+" = ?")
			args = append(args, c.val)
		}
	}
	q := `SELECT ` + sessionCols + ` FROM sessions`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY started_at DESC, id DESC`
	if f.Limit > 0 {
		q += fmt.Sprintf(` LIMIT %d`, f.Limit)
	}
	rows, err := s.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, describe(s.path, "list sessions in", err)
	}
	out, err := scanSessions(rows)
	if err != nil {
		return nil, describe(s.path, "list sessions in", err)
	}
	return out, nil
}

// Spend is what sessions used, summed: their figures, the cost of those
// whose cost is known, how many sessions' cost is unknown, and the wall
// time of those that ended.
type Spend struct {
	// Harness is the harness the figures are of ("" = every harness).
	Harness     string
	Sessions    int
	Turns       int
	Tokens      int64
	CostUSD     float64
	UnknownCost int
	WallSeconds float64
}

// spendCols sums a selection of sessions.
func (s *Store) spendCols() string {
	// A session's wall time in seconds, never negative, in the store's dialect.
	wall := `max(julianday(ended_at) - julianday(started_at), 0) * 86400`
	if s.pg != nil {
		wall = `greatest(extract(epoch from (ended_at::timestamptz - started_at::timestamptz)), 0)::double precision`
	}
	return `count(*), coalesce(sum(turns), 0), coalesce(sum(tokens), 0),
	coalesce(sum(CASE WHEN cost_source <> '' THEN cost_usd ELSE 0 END), 0),
	coalesce(sum(CASE WHEN cost_source = '' THEN 1 ELSE 0 END), 0),
	coalesce(sum(CASE WHEN ended_at <> '' THEN ` + wall + ` ELSE 0 END), 0)`
}

func scanSpend(row interface{ Scan(...any) error }, sp *Spend) error {
	return row.Scan(&sp.Sessions, &sp.Turns, &sp.Tokens, &sp.CostUSD, &sp.UnknownCost, &sp.WallSeconds)
}

// ItemSpend sums the recorded figures of every session of (repo, item).
func (s *Store) ItemSpend(ctx context.Context, repo, item string) (Spend, error) {
	if err := checkKey(repo, item); err != nil {
		return Spend{}, err
	}
	var sp Spend
	if err := scanSpend(s.read.QueryRowContext(ctx, `SELECT `+s.spendCols()+` FROM sessions WHERE repo = ? AND work_item = ?`, repo, item), &sp); err != nil {
		return Spend{}, describe(s.path, "sum session spend in", err)
	}
	return sp, nil
}

// ItemSpendByHarness sums the recorded figures of (repo, item)'s sessions
// per harness, in harness order.
func (s *Store) ItemSpendByHarness(ctx context.Context, repo, item string) ([]Spend, error) {
	if err := checkKey(repo, item); err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, `SELECT harness, `+s.spendCols()+` FROM sessions WHERE repo = ? AND work_item = ?
		GROUP BY harness ORDER BY harness`, repo, item)
	if err != nil {
		return nil, describe(s.path, "sum session spend in", err)
	}
	defer func() { _ = rows.Close() }()
	var out []Spend
	for rows.Next() {
		var sp Spend
		if err := rows.Scan(&sp.Harness, &sp.Sessions, &sp.Turns, &sp.Tokens, &sp.CostUSD, &sp.UnknownCost, &sp.WallSeconds); err != nil {
			return nil, describe(s.path, "sum session spend in", err)
		}
		out = append(out, sp)
	}
	if err := rows.Err(); err != nil {
		return nil, describe(s.path, "sum session spend in", err)
	}
	return out, nil
}

// RepoSpend sums the recorded figures of every session of repo started at
// or after since.
func (s *Store) RepoSpend(ctx context.Context, repo string, since time.Time) (Spend, error) {
	if repo == "" {
		return Spend{}, errors.New("repository spend: the repository is empty")
	}
	var sp Spend
	if err := scanSpend(s.read.QueryRowContext(ctx, `SELECT `+s.spendCols()+` FROM sessions WHERE repo = ? AND started_at >= ?`,
		repo, stamp(since)), &sp); err != nil {
		return Spend{}, describe(s.path, "sum repository spend in", err)
	}
	return sp, nil
}

func scanSessions(rows *sql.Rows) ([]Session, error) {
	defer func() { _ = rows.Close() }()
	var out []Session
	for rows.Next() {
		var ss Session
		var argv, started, ended string
		if err := rows.Scan(&ss.ID, &ss.Repo, &ss.WorkItem, &ss.Node, &ss.PR, &ss.PRRepo, &ss.Harness, &ss.Runner, &ss.Model, &ss.Effort, &argv, &ss.PID,
			&ss.Attempt, &started, &ended, &ss.ExitStatus, &ss.Transcript, &ss.HarnessSession, &ss.Attach, &ss.Turns, &ss.Tokens,
			&ss.InputTokens, &ss.OutputTokens, &ss.CostUSD, &ss.CostSource, &ss.Result, &ss.Error, &ss.State, &ss.Reason, &ss.Confinement, &ss.TranscriptCut,
			&ss.Owner); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(argv), &ss.Argv); err != nil {
			return nil, fmt.Errorf("session %s: argv: %w", ss.ID, err)
		}
		ss.StartedAt, _ = time.Parse(time.RFC3339Nano, started)
		if ended != "" {
			ss.EndedAt, _ = time.Parse(time.RFC3339Nano, ended)
		}
		out = append(out, ss)
	}
	return out, rows.Err()
}

func checkSession(s Session) error {
	switch {
	case s.ID == "":
		return errors.New("record session: ID is empty")
	case s.Repo == "" || s.WorkItem == "" || s.Node == "":
		return fmt.Errorf("record session %s: Repo, WorkItem and Node are required", s.ID)
	case s.Harness == "":
		return fmt.Errorf("record session %s: Harness is empty", s.ID)
	case s.PR < 0 || (s.PR == 0) != (s.PRRepo == ""):
		return fmt.Errorf("record session %s: PR %d and PRRepo %q must be set together (both empty for the item's own loop)", s.ID, s.PR, s.PRRepo)
	case s.StartedAt.IsZero():
		return fmt.Errorf("record session %s: StartedAt is zero", s.ID)
	}
	return nil
}

// sessionTime is fixed-width, so stored times sort as text.
const sessionTime = "2006-01-02T15:04:05.000000000Z07:00"

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(sessionTime)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
