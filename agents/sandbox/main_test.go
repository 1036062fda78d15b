package sandbox

import (
	"os"
	"testing"
)

// TestMain lets the test binary stand in for the-loop: the launcher
// re-executes its own program as `sandbox-exec`.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "sandbox-exec" {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
