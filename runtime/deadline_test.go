package runtime

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// patience bounds every wait on a timer in these tests: generous, so a
// loaded machine never fails them.
const patience = 5 * time.Second

var errShutdown = errors.New("shutting down")

type timeoutMaker struct {
	name string
	// neverArmed: the test must not call Done before its assertions.
	neverArmed bool
	make       func(context.Context, time.Duration) (context.Context, context.CancelFunc)
}

// timeoutMakers are context.WithTimeout and the lazy context, never armed
// and armed at once: all three must answer alike.
var timeoutMakers = []timeoutMaker{
	{name: "context.WithTimeout", make: context.WithTimeout},
	{name: "lazy, never armed", neverArmed: true, make: withLazyTimeout},
	{name: "lazy, armed at once", make: func(p context.Context, d time.Duration) (context.Context, context.CancelFunc) {
		ctx, cancel := withLazyTimeout(p, d)
		ctx.Done()
		return ctx, cancel
	}},
}

// timeoutEnv is one context under test with its parent's cancel.
type timeoutEnv struct {
	t            *testing.T
	m            timeoutMaker
	ctx          context.Context
	cancel       context.CancelFunc
	cancelParent context.CancelCauseFunc
}

func newTimeoutEnv(t *testing.T, m timeoutMaker, timeout, parentTimeout time.Duration) *timeoutEnv {
	parent, cancelParent := context.WithCancelCause(context.Background())
	t.Cleanup(func() { cancelParent(nil) })
	if parentTimeout > 0 {
		var cancel context.CancelFunc
		parent, cancel = context.WithTimeout(parent, parentTimeout)
		t.Cleanup(cancel)
	}
	ctx, cancel := m.make(parent, timeout)
	t.Cleanup(cancel)
	return &timeoutEnv{t: t, m: m, ctx: ctx, cancel: cancel, cancelParent: cancelParent}
}

// expire waits until the context has seen its deadline pass: on Done, or,
// for one never armed, by asking Err, which must not need a timer.
func (e *timeoutEnv) expire() {
	e.t.Helper()
	if e.m.neverArmed {
		for start := time.Now(); e.ctx.Err() == nil; time.Sleep(time.Millisecond) {
			require.Less(e.t, time.Since(start), patience, "Err never reported the deadline")
		}
		return
	}
	waitClosed(e.t, e.ctx.Done(), "Done")
}

// sleepPast lets the deadline pass without asking the context anything.
func (e *timeoutEnv) sleepPast() {
	dl, ok := e.ctx.Deadline()
	require.True(e.t, ok)
	time.Sleep(time.Until(dl) + 5*time.Millisecond)
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(patience):
		t.Fatalf("%s was not closed within %s", what, patience)
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestLazyTimeoutDeadlineIsTheEarlierOfTheParentsAndItsOwn(t *testing.T) {
	const own = time.Hour
	tests := []struct {
		name   string
		parent time.Duration // 0: the parent has no deadline
		want   string        // "own" or "parent"
	}{
		{"parent without a deadline", 0, "own"},
		{"parent's deadline is earlier", time.Minute, "parent"},
		{"parent's deadline is later", 2 * time.Hour, "own"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := context.Background()
			if tt.parent > 0 {
				var cancel context.CancelFunc
				parent, cancel = context.WithTimeout(parent, tt.parent)
				defer cancel()
			}
			before := time.Now()
			ctx, cancel := withLazyTimeout(parent, own)
			after := time.Now()
			defer cancel()
			dl, ok := ctx.Deadline()
			require.True(t, ok)
			if tt.want == "parent" {
				pdl, _ := parent.Deadline()
				assert.Equal(t, pdl, dl)
				return
			}
			assert.False(t, dl.Before(before.Add(own)), "%v is before now+timeout", dl)
			assert.False(t, dl.After(after.Add(own)), "%v is after now+timeout", dl)
		})
	}
}

// TestLazyTimeoutAnswersAsWithTimeout runs each sequence of events against
// context.WithTimeout and the lazy context, armed or not, and expects the
// same Err, Cause and Done from all of them.
func TestLazyTimeoutAnswersAsWithTimeout(t *testing.T) {
	const short = 20 * time.Millisecond
	tests := []struct {
		name            string
		timeout, parent time.Duration // parent: the parent's own timeout, if any
		events          func(*timeoutEnv)
		wantErr         error
		wantCause       error
	}{
		{name: "live", timeout: time.Hour, events: func(*timeoutEnv) {}},
		{name: "the deadline passes", timeout: short, events: (*timeoutEnv).expire,
			wantErr: context.DeadlineExceeded, wantCause: context.DeadlineExceeded},
		{name: "the parent's earlier deadline passes", timeout: time.Hour, parent: short, events: (*timeoutEnv).expire,
			wantErr: context.DeadlineExceeded, wantCause: context.DeadlineExceeded},
		{name: "cancelled", timeout: time.Hour, events: func(e *timeoutEnv) { e.cancel() },
			wantErr: context.Canceled, wantCause: context.Canceled},
		{name: "cancelled twice", timeout: time.Hour, events: func(e *timeoutEnv) { e.cancel(); e.cancel() },
			wantErr: context.Canceled, wantCause: context.Canceled},
		{name: "the parent is cancelled with a cause", timeout: time.Hour, events: func(e *timeoutEnv) { e.cancelParent(errShutdown) },
			wantErr: context.Canceled, wantCause: errShutdown},
		{name: "cancelled, then the parent", timeout: time.Hour, events: func(e *timeoutEnv) { e.cancel(); e.cancelParent(errShutdown) },
			wantErr: context.Canceled, wantCause: context.Canceled},
		{name: "the parent, then cancelled", timeout: time.Hour, events: func(e *timeoutEnv) { e.cancelParent(errShutdown); e.cancel() },
			wantErr: context.Canceled, wantCause: errShutdown},
		{name: "the deadline passes, then the parent is cancelled", timeout: short,
			events:  func(e *timeoutEnv) { e.expire(); e.cancelParent(errShutdown) },
			wantErr: context.DeadlineExceeded, wantCause: context.DeadlineExceeded},
		{name: "the deadline passes, then cancelled", timeout: short, events: func(e *timeoutEnv) { e.expire(); e.cancel() },
			wantErr: context.DeadlineExceeded, wantCause: context.DeadlineExceeded},
		{name: "cancelled, then the deadline passes", timeout: short, events: func(e *timeoutEnv) { e.cancel(); e.sleepPast() },
			wantErr: context.Canceled, wantCause: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, m := range timeoutMakers {
				t.Run(m.name, func(t *testing.T) {
					e := newTimeoutEnv(t, m, tt.timeout, tt.parent)
					tt.events(e)
					assert.Equal(t, tt.wantErr, e.ctx.Err(), "Err")
					assert.Equal(t, tt.wantCause, context.Cause(e.ctx), "Cause")
					assert.Equal(t, tt.wantErr, e.ctx.Err(), "Err, asked again")
					done := e.ctx.Done()
					assert.Equal(t, done, e.ctx.Done(), "Done returns one channel")
					assert.Equal(t, tt.wantErr != nil, isClosed(done), "Done is closed exactly when Err is set")
					if tt.wantErr == nil {
						return
					}
					e.cancelParent(errors.New("too late"))
					e.cancel()
					assert.Equal(t, tt.wantErr, e.ctx.Err(), "Err, once set, does not change")
					assert.Equal(t, tt.wantCause, context.Cause(e.ctx), "Cause, once set, does not change")
				})
			}
		})
	}
}

// What the lazy context saw last is what it reports when nobody watched the
// events in between: a deadline nobody noticed loses to the parent's
// cancellation, and cancel reports a deadline that has passed, as
// WithTimeout's cancel does once its timer has fired.
func TestLazyTimeoutUnwatchedEvents(t *testing.T) {
	tests := []struct {
		name      string
		events    func(*timeoutEnv)
		wantErr   error
		wantCause error
	}{
		{"the deadline passes unseen, then the parent is cancelled",
			func(e *timeoutEnv) { e.sleepPast(); e.cancelParent(errShutdown) }, context.Canceled, errShutdown},
		{"the deadline passes unseen, then cancelled",
			func(e *timeoutEnv) { e.sleepPast(); e.cancel() }, context.DeadlineExceeded, context.DeadlineExceeded},
		{"the parent is cancelled unseen, then cancelled",
			func(e *timeoutEnv) { e.cancelParent(errShutdown); e.cancel() }, context.Canceled, errShutdown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTimeoutEnv(t, timeoutMakers[1], 20*time.Millisecond, 0)
			tt.events(e)
			assert.Equal(t, tt.wantErr, e.ctx.Err())
			assert.Equal(t, tt.wantCause, context.Cause(e.ctx))
			assert.True(t, isClosed(e.ctx.Done()))
		})
	}
}

// TestLazyTimeoutChildren: children made with the standard library, before
// or after the context ends, end with it and with its cause, as children of
// WithTimeout do.
func TestLazyTimeoutChildren(t *testing.T) {
	type child struct {
		done <-chan struct{}
		ctx  context.Context // nil for AfterFunc
	}
	kinds := []struct {
		name string
		make func(t *testing.T, parent context.Context) child
	}{
		{"WithCancel", func(t *testing.T, p context.Context) child {
			c, cancel := context.WithCancel(p)
			t.Cleanup(cancel)
			return child{c.Done(), c}
		}},
		{"WithTimeout, longer", func(t *testing.T, p context.Context) child {
			c, cancel := context.WithTimeout(p, time.Hour)
			t.Cleanup(cancel)
			return child{c.Done(), c}
		}},
		{"WithValue", func(t *testing.T, p context.Context) child {
			c := context.WithValue(p, hookFailuresKey{}, "v")
			return child{c.Done(), c}
		}},
		{"AfterFunc", func(t *testing.T, p context.Context) child {
			ran := make(chan struct{})
			context.AfterFunc(p, func() { close(ran) })
			return child{done: ran}
		}},
	}
	triggers := []struct {
		name      string
		timeout   time.Duration
		fire      func(*timeoutEnv)
		wantErr   error
		wantCause error
	}{
		{"deadline", 20 * time.Millisecond, (*timeoutEnv).expire, context.DeadlineExceeded, context.DeadlineExceeded},
		{"cancel", time.Hour, func(e *timeoutEnv) { e.cancel() }, context.Canceled, context.Canceled},
		{"parent cancelled with a cause", time.Hour, func(e *timeoutEnv) { e.cancelParent(errShutdown) }, context.Canceled, errShutdown},
	}
	for _, m := range timeoutMakers {
		for _, tr := range triggers {
			for _, k := range kinds {
				for _, after := range []bool{false, true} {
					name := m.name + "/" + tr.name + "/" + k.name + "/made before"
					if after {
						name = m.name + "/" + tr.name + "/" + k.name + "/made after"
					}
					t.Run(name, func(t *testing.T) {
						e := newTimeoutEnv(t, m, tr.timeout, 0)
						var c child
						if !after {
							c = k.make(t, e.ctx)
							assert.False(t, isClosed(c.done), "ended before its parent")
						}
						tr.fire(e)
						if after {
							c = k.make(t, e.ctx)
						} else if c.ctx != nil && tr.timeout == time.Hour {
							assert.Error(t, c.ctx.Err(), "a child learns of a cancellation at once")
						}
						waitClosed(t, c.done, "the child's Done")
						if c.ctx != nil {
							assert.Equal(t, tr.wantErr, c.ctx.Err())
							assert.Equal(t, tr.wantCause, context.Cause(c.ctx))
						}
					})
				}
			}
		}
	}
}

func TestLazyTimeoutWithoutCancelKeepsValuesOnly(t *testing.T) {
	for _, m := range timeoutMakers {
		t.Run(m.name, func(t *testing.T) {
			parent := context.WithValue(context.Background(), hookFailuresKey{}, "v")
			ctx, cancel := m.make(parent, time.Hour)
			detached := context.WithoutCancel(ctx)
			cancel()
			require.Error(t, ctx.Err())
			assert.Equal(t, "v", ctx.Value(hookFailuresKey{}), "the context's values are its parent's")
			assert.Equal(t, "v", detached.Value(hookFailuresKey{}))
			assert.Nil(t, detached.Done())
			assert.NoError(t, detached.Err())
			assert.NoError(t, context.Cause(detached))
			_, ok := detached.Deadline()
			assert.False(t, ok)
		})
	}
}

func TestLazyTimeoutAfterFuncStops(t *testing.T) {
	ctx, cancel := withLazyTimeout(context.Background(), time.Hour)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { t.Error("ran after it was stopped") })
	assert.True(t, stop())
	cancel()
	assert.False(t, stop())
}

// A hook waiting on its context is stopped by the timeout on both paths, and
// the context a hook kept is cancelled once the hook returned, as before.
func TestAHookWaitingOnItsContextTimesOut(t *testing.T) {
	for _, readOnly := range []bool{true, false} {
		var kept context.Context
		waits := func(hc *HookContext) (Result, error) {
			kept = hc.Context
			_, ok := hc.Context.Deadline()
			assert.True(t, ok, "the hook's context has a deadline")
			assert.Equal(t, "v", hc.Context.Value(hookFailuresKey{}), "the hook sees its caller's values")
			select {
			case <-hc.Context.Done():
			case <-time.After(patience):
				t.Error("the hook's context was never cancelled")
			}
			return OK("", nil), nil
		}
		parent := context.WithValue(context.Background(), hookFailuresKey{}, "v")
		oc := RunChain([]ChainEntry{entry("waits", waits)}, &HookContext{ReadOnly: readOnly, Context: parent}, 20*time.Millisecond)
		require.NotNil(t, oc.Blocking, "read-only %v", readOnly)
		assert.False(t, oc.Blocking.Retriable)
		assert.Contains(t, oc.Blocking.Render(), "timed out")
		require.NotNil(t, kept)
		assert.Equal(t, context.DeadlineExceeded, kept.Err())

		fast := func(hc *HookContext) (Result, error) { kept = hc.Context; return OK("", nil), nil }
		oc = RunChain([]ChainEntry{entry("fast", fast)}, &HookContext{ReadOnly: readOnly}, time.Hour)
		assert.Equal(t, Pass, oc.Status)
		assert.Equal(t, context.Canceled, kept.Err(), "a kept context is cancelled after the call (read-only %v)", readOnly)
		assert.True(t, isClosed(kept.Done()))
	}
}

// Done, Err, Cause, Value and cancel may race; run with -race.
func TestLazyTimeoutConcurrentUse(t *testing.T) {
	for range 50 {
		parent, cancelParent := context.WithCancelCause(context.Background())
		ctx, cancel := withLazyTimeout(parent, time.Millisecond)
		errs := make(chan error, 4)
		var chans [2]<-chan struct{}
		finished := make(chan struct{})
		go func() { chans[0] = ctx.Done(); finished <- struct{}{} }()
		go func() { chans[1] = ctx.Done(); finished <- struct{}{} }()
		go func() { cancel(); errs <- ctx.Err() }()
		go func() { cancel(); errs <- context.Cause(ctx) }()
		go func() { cancelParent(errShutdown); errs <- ctx.Err() }()
		go func() { _ = ctx.Value(hookFailuresKey{}); errs <- ctx.Err() }()
		<-finished
		<-finished
		for range 4 {
			<-errs
		}
		assert.Equal(t, chans[0], chans[1], "one Done channel")
		waitClosed(t, chans[0], "Done")
		err := ctx.Err()
		require.Error(t, err)
		assert.Equal(t, err, ctx.Err())
		assert.Equal(t, context.Cause(ctx), context.Cause(ctx))
	}
}

// withLazyTimeout is newLazyTimeout shaped as context.WithTimeout, so each
// test can run the same events against both.
func withLazyTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	c := newLazyTimeout(parent, d)
	return c, c.cancel
}
