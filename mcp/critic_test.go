package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/critic"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/internal/testbin"
	"github.com/the-loop/the-loop/runtime"
)

// stopItem records a stop in the item's portable record.
func stopItem(t *testing.T, repo, id string) {
	t.Helper()
	p := filepath.Join(repo, "docs", "specs", id, runtime.StateFile)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	st, err := runtime.ParseState(b, id)
	require.NoError(t, err)
	st.Control = &runtime.Control{Command: runtime.ControlStop, By: "alice"}
	out, err := st.Marshal()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, out, 0o644))
}

// A stopped item refuses a claim over MCP: graph_complete answers refused,
// naming who stopped it and how to lift the hold, and nothing moves.
func TestAStoppedItemRefusesAClaimOverMCP(t *testing.T) {
	repo := copyFixture(t)
	stopItem(t, repo, "issue-2")
	c := loopClient(t, newLoopService(t, repo))
	res := callTool(t, c, "graph_complete", map[string]any{ArgWorkItem: "issue-2"})
	require.False(t, res.IsError, "a refusal is a verdict, not a failure: %s", resultText(t, res))
	claim := structured(t, res)
	assert.Equal(t, runtime.StatusRefused, claim["status"])
	assert.Equal(t, "held", claim["reason"])
	assert.Equal(t, false, claim["moved"])
	assert.Contains(t, resultText(t, res), "issue-2 is stopped: @alice stopped it on the ticket")
	assert.Contains(t, resultText(t, res), "commenting `the-loop start` on the ticket")

	st := callTool(t, c, "graph_status", map[string]any{ArgWorkItem: "issue-2"})
	assert.Contains(t, structured(t, st)["graphContext"], "STOPPED: issue-2 is stopped")
}

// A session's server runs critics for its own item only: the round is
// recorded on that item, and another item is refused.
func TestAConfinedServerRunsCriticsForItsItemOnly(t *testing.T) {
	repo := copyFixture(t)
	fake := testbin.Build(t, "github.com/the-loop/the-loop/agents/critic/fakecritic")
	cfg := config.Default()
	cfg.Critic.Critics = []critic.Critic{{Name: "codex", Command: []string{fake, "--prompt-file", "{prompt_file}"}}}
	cfg.Critic.ApplyDefaults()
	svc := newLoopServiceWith(t, repo, cfg, nil)
	require.NoError(t, os.WriteFile(filepath.Join(repo, "assignment.md"), []byte("finding: a flaky test\n"), 0o644))
	c := inProcess(t, Deps{Backend: svc, DefaultRepo: repo, WorkItem: "issue-2", Operator: "dev"}, AllTools()...)

	res := callToolAs(t, c, stdioCaller, "critic_run", map[string]any{"critic": "codex", "promptFile": "assignment.md", ArgWorkItem: "issue-3"})
	assert.True(t, res.IsError)
	assert.Contains(t, resultText(t, res), "it answers for issue-2 only, never issue-3")

	res = callToolAs(t, c, stdioCaller, "critic_run", map[string]any{"critic": "codex", "promptFile": "assignment.md"})
	require.False(t, res.IsError, resultText(t, res))
	assert.True(t, strings.HasPrefix(resultText(t, res), "critic codex, run cr-"))
	assert.Contains(t, resultText(t, res), "the round counts; recorded on issue-2 at requirements-definition")
	assert.Contains(t, resultText(t, res), "1. a flaky test")

	res = callToolAs(t, c, stdioCaller, "critic_list", map[string]any{})
	require.False(t, res.IsError, resultText(t, res))
	assert.Contains(t, resultText(t, res), "codex: available (fakecritic 1.4.2)")
}
