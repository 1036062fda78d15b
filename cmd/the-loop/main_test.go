package main

import (
	"os"
	"testing"

	"github.com/the-loop/the-loop/internal/testbin"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "sandbox-exec" {
		// The supervisor of an in-process command probes and launches
		// sessions with this very program, as the-loop would with itself.
		os.Exit(sandboxExec(os.Args[2:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}
