// Package testbin builds the repository's small programs for tests, once
// per test binary.
package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	mu    sync.Mutex
	dir   string
	built = map[string]string{}
)

// Build compiles the main package pkg (an import path such as
// github.com/the-loop/the-loop/agents/harness/fakeharness) and returns the
// executable's path. Call Cleanup from TestMain to remove the builds.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if p, ok := built[pkg]; ok {
		return p
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "the-loop-bin-")
		if err != nil {
			t.Fatalf("testbin: %v", err)
		}
		dir = d
	}
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("testbin: go build %s: %v\n%s", pkg, err, strings.TrimSpace(string(b)))
	}
	built[pkg] = out
	return out
}

// Cleanup removes everything Build compiled.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		_ = os.RemoveAll(dir)
		dir = ""
		built = map[string]string{}
	}
}

// BuildTemp compiles the main package pkg into a folder of t's own, removed
// when t ends: for a package that has no TestMain to call Cleanup. The go
// build cache makes a second build of the same package cheap.
func BuildTemp(t testing.TB, pkg string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("testbin: go build %s: %v\n%s", pkg, err, strings.TrimSpace(string(b)))
	}
	return out
}
