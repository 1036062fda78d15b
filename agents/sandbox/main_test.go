package sandbox

import (
	"os"
	"testing"
)

// TestMain lets the test binary stand in for the-loop: the launcher
// re-executes its own program as `sandbox-exec`.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "sandbox-exec" {
		os.Exit(launcherMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// launcherMain is cmd/the-loop's sandbox-exec, for the tests.
func launcherMain(args []string) int {
	probe := false
	if len(args) > 0 && args[0] == "--probe" {
		probe, args = true, args[1:]
	}
	if len(args) < 2 || args[0] != "--policy" {
		return 2
	}
	if probe {
		return ProbeMain(args[1], os.Stdout, os.Stderr)
	}
	rest := args[2:]
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	return Exec(args[1], rest, os.Stderr)
}
