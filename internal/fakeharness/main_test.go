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

	"github.com/the-loop/the-loop/internal/testbin"
	"github.com/the-loop/the-loop/proc"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

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
// the real `the-loop serve` over stdio, named by an MCP config, and reads
// the verdict the server's graph_complete returned.
func TestClaimGoesThroughTheRealServer(t *testing.T) {
	loop := testbin.Build(t, "github.com/the-loop/the-loop/cmd/the-loop")
	fake := testbin.Build(t, "github.com/the-loop/the-loop/internal/fakeharness")
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	copyTree(t, filepath.Join("..", "..", "testdata", "repo"), repo)
	config := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(config, nil, 0o600))
	write := func(name string, servers map[string]any) string {
		b, err := json.Marshal(map[string]any{"mcpServers": servers})
		require.NoError(t, err)
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o600))
		return p
	}
	server := map[string]any{"type": "stdio", "command": loop, "args": []string{"serve", "--repo", repo, "--config", config},
		"env": map[string]string{"THE_LOOP_DB": filepath.Join(dir, "state.db")}}
	prompt := filepath.Join(dir, "prompt.md")
	require.NoError(t, os.WriteFile(prompt, []byte("Define the requirements.\n"), 0o600))
	env, err := proc.BuildEnv(proc.EnvSpec{}, os.LookupEnv)
	require.NoError(t, err)
	run := func(mcpConfig string) proc.Result {
		res, err := proc.Run(context.Background(), proc.Command{Argv: []string{fake, "--prompt-file", prompt, "--mcp-config", mcpConfig,
			"--workdir", repo, "--work-item", "issue-2", "--state", dir, "--claim"}, Env: env.List()})
		require.NoError(t, err)
		return res
	}

	res := run(write("mcp.json", map[string]any{"the-loop": server}))
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

	res = run(write("two.json", map[string]any{"the-loop": server, "other": server}))
	assert.Equal(t, 1, res.Status.Code)
	assert.Contains(t, string(res.Stderr), "exactly the the-loop server")
}
