package runtime

import (
	"context"
	"testing"
	"time"
)

// BenchmarkHookTimeout compares a timeout per hook call as callHook makes it:
// context.WithTimeout, the lazy context never asked for Done (a read-only
// hook's usual case) and the lazy context armed by Done.
func BenchmarkHookTimeout(b *testing.B) {
	parent, _ := WatchHookFailures(context.Background())
	run := func(b *testing.B, make func(context.Context, time.Duration) (context.Context, context.CancelFunc), arm bool) {
		b.ReportAllocs()
		for b.Loop() {
			ctx, cancel := make(parent, DefaultHookTimeout)
			if arm {
				ctx.Done()
			}
			cancel()
		}
	}
	b.Run("WithTimeout", func(b *testing.B) { run(b, context.WithTimeout, false) })
	b.Run("lazy", func(b *testing.B) { run(b, withLazyTimeout, false) })
	b.Run("lazy armed", func(b *testing.B) { run(b, withLazyTimeout, true) })
}

// BenchmarkReadOnlyChain is a check-like chain: twenty read-only hooks that
// never look at their context.
func BenchmarkReadOnlyChain(b *testing.B) {
	chain := make([]ChainEntry, 20)
	for i := range chain {
		chain[i] = entry("h", passHook(nil))
	}
	parent, _ := WatchHookFailures(context.Background())
	b.ReportAllocs()
	for b.Loop() {
		RunChain(chain, &HookContext{ReadOnly: true, Context: parent}, 0)
	}
}
