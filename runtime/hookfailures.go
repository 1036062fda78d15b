package runtime

import (
	"context"
	"sync/atomic"
)

type hookFailuresKey struct{}

// WatchHookFailures returns ctx carrying a watch, and a function that
// reports whether a hook evaluated under it failed to run: it panicked,
// returned an error or an unknown status, overran its budget or called an
// operation its entry does not declare. The block such a failure yields
// may not recur with nothing changed, so a caller that keeps verdicts does
// not keep it.
func WatchHookFailures(ctx context.Context) (context.Context, func() bool) {
	var failed atomic.Bool
	return context.WithValue(ctx, hookFailuresKey{}, &failed), failed.Load
}

// noteHookFailure tells the watch in ctx, if any, that a hook failed.
func noteHookFailure(ctx context.Context) {
	if ctx == nil {
		return
	}
	if f, ok := ctx.Value(hookFailuresKey{}).(*atomic.Bool); ok {
		f.Store(true)
	}
}
