package main

import (
	"io"

	"github.com/the-loop/the-loop/agents/sandbox"
)

// sandboxExec is the hidden launcher verb: the poller re-executes this
// program as `the-loop sandbox-exec --policy FILE -- HARNESS…` to start a
// session inside its sandbox (docs/sessions.md, "The trust boundary"),
// before the CLI's config, logger and signal handling, which it has no use
// for. `the-loop-sandbox`, installed beside the-loop, is the same launcher
// in a program that starts faster.
func sandboxExec(args []string, stdout, stderr io.Writer) int {
	return sandbox.Main(args, stdout, stderr)
}
