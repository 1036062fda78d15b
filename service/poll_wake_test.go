package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A wake runs the next cycle at once, long before the interval.
func TestAWakeRunsTheNextCycleAtOnce(t *testing.T) {
	status := filepath.Join(t.TempDir(), "poll-status.json")
	wake := make(chan struct{}, 1)
	p := &Poller{Svc: testService(t, nil, Deps{}), StatusPath: status, Wake: wake}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx, time.Hour) }()
	defer func() { cancel(); require.NoError(t, <-done) }()

	// Each cycle replaces the heartbeat: a new file, a new time.
	written := func() time.Time {
		fi, err := os.Stat(status)
		if err != nil {
			return time.Time{}
		}
		return fi.ModTime()
	}
	require.Eventually(t, func() bool { return !written().IsZero() }, 10*time.Second, 5*time.Millisecond, "the first cycle runs at start")
	first := written()
	wake <- struct{}{}
	require.Eventually(t, func() bool { return !written().Equal(first) }, 10*time.Second, 5*time.Millisecond, "a wake runs a cycle within the hour's interval")
}
