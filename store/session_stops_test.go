package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSessionStopIsRecordedOnceAndApplied(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	stop := SessionStop{Session: "s-1", Repo: "octo/widgets", WorkItem: "issue-7", Node: "design", Reason: "taking it over", By: "carol", RequestedAt: t0}
	require.NoError(t, s.RequestSessionStop(ctx, stop))
	assert.ErrorIs(t, s.RequestSessionStop(ctx, stop), ErrStopRequested, "a second request for one session is refused")

	got, err := s.SessionStops(ctx)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, stop, got[0])

	require.NoError(t, s.MarkSessionStopApplied(ctx, "s-1", t0.Add(time.Minute)))
	require.NoError(t, s.MarkSessionStopApplied(ctx, "s-1", t0.Add(time.Hour)), "applying twice keeps the first time")
	got, err = s.SessionStops(ctx)
	require.NoError(t, err)
	assert.Equal(t, t0.Add(time.Minute), got[0].AppliedAt)

	evs, err := s.Events(ctx, "octo/widgets", "issue-7")
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, "session.stop_requested", evs[0].Name)
	assert.JSONEq(t, `{"session":"s-1","reason":"taking it over","by":"carol"}`, string(evs[0].Data))

	assert.Error(t, s.RequestSessionStop(ctx, SessionStop{Session: "s-2", Repo: "octo/widgets", WorkItem: "issue-7"}), "node and time are required")
}

// A version 6 store keeps its stop requests across migration 7, which
// adds who asked (empty for the old rows).
func TestOpenMigratesAVersion6StoreToStopRequesters(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v6.db")
	var stmts []string
	for _, m := range migrations[:6] {
		stmts = append(stmts, m.stmts...)
	}
	stmts = append(stmts,
		`INSERT INTO session_stops (session, repo, work_item, node, reason, requested_at) VALUES ('s-1', 'octo/widgets', 'issue-7', 'design', 'by hand', '2026-03-01T10:00:00Z')`,
		`PRAGMA user_version = 6`)
	rawExec(t, path, stmts...)
	s, err := Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	got, err := s.SessionStops(ctx)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "by hand", got[0].Reason)
	assert.Equal(t, "", got[0].By)
	require.NoError(t, s.RequestSessionStop(ctx, SessionStop{Session: "s-2", Repo: "octo/widgets", WorkItem: "issue-7", Node: "design",
		Reason: "again", By: "carol", RequestedAt: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)}))
	got, err = s.SessionStops(ctx)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "carol", got[1].By)
}
