package scenario_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/examples/demo/scenario"
)

// nodeHarness pins every agent node of the standard scenario to a harness,
// so the one walk runs every CLI adapter — each the fake harness standing
// in for that CLI, reading the argv and MCP configuration its adapter
// writes — and the fake's own command harness for the rest.
var nodeHarness = map[string]string{
	"requirements-definition": "codex",
	"design":                  "gemini",
	"test-planning":           "opencode",
	"tasks-breakdown":         "claude",
	"implementation":          "codex", // the item's and the pull request's
	"self-review":             "gemini",
	"critic-review":           "opencode",
	"security-review":         "claude",
	"reviewer-briefing":       "codex",
}

// adapterArgv are the flags each adapter's sessions must carry.
var adapterArgv = map[string][]string{
	"claude":   {"-p", "--output-format stream-json", "--mcp-config", "--strict-mcp-config", "--model opus-5", "--permission-mode acceptEdits", "--allowedTools mcp__the-loop"},
	"codex":    {"exec --json --ignore-user-config -C", "-s workspace-write", "-m opus-5", `-c mcp_servers.the-loop.command=`, `mcp_servers.the-loop.default_tools_approval_mode="approve"`},
	"gemini":   {"--skip-trust -o stream-json --approval-mode auto_edit --allowed-mcp-server-names the-loop -m opus-5"},
	"opencode": {"run --format json -m opus-5"},
	"agent":    {"--model opus-5"},
}

type adapterSession struct {
	ID, Node, Harness, State, CostSource string
	PR                                   int
	Argv                                 []string
	Tokens, InputTokens                  int64
	CostUSD                              float64
}

// pinnedNodes is the sessions.nodes block pinning each node of
// nodeHarness to its harness.
func pinnedNodes() string {
	var nodes strings.Builder
	nodes.WriteString("nodes:\n")
	for node, h := range nodeHarness {
		nodes.WriteString("  " + node + ": " + h + "\n")
	}
	return nodes.String()
}

// assertEveryAdapterRan checks the whole loop's sessions, their agent nodes
// spread over the claude, codex, gemini and opencode adapters by
// pinnedNodes: every session's claim reached the-loop's server through the
// MCP configuration its CLI's adapter wrote (the fake refuses any other
// server, and any bypass of approvals), its argv carries its adapter's
// flags and the chosen model, and its tokens and cost — reported by claude
// and opencode, estimated from prices for codex and gemini — are in the
// store and on the status comment.
func assertEveryAdapterRan(t *testing.T, l *scenario.Loop) {
	t.Helper()
	out, err := l.Run(ctx, "sessions", "list", "--config", l.Config, "--work-item", "issue-1", "--format", "json", "--limit", "100")
	require.NoError(t, err)
	var res struct {
		Sessions  []adapterSession
		ByHarness []struct {
			Harness  string
			Sessions int
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	var worked []string
	ran := map[string]int{}
	for i := len(res.Sessions) - 1; i >= 0; i-- {
		s := res.Sessions[i]
		work := s.Node
		if s.PR > 0 {
			work = "pr/" + s.Node
		}
		worked = append(worked, work)
		want := nodeHarness[s.Node]
		if want == "" {
			want = "agent"
		}
		assert.Equal(t, want, s.Harness, "%s ran the harness its node is pinned to", work)
		ran[s.Harness]++
		argv := strings.Join(s.Argv, " ")
		for _, flag := range adapterArgv[s.Harness] {
			assert.Contains(t, argv, flag, "%s (%s)", work, s.Harness)
		}
		assert.Contains(t, []string{"exited", "stopped"}, s.State, "%s: %+v", work, s)
		assert.Equal(t, int64(1500), s.Tokens, "%s: the tokens its CLI reported", work)
		switch s.Harness {
		case "codex", "gemini":
			assert.Equal(t, "estimated", s.CostSource, work)
			assert.InDelta(t, 1500*2.0/1e6, s.CostUSD, 1e-9, "%s: 1500 input tokens at $2 per million", work)
		default:
			assert.Equal(t, "reported", s.CostSource, work)
			assert.InDelta(t, 0.04, s.CostUSD, 1e-9, work)
		}
	}
	assert.Equal(t, scenario.AgentNodes, worked, "one session per agent node, in walk order, none relaunched")
	for _, h := range []string{"agent", "claude", "codex", "gemini", "opencode"} {
		assert.GreaterOrEqual(t, ran[h], 1, "%s ran", h)
	}
	require.Len(t, res.ByHarness, 5, "sessions list sums each harness")

	// Each CLI got its prompt, its server and the model the way its
	// adapter gives them.
	dumps, err := filepath.Glob(filepath.Join(l.FakeState, "issue-1*.args-*"))
	require.NoError(t, err)
	require.Len(t, dumps, len(scenario.AgentNodes), "one argv dump per session")
	var seen []string
	for _, d := range dumps {
		b, err := os.ReadFile(d)
		require.NoError(t, err)
		seen = append(seen, filepath.Base(strings.SplitN(string(b), "\n", 2)[0]))
		args := string(b)
		assert.True(t, strings.Contains(args, "\n--model\nopus-5\n") || strings.Contains(args, "\n-m\nopus-5\n"),
			"the harness process got the model: %s", args)
	}
	for _, cli := range scenario.Personas {
		assert.Contains(t, seen, cli, "a session ran %s", cli)
	}

	c, ok := l.Posted(1, "<!-- the-loop:status -->")
	require.True(t, ok)
	for _, h := range []string{"claude", "codex", "gemini", "opencode"} {
		assert.Contains(t, c.Body, "  - "+h+": ", "the status comment says what %s spent", h)
	}
}
