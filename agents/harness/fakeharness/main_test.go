package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/internal/proc"
	"github.com/the-loop/the-loop/internal/testbin"
)

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	}))
}

// TestClaimGoesThroughTheRealServer runs the fake with --claim against
// the real `the-loop serve --work-item` over stdio, named by the MCP config
// the harness adapters generate, and reads the verdict the server's
// graph_complete returned.
func TestClaimGoesThroughTheRealServer(t *testing.T) {
	loop := testbin.Build(t, "github.com/the-loop/the-loop/cmd/the-loop")
	fake := testbin.Build(t, "github.com/the-loop/the-loop/agents/harness/fakeharness")
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	copyTree(t, filepath.Join("..", "..", "..", "testdata", "repo"), repo)
	config := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(config, nil, 0o600))
	write := func(name string, servers map[string]any) string {
		b, err := json.Marshal(map[string]any{"mcpServers": servers})
		require.NoError(t, err)
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o600))
		return p
	}
	// The MCP config exactly as a launched session gets it: one server,
	// the-loop serve confined to the item with --work-item.
	generated, err := harness.MCPConfig([]string{loop, "serve", "--config", config}, repo, "issue-2",
		map[string]string{"THE_LOOP_DB": filepath.Join(dir, "state.db")})
	require.NoError(t, err)
	var doc struct {
		MCPServers map[string]any `json:"mcpServers"`
	}
	require.NoError(t, json.Unmarshal(generated, &doc))
	server := doc.MCPServers[harness.ServerName]
	prompt := filepath.Join(dir, "prompt.md")
	require.NoError(t, os.WriteFile(prompt, []byte("Define the requirements.\n"), 0o600))
	env, err := proc.BuildEnv(proc.EnvSpec{}, os.LookupEnv)
	require.NoError(t, err)
	runAs := func(item, mcpConfig string) proc.Result {
		res, err := proc.Run(context.Background(), proc.Command{Argv: []string{fake, "--prompt-file", prompt, "--mcp-config", mcpConfig,
			"--workdir", repo, "--work-item", item, "--state", dir, "--claim"}, Env: env.List()})
		require.NoError(t, err)
		return res
	}
	run := func(mcpConfig string) proc.Result { return runAs("issue-2", mcpConfig) }

	mcpPath := filepath.Join(dir, "mcp.json")
	require.NoError(t, os.WriteFile(mcpPath, generated, 0o600))
	res := run(mcpPath)
	require.True(t, res.Status.Success(), "%s\n%s", res.Status, res.Stderr)
	var claim struct {
		Claim struct {
			IsError bool   `json:"isError"`
			Text    string `json:"text"`
		} `json:"claim"`
	}
	for _, line := range strings.Split(string(res.Stdout), "\n") {
		if strings.Contains(line, `"claim"`) {
			require.NoError(t, json.Unmarshal([]byte(line), &claim))
		}
	}
	assert.False(t, claim.Claim.IsError)
	assert.Contains(t, claim.Claim.Text, "requirements-definition: block", "the server evaluated the node's exit checks")
	assert.Contains(t, claim.Claim.Text, "Security considerations")

	// The same server, asked about another item, refuses.
	other := runAs("issue-3", mcpPath)
	assert.Equal(t, 1, other.Status.Code)
	assert.Contains(t, string(other.Stderr), "graph_complete refused")
	assert.Contains(t, string(other.Stdout), "issue-2", "the refusal names the item the server is confined to")

	res = run(write("two.json", map[string]any{"the-loop": server, "other": server}))
	assert.Equal(t, 1, res.Status.Code)
	assert.Contains(t, string(res.Stderr), "exactly the the-loop server")
}
