package main

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "sandbox-exec" {
		// The supervisor of an in-process command probes and launches
		// sessions with this very program, as the-loop would with itself.
		os.Exit(sandboxExec(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
