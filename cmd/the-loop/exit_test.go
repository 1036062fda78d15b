package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exitRig holds the inputs of the exit-code table: a private copy of the
// fixture repository, a copy whose repository config is broken, a broken
// operator config and a file that is no database.
type exitRig struct {
	repo, badRepo, badConfig, notADB string
}

func newExitRig(t *testing.T) exitRig {
	t.Helper()
	r := exitRig{repo: copyDir(t, fixtureRepo(t)), badRepo: copyDir(t, fixtureRepo(t))}
	require.NoError(t, os.WriteFile(filepath.Join(r.badRepo, ".the-loop", "harness-config.yaml"), []byte("workflow: [not, a, map\n"), 0o644))
	r.badConfig = filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(r.badConfig, []byte("routing: [not, a, map\n"), 0o600))
	r.notADB = filepath.Join(t.TempDir(), "junk.db")
	junk := make([]byte, 8192)
	for i := range junk {
		junk[i] = byte(i*7 + 3)
	}
	require.NoError(t, os.WriteFile(r.notADB, junk, 0o600))
	return r
}

// TestExitCodes is the exit-code map over verbs and outcomes: 0 ok, 1 unmet,
// refused, blocked or failed work, 2 usage or configuration.
func TestExitCodes(t *testing.T) {
	tests := []struct {
		name string
		args func(r exitRig) []string
		code int
		say  string // a part of stderr
	}{
		// ok
		{"check of a satisfied item", func(r exitRig) []string { return []string{"check", "issue-4", "--repo", r.repo} }, exitOK, ""},
		{"check of a wait under --fail-on block", func(r exitRig) []string { return []string{"check", "issue-3", "--fail-on", "block", "--repo", r.repo} }, exitOK, ""},
		{"advance to a wait for a human", func(r exitRig) []string { return []string{"graph", "advance", "issue-3", "--repo", r.repo} }, exitOK, ""},
		{"claim behind the pointer", func(r exitRig) []string {
			return []string{"graph", "complete", "issue-2", "--node", "phase-selection", "--repo", r.repo}
		}, exitOK, ""},
		{"show a loop", func(r exitRig) []string { return []string{"graph", "show"} }, exitOK, ""},
		{"help", func(r exitRig) []string { return []string{"graph", "status", "-h"} }, exitOK, ""},

		// unmet, refused, blocked or failed work
		{"check of an unmet item", func(r exitRig) []string { return []string{"check", "issue-2", "--repo", r.repo} }, exitUnmet, ""},
		{"check on a store that is no database", func(r exitRig) []string {
			return []string{"check", "issue-2", "--repo", r.repo, "--db", r.notADB}
		}, exitUnmet, "not a valid the-loop SQLite database"},
		{"status on a store that is no database", func(r exitRig) []string {
			return []string{"graph", "status", "issue-2", "--repo", r.repo, "--db", r.notADB}
		}, exitUnmet, "not a valid the-loop SQLite database"},
		{"claim refused: not started", func(r exitRig) []string { return []string{"graph", "complete", "issue-1", "--repo", r.repo} }, exitUnmet, ""},
		{"claim refused: a human gate", func(r exitRig) []string { return []string{"graph", "complete", "issue-3", "--repo", r.repo} }, exitUnmet, ""},
		{"claim refused: not the current node", func(r exitRig) []string {
			return []string{"graph", "complete", "issue-2", "--node", "design", "--repo", r.repo}
		}, exitUnmet, ""},
		{"claim blocked", func(r exitRig) []string { return []string{"graph", "complete", "issue-2", "--repo", r.repo} }, exitUnmet, ""},
		{"advance blocked", func(r exitRig) []string { return []string{"graph", "advance", "issue-2", "--repo", r.repo} }, exitUnmet, ""},
		{"no handoff to show", func(r exitRig) []string { return []string{"handoff", "show", "issue-2", "--repo", r.repo} }, exitUnmet, "carries no handoff"},
		{"a second start on another loop", func(r exitRig) []string {
			return []string{"graph", "start", "issue-2", "--loop", "pdlc-adhoc-loop", "--repo", r.repo}
		}, exitUnmet, "a started item keeps its loop"},

		// usage or configuration
		{"no verb", func(r exitRig) []string { return nil }, exitUsage, ""},
		{"unknown verb", func(r exitRig) []string { return []string{"deploy"} }, exitUsage, "unknown command"},
		{"unknown flag", func(r exitRig) []string { return []string{"check", "--no-such-flag"} }, exitUsage, "no-such-flag"},
		{"check with no item", func(r exitRig) []string { return []string{"check", "--repo", r.repo} }, exitUsage, "--all"},
		{"unknown loop: show", func(r exitRig) []string { return []string{"graph", "show", "--loop", "nope"} }, exitUsage, `no shipped loop named "nope"`},
		{"unknown loop: start", func(r exitRig) []string {
			return []string{"graph", "start", "issue-1", "--loop", "nope", "--repo", r.repo}
		}, exitUsage, `no shipped loop named "nope"`},
		{"bad repository config: check", func(r exitRig) []string { return []string{"check", "issue-2", "--repo", r.badRepo} }, exitUsage, "not valid YAML"},
		{"bad repository config: status", func(r exitRig) []string {
			return []string{"graph", "status", "issue-2", "--repo", r.badRepo}
		}, exitUsage, "not valid YAML"},
		{"bad repository config: complete", func(r exitRig) []string {
			return []string{"graph", "complete", "issue-2", "--repo", r.badRepo}
		}, exitUsage, "not valid YAML"},
		{"bad operator config", func(r exitRig) []string {
			return []string{"graph", "status", "issue-2", "--repo", r.repo, "--config", r.badConfig}
		}, exitUsage, "not valid YAML"},
		{"not a repository", func(r exitRig) []string {
			return []string{"graph", "status", "issue-2", "--repo", filepath.Join(r.repo, "absent")}
		}, exitUsage, "not a directory"},
		{"a work item id with a path", func(r exitRig) []string { return []string{"graph", "status", "../x", "--repo", r.repo} }, exitUsage, "not a plain folder name"},
		{"force to no node", func(r exitRig) []string {
			return []string{"graph", "force", "issue-2", "--to", "nowhere", "--reason", "r", "--repo", r.repo}
		}, exitUsage, `refused: unknown node "nowhere"`},
		{"skip without a reason", func(r exitRig) []string {
			return []string{"graph", "skip", "issue-1", "--node", "design", "--repo", r.repo}
		}, exitUsage, "refused: --reason is required"},
		{"ticket with a bad option", func(r exitRig) []string {
			return []string{"ticket", "create", "--system", "gitlab", "--title", "T", "--body", "b"}
		}, exitUsage, "--system"},
		{"poll without sources", func(r exitRig) []string { return []string{"poll", "--once"} }, exitUsage, "polling.sources is empty"},
	}
	r := newExitRig(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"THE_LOOP_DB": filepath.Join(t.TempDir(), "state.db")}
			_, errOut, code := runCLI(t, env, tt.args(r)...)
			assert.Equal(t, tt.code, code, errOut)
			assert.Contains(t, errOut, tt.say)
		})
	}
}

// poll --once fails when every source failed, and is ok when one answered.
func TestPollOnceExitsUnmetWhenEverySourceFailed(t *testing.T) {
	f := newHandoffCLI(t)
	code, out, stderr := f.run("poll", "--once", "--db", filepath.Join(t.TempDir(), "state.db"))
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, `"sources"`)

	// A source whose repository the tracker does not know fails; it is the
	// only one. (A source with no usable checkout is refused at start: see
	// TestPollRefusesASourceWithoutAUsableCheckoutAtStart.)
	require.NoError(t, os.WriteFile(f.config, []byte(fmt.Sprintf("integrations:\n  github:\n    baseUrl: %s\n    tokenEnv: TEST_GH_TOKEN\n"+
		"polling:\n  sources:\n    - {system: github, repos: [nobody/nothing], checkout: %s}\n", f.gh.URL(), f.checkout)), 0o600))
	code, out, stderr = f.run("poll", "--once", "--db", filepath.Join(t.TempDir(), "state.db"))
	assert.Equal(t, exitUnmet, code)
	assert.Contains(t, out, `"error"`, "the report still says what failed")
	assert.Contains(t, stderr, "every source failed")
}

// The stop hook's own failures never block a stop, whatever the exit-code
// map would make of them elsewhere: only an evaluated block exits 2.
func TestTheGateTurnsNoFailureIntoABlock(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	r := newExitRig(t)
	_, _, code := runGateCLI(t, "", "--repo", r.badRepo, "--work-item", "issue-2")
	assert.Equal(t, exitOK, code, "a repository whose config cannot be read is not gated")
	for name, args := range map[string][]string{
		"bad operator config":   {"--config", r.badConfig, "--repo", r.repo, "--work-item", "issue-2"},
		"store is no database":  {"--db", r.notADB, "--repo", r.repo, "--work-item", "issue-2"},
		"work item with a path": {"--repo", r.repo, "--work-item", "../x"},
		"unknown flag":          {"--repo", r.repo, "--bogus"},
	} {
		t.Run(name, func(t *testing.T) {
			_, stderr, code := runGateCLI(t, "", args...)
			assert.Equal(t, exitOK, code, stderr)
			assert.Contains(t, stderr, "the stop is allowed")
		})
	}
	_, _, code = runGateCLI(t, "", "--repo", r.repo, "--work-item", "issue-2")
	assert.Equal(t, 2, code, "an evaluated block blocks")
}
