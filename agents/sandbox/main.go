package sandbox

import (
	"fmt"
	"io"
)

// Usage is the launcher's synopsis.
const Usage = "usage: the-loop sandbox-exec [--probe] --policy FILE [-- PROGRAM ARGS…] (run by the poller, not by hand)"

// Main is the launcher's command line — `the-loop sandbox-exec …`, or the
// small `the-loop-sandbox …` program that starts in a fraction of the time
// — and returns its exit code: the harness's, 126 when it could not
// confine it, 2 for a malformed command line.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "sandbox-exec" {
		args = args[1:]
	}
	probe := false
	if len(args) > 0 && args[0] == "--probe" {
		probe, args = true, args[1:]
	}
	if len(args) < 2 || args[0] != "--policy" || args[1] == "" {
		fmt.Fprintln(stderr, Usage)
		return 2
	}
	policy, rest := args[1], args[2:]
	if probe {
		if len(rest) > 0 {
			fmt.Fprintln(stderr, Usage)
			return 2
		}
		return ProbeMain(policy, stdout, stderr)
	}
	if len(rest) == 0 || rest[0] != "--" {
		fmt.Fprintln(stderr, Usage)
		return 2
	}
	return Exec(policy, rest[1:], stderr)
}
