package store

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sessionFixture(id, item string, started time.Time) Session {
	return Session{ID: id, Repo: "octo/widgets", WorkItem: item, Node: "design", Harness: "claude", Runner: "tmux",
		Model: "opus", Effort: "high", Argv: []string{"claude", "-p", "--model", "opus"}, PID: 4242, Attempt: 1,
		StartedAt: started, Transcript: "/state/sessions/" + id + "/transcript.jsonl", Attach: "tmux -S /state/tmux.sock attach -t loop-" + id}
}

func TestSessionRecordLifecycle(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	sess := sessionFixture("s-1", "issue-7", t0)
	require.NoError(t, s.StartSession(ctx, sess, Event{Name: "session.started", Node: "design", Data: json.RawMessage(`{"session":"s-1"}`)}))

	got, found, err := s.GetSession(ctx, "s-1")
	require.NoError(t, err)
	require.True(t, found)
	want := sess
	want.State = SessionRunning
	assert.Equal(t, want, got)
	assert.True(t, got.Running())

	require.NoError(t, s.UpdateSessionUsage(ctx, "s-1", SessionUsage{HarnessSession: "harness-uuid", Turns: 3, Tokens: 1200, InputTokens: 1000, OutputTokens: 200}))
	got, _, err = s.GetSession(ctx, "s-1")
	require.NoError(t, err)
	assert.Equal(t, SessionUsage{HarnessSession: "harness-uuid", Turns: 3, Tokens: 1200, InputTokens: 1000, OutputTokens: 200}, got.SessionUsage)
	assert.False(t, got.CostKnown(), "no cost reported yet: unknown, not $0")

	end := sess
	end.EndedAt, end.ExitStatus, end.State, end.Reason = t0.Add(time.Hour), "exit 1", SessionExited, "node still unmet"
	end.SessionUsage = SessionUsage{HarnessSession: "harness-uuid", Turns: 9, Tokens: 5000, InputTokens: 4000, OutputTokens: 600,
		CostUSD: 0.42, CostSource: CostEstimated, Result: "Design written.", Error: "exceeded retry limit, last status: 429"}
	require.NoError(t, s.FinishSession(ctx, end, Event{Name: "session.exited", Node: "design"}))
	got, _, err = s.GetSession(ctx, "s-1")
	require.NoError(t, err)
	assert.Equal(t, end, got)
	assert.False(t, got.Running())

	err = s.FinishSession(ctx, end, Event{Name: "session.exited"})
	assert.True(t, errors.Is(err, ErrSessionNotRunning), "%v", err)

	evs, err := s.Events(ctx, "octo/widgets", "issue-7")
	require.NoError(t, err)
	require.Len(t, evs, 2, "the refused second finish appended nothing")
	assert.Equal(t, "session.started", evs[0].Name)
	assert.Equal(t, "session.exited", evs[1].Name)

	_, found, err = s.GetSession(ctx, "nope")
	require.NoError(t, err)
	assert.False(t, found)
}

func TestSessionRecordsRefuseBadInput(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	t0 := time.Now()
	bad := []Session{
		{},
		{ID: "x", Repo: "r", WorkItem: "i", Harness: "h", StartedAt: t0},
		{ID: "x", Repo: "r", WorkItem: "i", Node: "n", StartedAt: t0},
		{ID: "x", Repo: "r", WorkItem: "i", Node: "n", Harness: "h"},
	}
	for _, b := range bad {
		assert.Error(t, s.StartSession(ctx, b))
	}
	ok := sessionFixture("s-1", "issue-1", t0)
	require.NoError(t, s.StartSession(ctx, ok))
	assert.Error(t, s.StartSession(ctx, ok), "an id is recorded once")
	assert.ErrorContains(t, s.FinishSession(ctx, Session{ID: "s-1", State: SessionRunning}), "not an end state")
	assert.ErrorContains(t, s.StartSession(ctx, sessionFixture("s-2", "issue-1", t0), Event{}), "Name is empty")
	assert.ErrorContains(t, s.UpdateSessionUsage(ctx, "s-1", SessionUsage{Tokens: -1}), "negative usage figures")
	assert.ErrorContains(t, s.UpdateSessionUsage(ctx, "s-1", SessionUsage{CostUSD: 1, CostSource: "guessed"}), `cost source "guessed" is not one of reported, estimated or unknown`)
	require.NoError(t, s.UpdateSessionUsage(ctx, "s-1", SessionUsage{CostUSD: 3}))
	got, _, err := s.GetSession(ctx, "s-1")
	require.NoError(t, err)
	assert.Zero(t, got.CostUSD, "a cost without a source is unknown and recorded as none")
	_, found, err := s.GetSession(ctx, "s-2")
	require.NoError(t, err)
	assert.False(t, found, "a refused event rolls the record back")
}

func TestListSessionsAndItemSpend(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for i, id := range []string{"a", "b", "c"} {
		item := "issue-7"
		if id == "c" {
			item = "issue-8"
		}
		// Whole and fractional seconds mixed: the order must still hold.
		require.NoError(t, s.StartSession(ctx, sessionFixture(id, item, t0.Add(time.Duration(i)*1500*time.Millisecond))))
	}
	end := sessionFixture("a", "issue-7", t0)
	end.State, end.EndedAt, end.Turns, end.Tokens, end.CostUSD, end.CostSource = SessionTimedOut, t0.Add(time.Minute), 4, 1000, 0.25, CostReported
	require.NoError(t, s.FinishSession(ctx, end))
	require.NoError(t, s.UpdateSessionUsage(ctx, "b", SessionUsage{Turns: 2, Tokens: 500, CostUSD: 0.10, CostSource: CostEstimated}))

	all, err := s.ListSessions(ctx, SessionFilter{})
	require.NoError(t, err)
	assert.Equal(t, []string{"c", "b", "a"}, ids(all), "newest first")
	item, err := s.ListSessions(ctx, SessionFilter{Repo: "octo/widgets", WorkItem: "issue-7"})
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "a"}, ids(item))
	running, err := s.ListSessions(ctx, SessionFilter{State: SessionRunning, Limit: 1})
	require.NoError(t, err)
	assert.Equal(t, []string{"c"}, ids(running))
	_, err = s.ListSessions(ctx, SessionFilter{WorkItem: "issue-7"})
	assert.ErrorContains(t, err, "needs its repo")

	sp, err := s.ItemSpend(ctx, "octo/widgets", "issue-7")
	require.NoError(t, err)
	assert.Equal(t, Spend{Sessions: 2, Turns: 6, Tokens: 1500, CostUSD: 0.35, WallSeconds: 60}, roundSpend(sp), "the wall time of the ended session")
	none, err := s.ItemSpend(ctx, "octo/widgets", "issue-99")
	require.NoError(t, err)
	assert.Equal(t, Spend{}, none)
}

func TestSpendByHarnessAndRepositoryWindow(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	record := func(id, item, harness string, started time.Time, u SessionUsage, wall time.Duration) {
		t.Helper()
		sess := sessionFixture(id, item, started)
		sess.Harness = harness
		require.NoError(t, s.StartSession(ctx, sess))
		sess.State, sess.EndedAt, sess.SessionUsage = SessionExited, started.Add(wall), u
		require.NoError(t, s.FinishSession(ctx, sess))
	}
	record("a", "issue-7", "claude", t0, SessionUsage{Turns: 4, Tokens: 1000, CostUSD: 0.5, CostSource: CostReported}, 90*time.Second)
	record("b", "issue-7", "codex", t0.Add(time.Hour), SessionUsage{Turns: 2, Tokens: 800}, 30*time.Second)
	record("c", "issue-7", "codex", t0.Add(2*time.Hour), SessionUsage{Turns: 1, Tokens: 200, CostUSD: 0.02, CostSource: CostEstimated}, 10*time.Second)
	record("d", "issue-8", "gemini", t0.Add(48*time.Hour), SessionUsage{Turns: 1, Tokens: 100, CostUSD: 0.01, CostSource: CostEstimated}, time.Second)

	by, err := s.ItemSpendByHarness(ctx, "octo/widgets", "issue-7")
	require.NoError(t, err)
	for i := range by {
		by[i] = roundSpend(by[i])
	}
	assert.Equal(t, []Spend{
		{Harness: "claude", Sessions: 1, Turns: 4, Tokens: 1000, CostUSD: 0.5, WallSeconds: 90},
		{Harness: "codex", Sessions: 2, Turns: 3, Tokens: 1000, CostUSD: 0.02, UnknownCost: 1, WallSeconds: 40},
	}, by, "a session of unknown cost adds nothing to the cost and is counted apart")

	all, err := s.RepoSpend(ctx, "octo/widgets", t0)
	require.NoError(t, err)
	assert.Equal(t, Spend{Sessions: 4, Turns: 8, Tokens: 2100, CostUSD: 0.53, UnknownCost: 1, WallSeconds: 131}, roundSpend(all))
	recent, err := s.RepoSpend(ctx, "octo/widgets", t0.Add(90*time.Minute))
	require.NoError(t, err)
	assert.Equal(t, Spend{Sessions: 2, Turns: 2, Tokens: 300, CostUSD: 0.03, WallSeconds: 11}, roundSpend(recent), "the window starts at since")
}

func roundSpend(sp Spend) Spend {
	sp.CostUSD = float64(int(sp.CostUSD*1000+0.5)) / 1000
	sp.WallSeconds = float64(int(sp.WallSeconds + 0.5))
	return sp
}

func ids(ss []Session) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.ID
	}
	return out
}

func TestOpenMigratesAVersion1StoreToSessions(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v1.db")
	rawExec(t, path, append(append([]string(nil), migrations[0].stmts...),
		`INSERT INTO work_items (repo, id, loop, current_node, updated_at) VALUES ('octo/widgets', 'issue-1', 'pdlc-work-item-loop', 'design', '2026-01-01T00:00:00Z')`,
		`PRAGMA user_version = 1`)...)
	s, err := Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	it, found, err := s.Get(ctx, "octo/widgets", "issue-1")
	require.NoError(t, err)
	require.True(t, found, "existing items survive the migration")
	assert.Equal(t, "design", it.CurrentNode)
	require.NoError(t, s.StartSession(ctx, sessionFixture("s-1", "issue-1", time.Now())))
}

func TestSessionsRecordThePullRequestTheyWork(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	own := sessionFixture("s-item", "issue-7", t0)
	pr := sessionFixture("s-pr", "issue-7", t0.Add(time.Minute))
	pr.PR, pr.PRRepo = 7, "octo/infra"
	require.NoError(t, s.StartSession(ctx, own))
	require.NoError(t, s.StartSession(ctx, pr))
	got, found, err := s.GetSession(ctx, "s-pr")
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, 7, got.PR)
	assert.Equal(t, "octo/infra", got.PRRepo)
	got, _, err = s.GetSession(ctx, "s-item")
	require.NoError(t, err)
	assert.Zero(t, got.PR, "the item's own loop")
	assert.Empty(t, got.PRRepo)

	for _, bad := range []struct {
		pr   int
		repo string
	}{{7, ""}, {0, "octo/infra"}, {-1, "octo/infra"}} {
		b := sessionFixture("s-bad", "issue-7", t0)
		b.PR, b.PRRepo = bad.pr, bad.repo
		assert.ErrorContains(t, s.StartSession(ctx, b), "must be set together", "pr %d repo %q", bad.pr, bad.repo)
	}
	sp, err := s.ItemSpend(ctx, "octo/widgets", "issue-7")
	require.NoError(t, err)
	assert.Equal(t, 2, sp.Sessions, "one budget covers the item and its pull requests")
}

func TestOpenMigratesAVersion7StoreToPullRequestSessions(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v7.db")
	var stmts []string
	for _, m := range migrations[:7] {
		stmts = append(stmts, m.stmts...)
	}
	stmts = append(stmts,
		`INSERT INTO sessions (id, repo, work_item, node, harness, started_at, state) VALUES ('s-old', 'octo/widgets', 'issue-1', 'design', 'claude', '2026-01-01T00:00:00Z', 'exited')`,
		`PRAGMA user_version = 7`)
	rawExec(t, path, stmts...)
	s, err := Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	got, found, err := s.GetSession(ctx, "s-old")
	require.NoError(t, err)
	require.True(t, found, "existing sessions survive the migration")
	assert.Zero(t, got.PR, "an earlier session worked its item's own loop")
	assert.Empty(t, got.PRRepo)
}

func TestSessionsRecordTheirConfinementAndTranscriptCut(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	sess := sessionFixture("s-1", "issue-7", t0)
	sess.Confinement = "user,pid,landlock"
	require.NoError(t, s.StartSession(ctx, sess))
	end := sess
	end.EndedAt, end.State, end.ExitStatus, end.TranscriptCut = t0.Add(time.Minute), SessionExited, "exit 0", 3<<20
	require.NoError(t, s.FinishSession(ctx, end))
	got, found, err := s.GetSession(ctx, "s-1")
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, "user,pid,landlock", got.Confinement)
	assert.Equal(t, int64(3<<20), got.TranscriptCut)

	path := filepath.Join(t.TempDir(), "v8.db")
	var stmts []string
	for _, m := range migrations[:8] {
		stmts = append(stmts, m.stmts...)
	}
	stmts = append(stmts,
		`INSERT INTO sessions (id, repo, work_item, node, harness, started_at, state) VALUES ('s-old', 'octo/widgets', 'issue-1', 'design', 'claude', '2026-01-01T00:00:00Z', 'exited')`,
		`PRAGMA user_version = 8`)
	rawExec(t, path, stmts...)
	old, err := Open(ctx, path)
	require.NoError(t, err)
	defer old.Close()
	got, found, err = old.GetSession(ctx, "s-old")
	require.NoError(t, err)
	require.True(t, found, "existing sessions survive migration 9")
	assert.Empty(t, got.Confinement, "an earlier session's confinement is unknown")
	assert.Zero(t, got.TranscriptCut)
}
