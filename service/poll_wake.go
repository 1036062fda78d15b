package service

import (
	"context"
	"fmt"

	"github.com/the-loop/the-loop/store"
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

// StoreWaker is the Waker of the pollers in other processes: it posts the
// wake through the store they share (store.Waker), which every poller on
// it listens to — on this machine through SQLite, on others through
// PostgreSQL's NOTIFY. The poller holding the item's lease acts on it.
type StoreWaker struct {
	// Store is the state database the pollers share.
	Store *store.Handle
}

// Wake implements Waker.
func (w StoreWaker) Wake(ctx context.Context, ref string) error {
	st, err := w.Store.Writable(ctx)
	if err != nil {
		return fmt.Errorf("wake the poller: %w", err)
	}
	return st.Wake(ctx, ref)
}
