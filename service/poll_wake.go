package service

import (
	"context"
	"errors"
)

// WakeChan is the Waker of a poller in this process: each Wake is a
// receive on the poller's Wake channel (a burst of them is one cycle).
type WakeChan chan struct{}

// Wake implements Waker.
func (c WakeChan) Wake(context.Context, string) error {
	select {
	case c <- struct{}{}:
	default: // a cycle is already due
	}
	return nil
}

// ErrNoPoller reports a wake with no poller running on the store: the
// item is evaluated by the poller's first cycle once it starts.
var ErrNoPoller = errors.New("no poller is running on this store")

// PollerSignal is the Waker of a poller in another process on this
// machine, on the same store: it sends the poller SIGUSR1 (which runs its
// next cycle at once). The poller is the process that holds the poll lock
// beside the store (checked in the kernel's lock table, so a stale pid
// left in the lock file is never signalled). Linux only; elsewhere a wake
// fails and the sweep evaluates the item.
type PollerSignal struct {
	// DBPath is the store's path.
	DBPath string
}
