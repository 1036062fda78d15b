package main

import (
	"io"
	goruntime "runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestProcessorsForScalesWithTheWork(t *testing.T) {
	cases := []struct {
		items, available, want int
	}{
		{0, 4, 1},
		{1, 4, 1},
		{109, 2, 1}, // the corpus: one processor
		{itemsPerProcessor, 8, 1},
		{itemsPerProcessor + 1, 8, 2},
		{1090, 2, 2}, // ten corpora: every processor there is
		{1090, 8, 5},
		{10900, 8, 8},
		{10900, 1, 1},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, processorsFor(tc.items, tc.available), "%d items on %d processors", tc.items, tc.available)
	}
}

// Only the process's own check sizes its processors, and GOMAXPROCS in the
// environment wins.
func TestBatchProcessorsLeavesAHostAndTheEnvironmentAlone(t *testing.T) {
	env := func(vars map[string]string, process bool) *Factory {
		return newFactory(&Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(k string) string { return vars[k] }, Process: process})
	}
	assert.Nil(t, batchProcessors(env(nil, false)), "a check run inside another program")
	assert.Nil(t, batchProcessors(env(map[string]string{"GOMAXPROCS": "3"}, true)), "GOMAXPROCS set")

	before := goruntime.GOMAXPROCS(0)
	t.Cleanup(func() { goruntime.GOMAXPROCS(before) })
	size := batchProcessors(env(nil, true))
	if assert.NotNil(t, size) {
		size(1)
		assert.Equal(t, 1, goruntime.GOMAXPROCS(0))
		size(100 * itemsPerProcessor)
		assert.Equal(t, before, goruntime.GOMAXPROCS(0), "never more than the process had")
	}
}
