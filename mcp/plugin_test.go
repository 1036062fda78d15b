package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serverEntry is one mcpServers entry of a Claude Code config.
type serverEntry struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(moduleRoot(t), path))
	require.NoError(t, err)
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(v), path)
}

// TestClaudeCodePluginBringsTheWholeLoop checks the plugin layout: the
// manifest names the skills directory and the MCP server, the skills and
// the stop-hook gate exist where Claude Code discovers them, and the
// manifest does not re-declare hooks/hooks.json (Claude Code loads that
// file by convention and refuses a second declaration of it).
func TestClaudeCodePluginBringsTheWholeLoop(t *testing.T) {
	var manifest struct {
		Name        string                 `json:"name"`
		Description string                 `json:"description"`
		Repository  string                 `json:"repository"`
		Keywords    []string               `json:"keywords"`
		Skills      string                 `json:"skills"`
		MCPServers  map[string]serverEntry `json:"mcpServers"`
	}
	readJSON(t, ".claude-plugin/plugin.json", &manifest)
	assert.Equal(t, "the-loop", manifest.Name, "the name is the command namespace, /the-loop:...")
	assert.NotEmpty(t, manifest.Description)
	require.Contains(t, manifest.MCPServers, ServerName)
	assert.Equal(t, serverEntry{Command: "the-loop", Args: []string{"serve"}}, manifest.MCPServers[ServerName])

	root := moduleRoot(t)
	for _, skill := range []string{"handoff", "continuity"} {
		data, err := os.ReadFile(filepath.Join(root, manifest.Skills, skill, "SKILL.md"))
		require.NoError(t, err, "skill %s", skill)
		assert.Contains(t, string(data), "name: "+skill)
	}

	var hooks struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	readJSON(t, "hooks/hooks.json", &hooks)
	require.NotEmpty(t, hooks.Hooks["Stop"])
	assert.Equal(t, "the-loop gate --harness claude", hooks.Hooks["Stop"][0].Hooks[0].Command, "the stop hook is the gate")
}

func TestCheckedInMCPConfigStartsTheServer(t *testing.T) {
	var cfg struct {
		MCPServers map[string]serverEntry `json:"mcpServers"`
	}
	readJSON(t, ".mcp.json", &cfg)
	assert.Equal(t, map[string]serverEntry{ServerName: {Type: "stdio", Command: "the-loop", Args: []string{"serve"}}}, cfg.MCPServers)
}
