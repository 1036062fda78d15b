package runtime

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// newLazyTimeout is context.WithTimeout for a callee that seldom waits on
// Done: the timer is armed by the first call to Done, so a call that never
// waits costs no timer. Deadline, Err, Value and context.Cause answer as
// for WithTimeout, and the standard library's children (WithCancel,
// AfterFunc, …) end when it does. Its cancel method ends it, as
// WithTimeout's CancelFunc does (a caller that defers c.cancel() makes no
// closure for it).
func newLazyTimeout(parent context.Context, d time.Duration) *deadlineContext {
	c := &deadlineContext{parent: parent, own: time.Now().Add(d)}
	c.deadline = c.own
	if pd, ok := parent.Deadline(); ok && pd.Before(c.own) {
		c.deadline = pd
	}
	return c
}

// deadlineContext is newLazyTimeout's context. Until it is armed or has
// ended it holds no timer: Err reads the parent and the clock.
type deadlineContext struct {
	parent   context.Context
	own      time.Time // now+timeout
	deadline time.Time // the earlier of own and the parent's deadline
	mu       sync.Mutex
	// state is nil while c is neither armed nor ended; once stored, a state
	// is never changed, only replaced (under mu) by one whose ctx is set.
	state atomic.Pointer[lazyState]
}

// lazyState is an armed context (ctx and cancel from
// context.WithDeadline) or one that ended before it was armed (err and
// cause fixed; ctx, made on demand, is already cancelled with cause).
type lazyState struct {
	ctx    context.Context
	cancel context.CancelFunc
	err    error
	cause  error
}

// The states of a context that ended, unarmed, by cancel or its deadline.
var (
	canceledState = &lazyState{err: context.Canceled, cause: context.Canceled}
	expiredState  = &lazyState{err: context.DeadlineExceeded, cause: context.DeadlineExceeded}
)

// Deadline is the earlier of the parent's deadline and now+timeout.
func (c *deadlineContext) Deadline() (time.Time, bool) { return c.deadline, true }

// Done arms the timer on its first call.
func (c *deadlineContext) Done() <-chan struct{} { return c.made().ctx.Done() }

// Err is the parent's error, else context.DeadlineExceeded once the
// deadline passed, else context.Canceled after cancel; once set, it stays.
func (c *deadlineContext) Err() error {
	s := c.state.Load()
	if s == nil {
		if c.parent.Err() == nil && time.Until(c.own) > 0 {
			return nil
		}
		s = c.end()
	}
	if s.cancel != nil {
		return s.ctx.Err()
	}
	if s.ctx == nil {
		// context.Cause asks Value next: it must find the cause.
		c.made()
	}
	return s.err
}

// Value is the parent's, except that the standard library finds the
// cancellation (and cause) of the armed or ended context.
func (c *deadlineContext) Value(key any) any {
	if s := c.state.Load(); s != nil && s.ctx != nil {
		return s.ctx.Value(key)
	}
	return c.parent.Value(key)
}

// cancel ends c, as WithTimeout's cancel does: with what ended it already
// (the parent or the deadline), else context.Canceled.
func (c *deadlineContext) cancel() {
	if s := c.end(); s.cancel != nil {
		s.cancel()
	}
}

// end returns c's state, first fixing the error of an unarmed c that has
// not ended yet (see cancel).
func (c *deadlineContext) end() *lazyState {
	if s := c.state.Load(); s != nil {
		return s
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.state.Load(); s != nil {
		return s
	}
	s := canceledState
	if err := c.parent.Err(); err != nil {
		s = &lazyState{err: err, cause: context.Cause(c.parent)}
	} else if time.Until(c.own) <= 0 {
		s = expiredState
	}
	c.state.Store(s)
	return s
}

// made returns c's state with its context made: armed with
// context.WithDeadline if c has not ended, else cancelled with its cause.
func (c *deadlineContext) made() *lazyState {
	if s := c.state.Load(); s != nil && s.ctx != nil {
		return s
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.state.Load()
	switch {
	case s == nil:
		ctx, cancel := context.WithDeadline(c.parent, c.own)
		s = &lazyState{ctx: ctx, cancel: cancel}
	case s.ctx == nil:
		ctx, cancel := context.WithCancelCause(context.WithoutCancel(c.parent))
		cancel(s.cause)
		s = &lazyState{ctx: ctx, err: s.err, cause: s.cause}
	default:
		return s
	}
	c.state.Store(s)
	return s
}
