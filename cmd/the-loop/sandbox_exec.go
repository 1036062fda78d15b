package main

import (
	"fmt"
	"io"

	"github.com/the-loop/the-loop/agents/sandbox"
)

// sandboxExecUsage is the hidden launcher verb: the poller re-executes this
// program as `the-loop sandbox-exec --policy FILE -- HARNESS…` to start a
// session inside its sandbox (docs/sessions.md, "The trust boundary").
const sandboxExecUsage = "usage: the-loop sandbox-exec [--probe] --policy FILE [-- PROGRAM ARGS…] (run by the poller, not by hand)"

// sandboxExec runs the launcher before anything else the CLI does: no
// config, no logger, no signal handling of its own beyond the launcher's.
func sandboxExec(args []string, stdout, stderr io.Writer) int {
	probe := false
	if len(args) > 0 && args[0] == "--probe" {
		probe, args = true, args[1:]
	}
	if len(args) < 2 || args[0] != "--policy" || args[1] == "" {
		fmt.Fprintln(stderr, sandboxExecUsage)
		return 2
	}
	policy, rest := args[1], args[2:]
	if probe {
		if len(rest) > 0 {
			fmt.Fprintln(stderr, sandboxExecUsage)
			return 2
		}
		return sandbox.ProbeMain(policy, stdout, stderr)
	}
	if len(rest) == 0 || rest[0] != "--" {
		fmt.Fprintln(stderr, sandboxExecUsage)
		return 2
	}
	return sandbox.Exec(policy, rest[1:], stderr)
}
