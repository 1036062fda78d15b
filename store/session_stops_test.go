package store

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSessionStopIsRecordedOnceAndApplied(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	stop := SessionStop{Session: "s-1", Repo: "octo/widgets", WorkItem: "issue-7", Node: "design", Reason: "taking it over", RequestedAt: t0}
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
	assert.JSONEq(t, `{"session":"s-1","reason":"taking it over"}`, string(evs[0].Data))

	assert.Error(t, s.RequestSessionStop(ctx, SessionStop{Session: "s-2", Repo: "octo/widgets", WorkItem: "issue-7"}), "node and time are required")
}
