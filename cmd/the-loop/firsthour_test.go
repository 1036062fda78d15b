package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runIn runs Main standing in cwd, with an isolated environment.
func runIn(t *testing.T, cwd string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	db := filepath.Join(t.TempDir(), "none.db")
	e := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Cwd: cwd, Getenv: func(k string) string {
		if k == "THE_LOOP_DB" {
			return db
		}
		return ""
	}}
	code = Main(context.Background(), e, args)
	return out.String(), errb.String(), code
}

// CI never goes green on nothing: `check --all` from a subdirectory,
// outside a repository, or with a wrong spec folder exits 2 naming the
// root it looked in and the spec folder it expected.
func TestCheckAllOnNothingExits2(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	wrong := copyDir(t, fixtureRepo(t))
	require.NoError(t, os.WriteFile(filepath.Join(wrong, ".the-loop", "harness-config.yaml"), []byte("workflow:\n  specDir: doc/spec\n"), 0o644))
	outside := t.TempDir()
	real := func(p string) string { r, err := filepath.EvalSymlinks(p); require.NoError(t, err); return r }
	tests := []struct {
		name string
		cwd  string
		args []string
		says []string
	}{
		{"from a subdirectory", filepath.Join(repo, "docs"), []string{"check", "--all"},
			[]string{"error: no work items to check: the spec folder docs/specs", "in the repository root " + real(filepath.Join(repo, "docs")), "pass --repo " + real(repo)}},
		{"outside a repository", outside, []string{"check", "--all", "--recompute", "--fail-on", "block"},
			[]string{"does not exist in the repository root " + real(outside), "run from the repository root or pass --repo DIR"}},
		{"a wrong spec folder", wrong, []string{"check", "--all", "--format", "json"},
			[]string{"the spec folder doc/spec (workflow.specDir in .the-loop/harness-config.yaml) does not exist in the repository root " + real(wrong)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runIn(t, tt.cwd, tt.args...)
			assert.Equal(t, exitUsage, code, errOut)
			for _, s := range tt.says {
				assert.Contains(t, errOut, s)
			}
			assert.NotContains(t, out, "0/0 work items satisfied")
			assert.Equal(t, 1, strings.Count(errOut, "no work items to check"), "the error is printed once")
		})
	}
}

// A misspelled id is refused with the nearest known ones (exit 2); it is
// never reported as a new item waiting at phase selection.
func TestMisspelledIDsAreRefused(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"check", []string{"check", "isue-2"}, `unknown work item "isue-2"`},
		{"graph status", []string{"graph", "status", "nosuch"}, `the nearest known ones are`},
		{"graph advance", []string{"graph", "advance", "issue-22"}, `did you mean "issue-2"?`},
		{"graph events", []string{"graph", "events", "Issue-2"}, `did you mean "issue-2"?`},
		{"an id with a space", []string{"check", "issue 2"}, `work item id "issue 2" is not a plain folder name: an id is a spec folder name`},
		{"graph start with a space", []string{"graph", "start", "a b"}, `is not a plain folder name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runIn(t, repo, tt.args...)
			assert.Equal(t, exitUsage, code, errOut)
			assert.Contains(t, errOut, tt.says)
			assert.NotContains(t, out, "phase-selection")
			assert.NotContains(t, out, "NOT ENTERED YET")
		})
	}
	entries, err := os.ReadDir(filepath.Join(repo, "docs", "specs"))
	require.NoError(t, err)
	for _, e := range entries {
		assert.Regexp(t, `^issue-[1-6]$`, e.Name(), "no folder was created for a refused id")
	}
}
