package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runGateCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	db := filepath.Join(t.TempDir(), "none.db")
	e := &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Cwd: t.TempDir(),
		Getenv: func(k string) string {
			if k == "THE_LOOP_DB" {
				return db
			}
			return ""
		}}
	code := Main(context.Background(), e, append([]string{"gate"}, args...))
	return out.String(), errb.String(), code
}

func TestGateClaudeBlocksOnlyOnABlockAndCapsAttempts(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	repo := copyDir(t, fixtureRepo(t))
	for i := 1; i <= 3; i++ {
		_, stderr, code := runGateCLI(t, "", "--harness", "claude", "--repo", repo, "--work-item", "issue-2")
		require.Equal(t, 2, code, "attempt %d: exit 2 blocks Claude Code's stop", i)
		assert.Contains(t, stderr, "issue-2 is blocked at requirements-definition")
		assert.Contains(t, stderr, "required section is empty: Security considerations")
	}
	_, stderr, code := runGateCLI(t, "", "--harness", "claude", "--repo", repo, "--work-item", "issue-2")
	assert.Equal(t, 0, code, "after the cap the session may stop")
	assert.Contains(t, stderr, "giving up after 3 attempts")

	_, _, code = runGateCLI(t, "", "--harness", "claude", "--repo", repo, "--work-item", "issue-3")
	assert.Equal(t, 0, code, "a wait for a human never blocks a stop")
}

func TestGateCounterIsKeyedOnRepositoryAndItem(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	a, b := copyDir(t, fixtureRepo(t)), copyDir(t, fixtureRepo(t))
	for i := 0; i < 3; i++ {
		_, _, code := runGateCLI(t, "", "--repo", a, "--work-item", "issue-2")
		require.Equal(t, 2, code)
	}
	_, _, code := runGateCLI(t, "", "--repo", b, "--work-item", "issue-2")
	assert.Equal(t, 2, code, "another checkout has its own budget")
}

func TestGateCursorAnswersWithAFollowupMessage(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	repo := copyDir(t, fixtureRepo(t))
	payload, _ := json.Marshal(map[string]any{"workspace_roots": []string{repo}, "status": "completed"})
	out, _, code := runGateCLI(t, string(payload), "--harness", "cursor", "--work-item", "issue-2")
	require.Equal(t, 0, code)
	var resp map[string]string
	require.NoError(t, json.Unmarshal([]byte(out), &resp))
	assert.Contains(t, resp["followup_message"], "issue-2 is blocked at requirements-definition")

	out, _, code = runGateCLI(t, string(payload), "--harness", "cursor", "--work-item", "issue-4")
	require.Equal(t, 0, code)
	assert.Equal(t, "{}\n", out, "nothing to say when nothing blocks")
}

func TestGateReadsTheRepositoryFromTheHookPayload(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	repo := copyDir(t, fixtureRepo(t))
	payload, _ := json.Marshal(map[string]any{"cwd": repo, "stop_hook_active": false})
	_, stderr, code := runGateCLI(t, string(payload), "--work-item", "issue-5")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "issue-5 is blocked at design", "recompute ignores the forced pointer")
}

func TestGateDoesNothingOutsideTheLoop(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	out, stderr, code := runGateCLI(t, "", "--repo", t.TempDir())
	assert.Equal(t, 0, code)
	assert.Empty(t, out)
	assert.Empty(t, stderr)
}

func TestGateWithoutAnItemGatesTheActiveOnes(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	repo := copyDir(t, fixtureRepo(t))
	_, stderr, code := runGateCLI(t, "", "--repo", repo)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "issue-2 is blocked")
	assert.NotContains(t, stderr, "issue-5", "an item an operator moved to a terminal node is not active")
	assert.NotContains(t, stderr, "issue-1 ", "an item never started is not active")
	assert.NotContains(t, stderr, "issue-4", "a completed item is not active")
}

// The stop hook never blocks a stop because of its own failure: a broken
// config, a bad flag or an unreadable store warns and allows the stop.
func TestGateNeverBlocksOnItsOwnFailure(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	repo := copyDir(t, fixtureRepo(t))
	broken := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(broken, []byte("routing: [not, a, map\n"), 0o600))
	notADB := t.TempDir() // a directory is no database
	cases := []struct {
		name string
		args []string
	}{
		{"broken config", []string{"--config", broken, "--repo", repo, "--work-item", "issue-2"}},
		{"missing config", []string{"--config", filepath.Join(t.TempDir(), "absent.yaml"), "--repo", repo, "--work-item", "issue-2"}},
		{"unknown flag", []string{"--no-such-flag", "--repo", repo}},
		{"bad harness", []string{"--harness", "vim", "--repo", repo}},
		{"unreadable store", []string{"--db", notADB, "--repo", repo, "--work-item", "issue-2"}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			for _, harness := range []string{"claude", "cursor"} {
				out, stderr, code := runGateCLI(t, "", append([]string{"--harness", harness}, tt.args...)...)
				if tt.name == "bad harness" {
					out, stderr, code = runGateCLI(t, "", tt.args...)
				}
				assert.Equal(t, 0, code, "%s: the stop is allowed: %s", harness, stderr)
				assert.Contains(t, stderr, "the gate could not run")
				if harness == "cursor" && tt.name != "bad harness" {
					assert.Equal(t, "{}\n", out)
				}
			}
		})
	}
}

// A paused or stopped item asks its agent to stop: the stop check never
// blocks a stop on it, although its node blocks.
func TestGateNeverBlocksAHeldItem(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	repo := copyDir(t, fixtureRepo(t))
	_, _, code := runGateCLI(t, "", "--harness", "claude", "--repo", repo, "--work-item", "issue-2")
	require.Equal(t, 2, code, "issue-2 blocks at requirements-definition")
	holdPortable(t, repo, "issue-2")
	_, stderr, code := runGateCLI(t, "", "--harness", "claude", "--repo", repo, "--work-item", "issue-2")
	assert.Equal(t, 0, code, stderr)
}
