package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/store"
	"github.com/the-loop/the-loop/store/storetest"
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

// A wake posted to the store by another process (another handle on the
// same store: a webhook receiver, another poller) runs the next cycle at
// once, on SQLite (a polled table) and on PostgreSQL (NOTIFY).
func TestAStoreWakeFromAnotherProcessRunsTheNextCycle(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			loc := filepath.Join(t.TempDir(), "state.db")
			if backend == "postgres" {
				loc = storetest.TempPostgres(t)
			}
			status := filepath.Join(t.TempDir(), "poll-status.json")
			p := &Poller{Svc: testService(t, nil, Deps{Store: store.NewHandle(loc)}), StatusPath: status}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- p.Run(ctx, time.Hour) }()
			defer func() { cancel(); require.NoError(t, <-done) }()

			written := func() time.Time {
				fi, err := os.Stat(status)
				if err != nil {
					return time.Time{}
				}
				return fi.ModTime()
			}
			require.Eventually(t, func() bool { return !written().IsZero() }, 10*time.Second, 5*time.Millisecond, "the first cycle runs at start")
			first := written()
			other, err := store.Open(context.Background(), loc)
			require.NoError(t, err)
			defer func() { _ = other.Close() }()
			time.Sleep(50 * time.Millisecond) // the listener is up before the wake
			require.NoError(t, other.Wake(context.Background(), "github:octo/widgets#7"))
			require.Eventually(t, func() bool { return !written().Equal(first) }, 10*time.Second, 5*time.Millisecond,
				"a wake from another process runs a cycle within the hour's interval")
		})
	}
}
