package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/store"
)

func sessionsService(t *testing.T) (*Service, *store.Store, string) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "state.db")
	h := store.NewHandle(db)
	svc := testService(t, config.Default(), Deps{Store: h, Clock: func() time.Time { return time.Date(2026, 5, 1, 9, 10, 0, 0, time.UTC) }})
	st, err := h.Writable(context.Background())
	require.NoError(t, err)
	dir := t.TempDir()
	transcript := filepath.Join(dir, "transcript.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte("{\"type\":\"system\"}\n{\"type\":\"assistant\"}\n{\"type\":\"result\"}\n"), 0o600))
	rec := store.Session{ID: "s-1", Repo: "/trees/issue-7", WorkItem: "issue-7", Node: "design", Harness: "claude", Argv: []string{"claude", "-p"},
		Attempt: 1, StartedAt: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC), Transcript: transcript, SessionUsage: store.SessionUsage{HarnessSession: "abc"}}
	require.NoError(t, st.StartSession(context.Background(), rec))
	return svc, st, transcript
}

func TestSessionVerbsReadTheRecords(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := sessionsService(t)
	list, err := svc.Sessions(ctx, SessionsRequest{WorkItem: "issue-7"})
	require.NoError(t, err)
	require.Len(t, list.Sessions, 1)
	assert.Equal(t, "running", list.Sessions[0].State)
	none, err := svc.Sessions(ctx, SessionsRequest{WorkItem: "issue-8"})
	require.NoError(t, err)
	assert.Empty(t, none.Sessions)
	_, err = svc.Sessions(ctx, SessionsRequest{State: "sleeping"})
	assert.ErrorIs(t, err, ErrInvalidRequest)
	assert.ErrorContains(t, err, `state "sleeping" is not one of running, exited`)

	show, err := svc.SessionShow(ctx, SessionRequest{Session: "s-1"})
	require.NoError(t, err)
	assert.Equal(t, "design", show.Session.Node)
	_, err = svc.SessionShow(ctx, SessionRequest{Session: "s-404"})
	assert.ErrorIs(t, err, ErrInvalidRequest)
	assert.ErrorContains(t, err, "session s-404: no such session")

	logs, err := svc.SessionLogs(ctx, SessionLogsRequest{Session: "s-1", Lines: 2})
	require.NoError(t, err)
	assert.Equal(t, []string{`{"type":"assistant"}`, `{"type":"result"}`}, logs.Lines)
	assert.True(t, logs.Truncated)
	errs, err := svc.SessionLogs(ctx, SessionLogsRequest{Session: "s-1", Stderr: true})
	require.NoError(t, err)
	assert.Empty(t, errs.Lines)
	assert.Contains(t, errs.Warnings[0], "stderr.log does not exist")
}

func TestSessionStopIsRecordedAndNeedsAReason(t *testing.T) {
	ctx := context.Background()
	svc, st, _ := sessionsService(t)
	_, err := svc.SessionStop(ctx, SessionStopRequest{Session: "s-1"})
	assert.ErrorIs(t, err, ErrInvalidRequest)
	assert.ErrorContains(t, err, "give --reason")

	res, err := svc.SessionStop(ctx, SessionStopRequest{Session: "s-1", Reason: "taking it over", Actor: "carol"})
	require.NoError(t, err)
	assert.False(t, res.Applied, "no supervisor in this process: the poller applies it")
	assert.Regexp(t, "^stop of s-1 requested: the poller \\(or `the-loop run`\\) stops it within one cycle\\. "+
		"issue-7 is taken over on design: operator carol stopped session s-1 \\(taking it over, [0-9T:Z-]+\\)\\. "+
		"While it is held there the loop launches no session for it; a human works design and claims it "+
		"\\(`the-loop graph complete issue-7`\\), and the hold lifts once the item moves on$", res.Message)
	stops, err := st.SessionStops(ctx)
	require.NoError(t, err)
	require.Len(t, stops, 1)
	assert.Equal(t, "design", stops[0].Node)
	assert.Equal(t, "carol", stops[0].By, "the hold names who asked")

	rec, _, err := st.GetSession(ctx, "s-1")
	require.NoError(t, err)
	rec.State, rec.EndedAt, rec.ExitStatus = store.SessionStopped, time.Now(), "killed by SIGTERM"
	require.NoError(t, st.FinishSession(ctx, rec))
	_, err = svc.SessionStop(ctx, SessionStopRequest{Session: "s-1", Reason: "again"})
	assert.ErrorContains(t, err, "session s-1 is not running (it is stopped")
}

func TestGraphStatusCarriesASessionsLine(t *testing.T) {
	ctx := context.Background()
	svc, st, _ := sessionsService(t)
	assert.Equal(t, "s-1 running on design for 10m0s (attempt 1, claude; 0 turns, 0 tokens, cost unknown)", svc.sessionLine(ctx, st, "/trees/issue-7", "issue-7"),
		"no cost reported yet: unknown, never $0.00")
	require.NoError(t, st.UpdateSessionUsage(ctx, "s-1", store.SessionUsage{Turns: 3, Tokens: 1200, CostUSD: 0.0123, CostSource: store.CostEstimated}))
	assert.Equal(t, "s-1 running on design for 10m0s (attempt 1, claude; 3 turns, 1200 tokens, $0.01 (estimated))", svc.sessionLine(ctx, st, "/trees/issue-7", "issue-7"))
	assert.Equal(t, "none launched", svc.sessionLine(ctx, st, "/trees/issue-8", "issue-8"))
	assert.Equal(t, "none launched", svc.sessionLine(ctx, nil, "/trees/issue-7", "issue-7"), "no store yet: nothing was ever launched")
}

// A mistyped session id, state or item gets the nearest recorded ones.
func TestSessionVerbsSuggestTheNearest(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := sessionsService(t)
	tests := []struct {
		name string
		call func() error
		says string
	}{
		{"show", func() error { _, err := svc.SessionShow(ctx, SessionRequest{Session: "s-2"}); return err },
			`session s-2: no such session; did you mean "s-1"?`},
		{"logs", func() error { _, err := svc.SessionLogs(ctx, SessionLogsRequest{Session: "S-1"}); return err },
			`did you mean "s-1"?`},
		{"stop", func() error {
			_, err := svc.SessionStop(ctx, SessionStopRequest{Session: "s-11", Reason: "x"})
			return err
		}, `did you mean "s-1"?`},
		{"nothing near", func() error { _, err := svc.SessionShow(ctx, SessionRequest{Session: "zzzzzz"}); return err },
			"session zzzzzz: no such session; the-loop sessions list shows the recorded ones"},
		{"a state", func() error { _, err := svc.Sessions(ctx, SessionsRequest{State: "runing"}); return err },
			`state "runing" is not one of running, exited, stopped, timed_out, over_budget, lost; did you mean "running"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			assert.ErrorIs(t, err, ErrInvalidRequest)
			assert.Contains(t, err.Error(), tt.says)
		})
	}

	list, err := svc.Sessions(ctx, SessionsRequest{WorkItem: "isue-7"})
	require.NoError(t, err)
	assert.Empty(t, list.Sessions)
	assert.Equal(t, []string{`no session was ever launched for isue-7; did you mean "issue-7"?`}, list.Warnings)
	list, err = svc.Sessions(ctx, SessionsRequest{WorkItem: "issue-7"})
	require.NoError(t, err)
	assert.Empty(t, list.Warnings, "no hint when the item has sessions")
}
