package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/testbin"
	"github.com/the-loop/the-loop/runtime"
)

// criticConfig writes an operator config with the fake critic as codex,
// one that hangs as slow (1 s), and one whose program is missing.
func criticConfig(t *testing.T) string {
	t.Helper()
	fake := testbin.Build(t, "github.com/the-loop/the-loop/agents/critic/fakecritic")
	p := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(p, []byte(`critics:
  - name: codex
    command: [`+fake+`, --prompt-file, "{prompt_file}"]
  - name: slow
    command: [`+fake+`, --mode, hang]
    timeoutSeconds: 1
  - name: gone
    command: [/nonexistent/critic, review]
reviews:
  criticReviewCount: 2
`), 0o600))
	return p
}

func writePrompt(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "assignment.md")
	require.NoError(t, os.WriteFile(p, []byte("Review the export.\nfinding: the header row is missing\n"), 0o644))
	return p
}

func TestCriticListSaysWhichCriticsCanRun(t *testing.T) {
	cfg := criticConfig(t)
	out, _, code := runCLI(t, nil, "critic", "list", "--config", cfg)
	assert.Equal(t, exitUnmet, code, "a configured critic that cannot run is unmet")
	assert.Contains(t, out, "fakecritic 1.4.2")
	assert.Contains(t, out, "gone         unavailable  executable /nonexistent/critic does not exist; install the critic or fix critics[].command")
	assert.Contains(t, out, "review caps: 3 self-review rounds, 2 critic rounds")

	out, _, _ = runCLI(t, nil, "critic", "list", "--config", cfg, "--format", "json")
	var res struct {
		Critics []struct {
			Name      string `json:"name"`
			Available bool   `json:"available"`
		} `json:"critics"`
		Reviews map[string]int `json:"reviews"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Len(t, res.Critics, 3)
	assert.True(t, res.Critics[0].Available)
	assert.False(t, res.Critics[2].Available)
	assert.Equal(t, 2, res.Reviews["criticReviewCount"])

	_, stderr, code := runCLI(t, nil, "critic", "list", "extra")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "critic list takes no arguments")
}

// critic run prints the round's one JSON envelope and records it on the
// item; a round that hangs is cut off, printed, recorded unavailable and
// exits 1.
func TestCriticRunPrintsTheEnvelopeAndRecordsIt(t *testing.T) {
	cfg := criticConfig(t)
	repo := copyRepoFixture(t)
	env := map[string]string{"THE_LOOP_DB": filepath.Join(t.TempDir(), "state.db")}
	prompt := writePrompt(t, repo)

	out, stderr, code := runCLI(t, env, "critic", "run", "codex", "--prompt-file", prompt, "--work-item", "issue-2", "--repo", repo, "--config", cfg)
	require.Equal(t, exitOK, code, stderr)
	var e map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &e), out)
	assert.Equal(t, "codex", e["critic"])
	assert.Equal(t, "", e["unavailable"])
	assert.Contains(t, e["output"], "1. the header row is missing")
	id, _ := e["runId"].(string)
	assert.Contains(t, stderr, "recorded on issue-2 at requirements-definition as "+id)

	out, _, code = runCLI(t, env, "critic", "run", "slow", "--prompt-file", prompt, "--work-item", "issue-2", "--repo", repo, "--config", cfg)
	assert.Equal(t, exitUnmet, code, "a round that does not count is unmet")
	require.NoError(t, json.Unmarshal([]byte(out), &e), out)
	assert.Contains(t, e["unavailable"], "timed out after 1s and was stopped")

	out, _, code = runCLI(t, env, "graph", "events", "issue-2", "--repo", repo, "--format", "json", "--config", cfg)
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, `"critic.ran"`)
	assert.Contains(t, out, `"critic.unavailable"`)

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"critic", "run", "codex", "--repo", repo}, exitUsage, "--prompt-file is required"},
		{[]string{"critic", "run", "--prompt-file", prompt}, exitUsage, "usage: the-loop critic run"},
		{[]string{"critic", "run", "gpt", "--prompt-file", prompt, "--repo", repo}, exitUsage, `critic "gpt" is not configured (configured: codex, slow, gone)`},
		{[]string{"critic", "run", "codex", "--prompt-file", filepath.Join(repo, "missing.md"), "--repo", repo}, exitUsage, "does not exist; write the review assignment to it first"},
	} {
		_, stderr, code := runCLI(t, env, append(tc.args, "--config", cfg)...)
		assert.Equal(t, tc.code, code, "%v: %s", tc.args, stderr)
		assert.Contains(t, stderr, tc.want)
	}
}

// holdPortable records a stop in the item's portable record, as the
// poller's hold reaches a checkout whose store has none.
func holdPortable(t *testing.T, repo, id string) {
	t.Helper()
	p := filepath.Join(repo, "docs", "specs", id, runtime.StateFile)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	st, err := runtime.ParseState(b, id)
	require.NoError(t, err)
	st.Control = &runtime.Control{Command: runtime.ControlStop, By: "alice", At: "2026-03-01T10:00:00Z", Comment: "https://github.com/acme/widgets/issues/2#stop"}
	out, err := st.Marshal()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, out, 0o644))
}

// A stopped item refuses a claim and an advance over the CLI (exit 1), with
// the one message naming who stopped it and how to lift the hold.
func TestAStoppedItemRefusesAClaimOverTheCLI(t *testing.T) {
	repo := copyRepoFixture(t)
	holdPortable(t, repo, "issue-2")
	env := map[string]string{"THE_LOOP_DB": filepath.Join(t.TempDir(), "state.db")}
	out, _, code := runCLI(t, env, "graph", "complete", "issue-2", "--repo", repo)
	assert.Equal(t, exitUnmet, code)
	var claim runtime.ClaimAnswer
	require.NoError(t, json.Unmarshal([]byte(out), &claim), out)
	assert.Equal(t, runtime.StatusRefused, claim.Status)
	assert.Equal(t, "held", claim.Reason)
	require.Len(t, claim.Messages, 1)
	assert.True(t, strings.HasPrefix(claim.Messages[0], "issue-2 is stopped: @alice stopped it on the ticket (2026-03-01T10:00:00Z, https://github.com/acme/widgets/issues/2#stop)"), claim.Messages[0])
	assert.Contains(t, claim.Messages[0], "commenting `the-loop start` on the ticket")

	out, _, code = runCLI(t, env, "graph", "advance", "issue-2", "--repo", repo)
	assert.Equal(t, exitUnmet, code)
	assert.Contains(t, out, "issue-2: requirements-definition → refused")
	assert.Contains(t, out, "issue-2 is stopped: @alice stopped it")

	out, _, _ = runCLI(t, env, "critic", "run", "codex", "--prompt-file", writePrompt(t, repo), "--work-item", "issue-2", "--repo", repo, "--config", criticConfig(t))
	assert.Empty(t, out, "a held item runs no critic")
}

// The critic verbs and tools are bindings over the same core: the same
// list, and the same envelope for the same round (its run id, times and
// working tree aside, which each run has its own of).
func TestCLIAndToolRunTheSameCritic(t *testing.T) {
	cfg := criticConfig(t)
	p := newParity(t, cfg, nil)
	repo := copyRepoFixture(t)
	assert.JSONEq(t, p.cli("critic", "list", "--format", "json"), p.tool(repo, "critic_list", nil))

	cliRepo, toolRepo := copyRepoFixture(t), copyRepoFixture(t)
	cliSide, toolSide := newParity(t, cfg, nil), newParity(t, cfg, nil)
	cli := cliSide.cli("critic", "run", "codex", "--prompt-file", writePrompt(t, cliRepo), "--work-item", "issue-2", "--repo", cliRepo)
	writePrompt(t, toolRepo)
	tool := toolSide.tool(toolRepo, "critic_run", map[string]any{"critic": "codex", "promptFile": "assignment.md", "workItem": "issue-2"})
	assert.JSONEq(t, withoutRun(t, cli), withoutRun(t, tool))
}

// withoutRun drops what differs between two runs of one round.
func withoutRun(t *testing.T, envelope string) string {
	t.Helper()
	var e map[string]any
	require.NoError(t, json.Unmarshal([]byte(envelope), &e), envelope)
	for _, k := range []string{"runId", "started", "ended", "workdir", "argv"} {
		require.Contains(t, e, k)
		delete(e, k)
	}
	b, err := json.Marshal(e)
	require.NoError(t, err)
	return string(b)
}
