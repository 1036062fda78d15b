//go:build !linux

package service

import (
	"context"
	"errors"
)

// Wake implements Waker: only on Linux.
func (p PollerSignal) Wake(context.Context, string) error {
	return errors.New("wake the poller: a signal wake is built for Linux only; the next sweep evaluates the item")
}
