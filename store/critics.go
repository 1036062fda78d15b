package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/the-loop/the-loop/internal/lazyre"
)

// criticRunsSchema is migration 4: one row per critic round run for a work
// item. Rows are facts: they are never updated or deleted.
var criticRunsSchema = []string{
	`CREATE TABLE critic_runs (
		id            TEXT PRIMARY KEY CHECK (id <> ''),
		repo          TEXT NOT NULL CHECK (repo <> ''),
		work_item     TEXT NOT NULL CHECK (work_item <> ''),
		node          TEXT NOT NULL DEFAULT '',
		critic        TEXT NOT NULL CHECK (critic <> ''),
		prompt_sha256 TEXT NOT NULL CHECK (length(prompt_sha256) = 64),
		started_at    TEXT NOT NULL CHECK (started_at <> ''),
		ended_at      TEXT NOT NULL CHECK (ended_at <> ''),
		exit_status   TEXT NOT NULL DEFAULT '',
		truncated     INTEGER NOT NULL DEFAULT 0 CHECK (truncated IN (0, 1)),
		unavailable   TEXT NOT NULL DEFAULT '',
		output_sha256 TEXT NOT NULL DEFAULT '',
		output_path   TEXT NOT NULL DEFAULT '',
		CHECK (unavailable <> '' OR (exit_status = 'exit 0' AND length(output_sha256) = 64))
	) STRICT`,
	`CREATE INDEX critic_runs_by_item ON critic_runs (repo, work_item, started_at)`,
	`CREATE TRIGGER critic_runs_no_update BEFORE UPDATE ON critic_runs
	 BEGIN SELECT RAISE(ABORT, 'critic runs are facts: UPDATE refused'); END`,
	`CREATE TRIGGER critic_runs_no_delete BEFORE DELETE ON critic_runs
	 BEGIN SELECT RAISE(ABORT, 'critic runs are facts: DELETE refused'); END`,
}

// Events recorded with a critic run.
const (
	EventCriticRan         = "critic.ran"
	EventCriticUnavailable = "critic.unavailable"
)

// CriticRun is one critic round run for a work item.
type CriticRun struct {
	// ID is the run id the critic's envelope carried.
	ID       string
	Repo     string
	WorkItem string
	// Node is the node the item stood at ("" when unknown).
	Node   string
	Critic string
	// PromptSHA256 is the hex SHA-256 of the prompt the critic was given.
	PromptSHA256 string
	StartedAt    time.Time
	EndedAt      time.Time
	// ExitStatus is e.g. "exit 0" or "killed by SIGKILL"; "" when the
	// critic never started.
	ExitStatus string
	// Truncated reports that the critic's output was cut to its bound.
	Truncated bool
	// Unavailable says why the round does not count; "" when it does.
	Unavailable string
	// OutputSHA256 is the hex SHA-256 of the saved output, OutputPath the
	// file holding it.
	OutputSHA256 string
	OutputPath   string
}

// Counts reports whether the run counts as a review round.
func (r CriticRun) Counts() bool { return r.Unavailable == "" }

var sha256Hex = lazyre.New(`^[0-9a-f]{64}$`)

// RecordCriticRun records run on its work item and appends one event to the
// item's log in the same transaction: critic.ran for a round that counts,
// critic.unavailable for one that does not. A run id is recorded once.
func (s *Store) RecordCriticRun(ctx context.Context, run CriticRun) error {
	if err := checkCriticRun(run); err != nil {
		return err
	}
	ev, err := criticEvent(run)
	if err != nil {
		return err
	}
	tx, err := s.beginWrite(ctx, "record critic run")
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	_, err = tx.ExecContext(ctx, `INSERT INTO critic_runs (id, repo, work_item, node, critic, prompt_sha256, started_at, ended_at,
		exit_status, truncated, unavailable, output_sha256, output_path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		run.ID, run.Repo, run.WorkItem, run.Node, run.Critic, run.PromptSHA256, stamp(run.StartedAt), stamp(run.EndedAt),
		run.ExitStatus, boolInt(run.Truncated), run.Unavailable, run.OutputSHA256, run.OutputPath)
	if err != nil {
		return fmt.Errorf("record critic run %s in %s: %w", run.ID, s.path, err)
	}
	if _, err := insertEvents(ctx, tx, run.Repo, run.WorkItem, []Event{ev}, s.now().UTC()); err != nil {
		return fmt.Errorf("record critic run %s: %w", run.ID, err)
	}
	if err := tx.Commit(); err != nil {
		return describe(s.path, "record critic run in", err)
	}
	return nil
}

// criticEvent is the log entry of a run: what ran and how it ended, never
// the output itself.
func criticEvent(run CriticRun) (Event, error) {
	name := EventCriticRan
	if !run.Counts() {
		name = EventCriticUnavailable
	}
	data, err := json.Marshal(struct {
		Run          string `json:"run"`
		Critic       string `json:"critic"`
		Exit         string `json:"exit"`
		Truncated    bool   `json:"truncated"`
		Unavailable  string `json:"unavailable,omitempty"`
		OutputSHA256 string `json:"outputSha256,omitempty"`
	}{run.ID, run.Critic, run.ExitStatus, run.Truncated, run.Unavailable, run.OutputSHA256})
	if err != nil {
		return Event{}, fmt.Errorf("record critic run %s: %w", run.ID, err)
	}
	return Event{Name: name, Node: run.Node, Data: data}, nil
}

const criticRunCols = `id, repo, work_item, node, critic, prompt_sha256, started_at, ended_at, exit_status, truncated,
	unavailable, output_sha256, output_path`

// GetCriticRun returns the run with id; found is false when there is none.
func (s *Store) GetCriticRun(ctx context.Context, id string) (CriticRun, bool, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+criticRunCols+` FROM critic_runs WHERE id = ?`, id)
	if err != nil {
		return CriticRun{}, false, describe(s.path, "read critic run from", err)
	}
	out, err := scanCriticRuns(rows)
	if err != nil {
		return CriticRun{}, false, describe(s.path, "read critic run from", err)
	}
	if len(out) == 0 {
		return CriticRun{}, false, nil
	}
	return out[0], true, nil
}

// ListCriticRuns returns the runs recorded for (repo, item), oldest first.
func (s *Store) ListCriticRuns(ctx context.Context, repo, item string) ([]CriticRun, error) {
	if err := checkKey(repo, item); err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+criticRunCols+` FROM critic_runs WHERE repo = ? AND work_item = ?
		ORDER BY started_at, id`, repo, item)
	if err != nil {
		return nil, describe(s.path, "list critic runs in", err)
	}
	out, err := scanCriticRuns(rows)
	if err != nil {
		return nil, describe(s.path, "list critic runs in", err)
	}
	return out, nil
}

func scanCriticRuns(rows *sql.Rows) ([]CriticRun, error) {
	defer func() { _ = rows.Close() }()
	var out []CriticRun
	for rows.Next() {
		var r CriticRun
		var started, ended string
		var truncated int
		if err := rows.Scan(&r.ID, &r.Repo, &r.WorkItem, &r.Node, &r.Critic, &r.PromptSHA256, &started, &ended, &r.ExitStatus,
			&truncated, &r.Unavailable, &r.OutputSHA256, &r.OutputPath); err != nil {
			return nil, err
		}
		r.Truncated = truncated == 1
		r.StartedAt, _ = time.Parse(time.RFC3339Nano, started)
		r.EndedAt, _ = time.Parse(time.RFC3339Nano, ended)
		out = append(out, r)
	}
	return out, rows.Err()
}

func checkCriticRun(r CriticRun) error {
	switch {
	case r.ID == "":
		return errors.New("record critic run: ID is empty; record the run id from the critic's envelope")
	case r.Repo == "" || r.WorkItem == "":
		return fmt.Errorf("record critic run %s: Repo and WorkItem are required", r.ID)
	case r.Critic == "":
		return fmt.Errorf("record critic run %s: Critic is empty", r.ID)
	case !sha256Hex().MatchString(r.PromptSHA256):
		return fmt.Errorf("record critic run %s: PromptSHA256 is not a hex SHA-256", r.ID)
	case r.StartedAt.IsZero() || r.EndedAt.IsZero():
		return fmt.Errorf("record critic run %s: StartedAt and EndedAt are required", r.ID)
	case r.EndedAt.Before(r.StartedAt):
		return fmt.Errorf("record critic run %s: EndedAt is before StartedAt", r.ID)
	case r.OutputSHA256 != "" && !sha256Hex().MatchString(r.OutputSHA256):
		return fmt.Errorf("record critic run %s: OutputSHA256 is not a hex SHA-256", r.ID)
	case r.Counts() && (r.ExitStatus != "exit 0" || r.OutputSHA256 == ""):
		return fmt.Errorf("record critic run %s: a run that counts exited 0 and has saved output; give Unavailable the reason it does not count", r.ID)
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
