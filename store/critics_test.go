package store

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	promptSum = strings.Repeat("a", 64)
	outputSum = strings.Repeat("b", 64)
)

func criticRunFixture(id, item string, started time.Time) CriticRun {
	return CriticRun{ID: id, Repo: "octo/widgets", WorkItem: item, Node: "critic-review", Critic: "codex",
		PromptSHA256: promptSum, StartedAt: started, EndedAt: started.Add(90 * time.Second), ExitStatus: "exit 0",
		OutputSHA256: outputSum, OutputPath: "/state/critic-runs/" + id + ".json"}
}

func TestCriticRunsAreRecordedWithTheirEvent(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	ran := criticRunFixture("cr-1", "issue-7", t0)
	ran.Truncated = true
	require.NoError(t, s.RecordCriticRun(ctx, ran))
	hung := criticRunFixture("cr-2", "issue-7", t0.Add(time.Hour))
	hung.ExitStatus, hung.OutputSHA256, hung.Unavailable = "killed by SIGKILL", "", "timed out after 600s and was stopped"
	require.NoError(t, s.RecordCriticRun(ctx, hung))
	never := criticRunFixture("cr-3", "issue-7", t0.Add(2*time.Hour))
	never.EndedAt, never.ExitStatus, never.OutputSHA256, never.Unavailable = never.StartedAt, "", "", `executable "codex" not found`
	require.NoError(t, s.RecordCriticRun(ctx, never))
	require.NoError(t, s.RecordCriticRun(ctx, criticRunFixture("cr-4", "issue-8", t0)))

	got, found, err := s.GetCriticRun(ctx, "cr-1")
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, ran, got)
	assert.True(t, got.Counts())

	runs, err := s.ListCriticRuns(ctx, "octo/widgets", "issue-7")
	require.NoError(t, err)
	require.Len(t, runs, 3)
	assert.Equal(t, []CriticRun{ran, hung, never}, runs, "oldest first, only this item")
	assert.False(t, runs[1].Counts())

	evs, err := s.Events(ctx, "octo/widgets", "issue-7")
	require.NoError(t, err)
	require.Len(t, evs, 3, "one event per run")
	assert.Equal(t, []string{EventCriticRan, EventCriticUnavailable, EventCriticUnavailable}, []string{evs[0].Name, evs[1].Name, evs[2].Name})
	assert.Equal(t, "critic-review", evs[0].Node)
	assert.JSONEq(t, `{"run":"cr-1","critic":"codex","exit":"exit 0","truncated":true,"outputSha256":"`+outputSum+`"}`, string(evs[0].Data))
	var data map[string]any
	require.NoError(t, json.Unmarshal(evs[1].Data, &data))
	assert.Equal(t, "timed out after 600s and was stopped", data["unavailable"])

	_, found, err = s.GetCriticRun(ctx, "nope")
	require.NoError(t, err)
	assert.False(t, found)
	none, err := s.ListCriticRuns(ctx, "octo/widgets", "issue-99")
	require.NoError(t, err)
	assert.Empty(t, none)
}

func TestCriticRunRecordsRefuseBadInput(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	t0 := time.Now()
	mod := func(f func(*CriticRun)) CriticRun {
		r := criticRunFixture("cr-x", "issue-1", t0)
		f(&r)
		return r
	}
	tests := []struct {
		name string
		run  CriticRun
		want string
	}{
		{"no id", mod(func(r *CriticRun) { r.ID = "" }), "ID is empty"},
		{"no item", mod(func(r *CriticRun) { r.WorkItem = "" }), "Repo and WorkItem are required"},
		{"no critic", mod(func(r *CriticRun) { r.Critic = "" }), "Critic is empty"},
		{"bad prompt hash", mod(func(r *CriticRun) { r.PromptSHA256 = "abc" }), "PromptSHA256"},
		{"no start", mod(func(r *CriticRun) { r.StartedAt = time.Time{} }), "StartedAt and EndedAt"},
		{"ends before it starts", mod(func(r *CriticRun) { r.EndedAt = r.StartedAt.Add(-time.Second) }), "EndedAt is before"},
		{"bad output hash", mod(func(r *CriticRun) { r.OutputSHA256 = "XYZ" }), "OutputSHA256"},
		{"counted without a clean exit", mod(func(r *CriticRun) { r.ExitStatus = "exit 3" }), "a run that counts exited 0"},
		{"counted without output", mod(func(r *CriticRun) { r.OutputSHA256 = "" }), "a run that counts exited 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.ErrorContains(t, s.RecordCriticRun(ctx, tt.run), tt.want)
		})
	}
	ok := criticRunFixture("cr-1", "issue-1", t0)
	require.NoError(t, s.RecordCriticRun(ctx, ok))
	assert.Error(t, s.RecordCriticRun(ctx, ok), "a run id is recorded once")
	evs, err := s.Events(ctx, "octo/widgets", "issue-1")
	require.NoError(t, err)
	assert.Len(t, evs, 1, "a refused record appends no event")
}

func TestCriticRunsCannotBeRewritten(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	hung := criticRunFixture("cr-1", "issue-1", time.Now())
	hung.OutputSHA256, hung.ExitStatus, hung.Unavailable = "", "killed by SIGKILL", "timed out"
	require.NoError(t, s.RecordCriticRun(ctx, hung))
	// Nothing may turn an unavailable round into one that counts.
	_, err := s.write.ExecContext(ctx, `UPDATE critic_runs SET unavailable = '', exit_status = 'exit 0', output_sha256 = ? WHERE id = 'cr-1'`, outputSum)
	assert.ErrorContains(t, err, "UPDATE refused")
	_, err = s.write.ExecContext(ctx, `DELETE FROM critic_runs WHERE id = 'cr-1'`)
	assert.ErrorContains(t, err, "DELETE refused")
	// Nor can a counted row be inserted without a clean exit and output.
	_, err = s.write.ExecContext(ctx, `INSERT INTO critic_runs (id, repo, work_item, critic, prompt_sha256, started_at, ended_at, exit_status)
		VALUES ('cr-2', 'r', 'i', 'codex', ?, 'x', 'x', 'exit 1')`, promptSum)
	require.Error(t, err)
	assert.Regexp(t, `CHECK constraint failed|violates check constraint`, err.Error())
	got, found, err := s.GetCriticRun(ctx, "cr-1")
	require.NoError(t, err)
	require.True(t, found)
	assert.False(t, got.Counts())
}

func TestOpenMigratesAVersion3StoreToCriticRuns(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v3.db")
	var stmts []string
	for _, m := range migrations[:3] {
		stmts = append(stmts, m.stmts...)
	}
	stmts = append(stmts,
		`INSERT INTO work_items (repo, id, loop, current_node, updated_at) VALUES ('octo/widgets', 'issue-1', 'pdlc-work-item-loop', 'critic-review', '2026-01-01T00:00:00Z')`,
		`PRAGMA user_version = 3`)
	rawExec(t, path, stmts...)
	s, err := Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	it, found, err := s.Get(ctx, "octo/widgets", "issue-1")
	require.NoError(t, err)
	require.True(t, found, "existing items survive the migration")
	assert.Equal(t, "critic-review", it.CurrentNode)
	require.NoError(t, s.RecordCriticRun(ctx, criticRunFixture("cr-1", "issue-1", time.Now())))
}
