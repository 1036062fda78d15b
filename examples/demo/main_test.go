package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/testbin"
)

// demoNoise are what differs from one run of the demo to the next: the
// time of day, ports, directories, session ids, durations, commit hashes
// (the branch's log, the head CI failed on) and whether a session ended by
// itself or was relieved by the next assignment.
var demoNoise = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`^\d\d:\d\d:\d\d  `), "TIME  "},
	{regexp.MustCompile(`http://127\.0\.0\.1:\d+/`), "http://127.0.0.1:PORT/"},
	{regexp.MustCompile(`\S*/the-loop-demo-\d+`), "DIR"},
	{regexp.MustCompile(`\bs-[0-9a-f]{16}\b`), "SESSION"},
	{regexp.MustCompile(`ended: (exited|stopped) `), "ended: ENDED "},
	{regexp.MustCompile(`in (\d+h)?(\d+m)?\d+s \((\d+h)?(\d+m)?\d+s in all\)`), "in Ns (Ns in all)"},
	{regexp.MustCompile(`^  [0-9a-f]{7,} `), "  HASH "},
	{regexp.MustCompile(`\bon [0-9a-f]{7}\b`), "on HASH"},
}

func normalize(line string) string {
	for _, n := range demoNoise {
		line = n.re.ReplaceAllString(line, n.with)
	}
	return line
}

// TestTryItLocallyShowsWhatTheDemoPrints runs the demo as examples/demo.sh
// does and holds docs/try-it-locally.md's copy of its output to it: every
// line the page shows is one the demo printed, and every step the demo
// printed up to the item's completion is on the page.
func TestTryItLocallyShowsWhatTheDemoPrints(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "try-it-locally.md"))
	require.NoError(t, err)
	shown := demoBlock(t, string(page))

	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	prebuilt := func(_ context.Context, _, pkg string) (string, error) {
		return testbin.Build(t, "github.com/the-loop/the-loop/"+strings.TrimPrefix(pkg, "./")), nil
	}
	require.NoError(t, run(ctx, printer{&out}, "fake", false, prebuilt), out.String())

	printed := map[string]bool{}
	var steps []string
	done := false
	for _, line := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		n := normalize(line)
		printed[n] = true
		if !done {
			steps = append(steps, n)
		}
		done = done || strings.HasPrefix(n, "TIME  complete: ")
	}
	require.True(t, done, "the demo completed the item:\n%s", out.String())
	onPage := map[string]bool{}
	for _, line := range shown {
		n := normalize(line)
		onPage[n] = true
		if strings.TrimSpace(line) != "…" {
			assert.True(t, printed[n], "the page shows a line the demo does not print: %q\nthe demo printed:\n%s", line, out.String())
		}
	}
	for _, s := range steps {
		assert.True(t, onPage[s], "the demo prints a step the page does not show: %q", s)
	}
}

// demoBlock is the page's fenced block marked demo-output.
func demoBlock(t *testing.T, page string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(page, "```text demo-output\n")
	require.True(t, ok, "docs/try-it-locally.md has no ```text demo-output block")
	body, _, ok := strings.Cut(rest, "\n```")
	require.True(t, ok)
	return strings.Split(body, "\n")
}
