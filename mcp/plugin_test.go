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

// pluginAuthor is the manifest's author object.
type pluginAuthor struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// pluginManifest is .claude-plugin/plugin.json; unknown fields are refused.
type pluginManifest struct {
	Name        string                 `json:"name"`
	Version     string                 `json:"version"`
	Description string                 `json:"description"`
	Author      pluginAuthor           `json:"author"`
	Homepage    string                 `json:"homepage"`
	Repository  string                 `json:"repository"`
	License     string                 `json:"license"`
	Keywords    []string               `json:"keywords"`
	Skills      string                 `json:"skills"`
	Commands    string                 `json:"commands"`
	Hooks       string                 `json:"hooks"`
	MCPServers  map[string]serverEntry `json:"mcpServers"`
}

// dirNames lists the entries of a repository folder, with suffix trimmed;
// with no suffix, the subfolders only (skills/ also holds the Go package
// that embeds them).
func dirNames(t *testing.T, dir, suffix string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(moduleRoot(t), dir))
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if suffix == "" && !e.IsDir() {
			continue
		}
		if strings.HasSuffix(e.Name(), suffix) {
			out = append(out, strings.TrimSuffix(e.Name(), suffix))
		}
	}
	require.NotEmpty(t, out, dir)
	return out
}

// TestClaudeCodePluginBringsTheWholeLoop checks the plugin layout: the
// manifest names the skills and commands directories and the MCP server, carries the
// metadata a plugin directory requires (version, author, licence) and lists
// what ships; every skill and command exists where Claude Code discovers it;
// and the manifest declares the stop check's hook file, plugin/stop-check/claude-code.json,
// while no hooks/hooks.json exists (Claude Code would load that one by
// convention as well, so the stop check would run twice).
func TestClaudeCodePluginBringsTheWholeLoop(t *testing.T) {
	var manifest pluginManifest
	readJSON(t, ".claude-plugin/plugin.json", &manifest)
	assert.Equal(t, "the-loop", manifest.Name, "the name is the command namespace, /the-loop:...")
	assert.NotEmpty(t, manifest.Description)
	require.Contains(t, manifest.MCPServers, ServerName)
	assert.Equal(t, serverEntry{Command: "the-loop", Args: []string{"serve"}}, manifest.MCPServers[ServerName])
	assert.Regexp(t, `^[0-9]+\.[0-9]+\.[0-9]+$`, manifest.Version)
	assert.Equal(t, "the-loop authors", manifest.Author.Name)
	assert.Equal(t, "MIT", manifest.License)

	licence, err := os.ReadFile(filepath.Join(moduleRoot(t), "LICENSE"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(licence), "MIT License\n"))
	assert.Regexp(t, `Copyright \(c\) [0-9]{4} the-loop authors`, string(licence))

	root := moduleRoot(t)
	for _, skill := range dirNames(t, manifest.Skills, "") {
		data, err := os.ReadFile(filepath.Join(root, manifest.Skills, skill, "SKILL.md"))
		require.NoError(t, err, "skill %s", skill)
		assert.Contains(t, string(data), "\nname: "+skill+"\n", "a skill's name is its folder")
		assert.Contains(t, manifest.Description, skill, "the description lists the %s skill", skill)
	}
	assert.Equal(t, "./plugin/commands/", manifest.Commands, "the commands live in plugin/commands/, not in the default commands/")
	for _, cmd := range dirNames(t, manifest.Commands, ".md") {
		assert.Contains(t, manifest.Description, cmd, "the description lists /the-loop:%s", cmd)
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
	assert.Equal(t, "./plugin/stop-check/claude-code.json", manifest.Hooks)
	readJSON(t, manifest.Hooks, &hooks)
	require.NotEmpty(t, hooks.Hooks["Stop"])
	assert.Equal(t, "the-loop gate --harness claude", hooks.Hooks["Stop"][0].Hooks[0].Command, "the stop hook is the stop check")
	_, err = os.Stat(filepath.Join(root, "hooks", "hooks.json"))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing else declares a hook by convention")
	_, err = os.Stat(filepath.Join(root, "commands"))
	assert.ErrorIs(t, err, os.ErrNotExist, "no commands/ folder beside plugin/commands/: Claude Code would load its commands as well")
}

// TestPluginCommandAndSkillNamesAreDistinct: a command and a skill share the
// plugin's namespace, so no two may carry the same name.
func TestPluginCommandAndSkillNamesAreDistinct(t *testing.T) {
	skills := map[string]bool{}
	for _, s := range dirNames(t, "skills", "") {
		skills[s] = true
	}
	for _, c := range dirNames(t, filepath.Join("plugin", "commands"), ".md") {
		assert.False(t, skills[c], "/the-loop:%s is both a command and a skill", c)
	}
}

// TestMarketplaceListsThePlugin: the repository is its own marketplace, so
// `claude plugin marketplace add <owner>/the-loop` (or a path to a clone)
// then `claude plugin install the-loop@the-loop` installs this directory.
func TestMarketplaceListsThePlugin(t *testing.T) {
	var manifest pluginManifest
	readJSON(t, ".claude-plugin/plugin.json", &manifest)
	var market struct {
		Name     string       `json:"name"`
		Owner    pluginAuthor `json:"owner"`
		Metadata struct {
			Description string `json:"description"`
		} `json:"metadata"`
		Plugins []struct {
			Name        string       `json:"name"`
			Source      string       `json:"source"`
			Description string       `json:"description"`
			Version     string       `json:"version"`
			Author      pluginAuthor `json:"author"`
			Homepage    string       `json:"homepage"`
			License     string       `json:"license"`
			Category    string       `json:"category"`
		} `json:"plugins"`
	}
	readJSON(t, ".claude-plugin/marketplace.json", &market)
	assert.Equal(t, "the-loop", market.Name)
	assert.Equal(t, manifest.Author.Name, market.Owner.Name)
	require.Len(t, market.Plugins, 1)
	p := market.Plugins[0]
	assert.Equal(t, manifest.Name, p.Name)
	assert.Equal(t, "./", p.Source, "the plugin is the repository root")
	assert.Equal(t, manifest.Version, p.Version, "the marketplace entry and the manifest agree on the version")
	assert.Equal(t, manifest.License, p.License)
}

func TestCheckedInMCPConfigStartsTheServer(t *testing.T) {
	var cfg struct {
		MCPServers map[string]serverEntry `json:"mcpServers"`
	}
	readJSON(t, ".mcp.json", &cfg)
	assert.Equal(t, map[string]serverEntry{ServerName: {Type: "stdio", Command: "the-loop", Args: []string{"serve"}}}, cfg.MCPServers)
}
