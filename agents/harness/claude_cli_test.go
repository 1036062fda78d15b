package harness

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/proc"
	"github.com/the-loop/the-loop/internal/testbin"
)

// claudeBinary finds the real Claude Code: $THE_LOOP_CLAUDE, the copy
// testdata/e2e/install-claude.sh installs, or claude on PATH.
func claudeBinary(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("THE_LOOP_CLAUDE"), filepath.Join("..", "..", "testdata", "e2e", "claude", "node_modules", ".bin", "claude")} {
		if p == "" {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			if _, err := os.Stat(abs); err == nil {
				return abs
			}
		}
	}
	if p, err := exec.LookPath("claude"); err == nil {
		return p
	}
	t.Skip("claude is not installed; run testdata/e2e/install-claude.sh (or set THE_LOOP_CLAUDE) to check the adapter against the real CLI")
	return ""
}

// runClaude runs the real CLI offline: a private HOME, no API key, and no
// traffic beyond what a command needs.
func runClaude(t *testing.T, home string, args ...string) proc.Result {
	t.Helper()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	res, err := proc.Run(context.Background(), proc.Command{Argv: append([]string{claudeBinary(t)}, args...), Env: env,
		Dir: home, Timeout: 2 * time.Minute})
	require.NoError(t, err)
	return res
}

func TestClaudeAcceptsEveryFlagTheAdapterEmits(t *testing.T) {
	res := runClaude(t, t.TempDir(), "--help")
	require.True(t, res.Status.Success(), "%s %s", res.Status, res.Stderr)
	blocks := helpBlocks(string(res.Stdout))
	require.Contains(t, blocks, "--print", "the help output parsed")

	for _, terminal := range []bool{false, true} {
		l := launch(t)
		l.Model, l.Effort, l.Terminal = "opus", "high", terminal
		p, err := Prepare("claude", Config{Adapter: AdapterClaude, AllowedTools: []string{"Read", "Bash(go test *)"}}, l)
		require.NoError(t, err)
		for i, a := range p.Argv[1:] {
			if strings.HasPrefix(a, "-") && !(terminal && i == 1) {
				assert.Contains(t, blocks, a, "claude --help does not list %s", a)
			}
		}
	}
	assert.Contains(t, blocks["--output-format"], `"stream-json"`)
	assert.Contains(t, blocks["--permission-mode"], `"`+DefaultPermissionMode+`"`, "the default permission mode is one claude accepts")
	assert.Regexp(t, `\bhigh\b`, blocks["--effort"])
	assert.Contains(t, blocks["--mcp-config"], "<configs...>", "--mcp-config takes several values: the prompt must not follow it")
}

func TestClaudeConnectsToTheGeneratedMCPConfig(t *testing.T) {
	claudeBinary(t)
	loop := testbin.Build(t, "github.com/the-loop/the-loop/cmd/the-loop")
	dir := t.TempDir()
	home, repo := filepath.Join(dir, "home"), filepath.Join(dir, "repo")
	require.NoError(t, os.MkdirAll(home, 0o700))
	require.NoError(t, os.MkdirAll(repo, 0o755))
	config := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(config, nil, 0o600))
	raw, err := MCPConfig([]string{loop, "serve", "--config", config}, repo, "issue-1", map[string]string{"THE_LOOP_DB": filepath.Join(dir, "state.db")})
	require.NoError(t, err)
	var doc struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	entry := doc.MCPServers[ServerName]

	check := func(t *testing.T, name string, entry map[string]any) string {
		b, err := json.Marshal(entry)
		require.NoError(t, err)
		add := runClaude(t, home, "mcp", "add-json", "--scope", "user", name, string(b))
		require.True(t, add.Status.Success(), "%s %s %s", add.Status, add.Stdout, add.Stderr)
		get := runClaude(t, home, "mcp", "get", name)
		return string(get.Stdout) + string(get.Stderr)
	}

	t.Run("a server that cannot start is reported", func(t *testing.T) {
		out := check(t, "broken", map[string]any{"type": "stdio", "command": filepath.Join(dir, "missing"), "args": []string{}})
		assert.Contains(t, out, "Failed to connect", out)
	})
	t.Run("the generated item-confined server connects", func(t *testing.T) {
		out := check(t, ServerName, entry)
		assert.Contains(t, out, "Connected", out)
		assert.NotContains(t, out, "Failed", out)
		assert.Contains(t, out, "--work-item issue-1", out)
	})
}
