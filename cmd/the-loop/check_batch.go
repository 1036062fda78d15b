package main

import (
	goruntime "runtime"
	"runtime/debug"
)

// itemsPerProcessor is the work check gives each processor it runs on: one
// processor for up to 256 items, another for every 256 more. On the
// 109-item corpus a second processor took one run from about 40 to 30 ms of
// waiting but cost a quarter more CPU (threads waking each other, the
// collector on both); at ten times the corpus it saves a third of the wait,
// which a person notices.
const itemsPerProcessor = 256

// processorsFor is how many of the available processors check runs on to
// evaluate items work items: one per itemsPerProcessor begun, at least one,
// at most available.
func processorsFor(items, available int) int {
	n := (items + itemsPerProcessor - 1) / itemsPerProcessor
	return max(1, min(n, available))
}

// batchProcessors is the hook that sizes this process's processors to the
// items check is about to evaluate, or nil when the command runs inside
// another program (a test) or GOMAXPROCS in the environment already says.
func batchProcessors(f *Factory) func(items int) {
	if !f.Process || f.Getenv("GOMAXPROCS") != "" {
		return nil
	}
	available := goruntime.GOMAXPROCS(0)
	return func(items int) { goruntime.GOMAXPROCS(processorsFor(items, available)) }
}

// tuneGCForBatch trades a little memory for speed in a short batch command:
// the collector runs half as often, under a soft 48 MiB ceiling. At 400 the
// one-corpus run peaked 8 MiB higher for no measurable CPU gain (bench/check.sh
// prints both). GOGC and GOMEMLIMIT in the environment win.
func tuneGCForBatch(f *Factory) {
	if f.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if f.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(48 << 20)
	}
}
