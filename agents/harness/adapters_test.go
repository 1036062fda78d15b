package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// worktree makes l.Workdir a linked worktree whose .git file points into a
// main checkout's git directory, as the poller's trees are.
func worktree(t *testing.T, l *Launch) string {
	t.Helper()
	common := filepath.Join(filepath.Dir(l.Workdir), "checkout", ".git")
	gitdir := filepath.Join(common, "worktrees", "issue-7")
	require.NoError(t, os.MkdirAll(gitdir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(gitdir, "commondir"), []byte("../..\n"), 0o644))
	require.NoError(t, os.MkdirAll(l.Workdir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(l.Workdir, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644))
	return common
}

func TestPrepareCodex(t *testing.T) {
	l := launch(t)
	common := worktree(t, &l)
	l.Model, l.Effort = "gpt-5.5", "high"
	c := Config{Adapter: AdapterCodex, SecretEnv: []string{"OPENAI_API_KEY"}}
	p, err := Prepare("codex", c, l)
	require.NoError(t, err)
	assert.Equal(t, []string{"codex", "exec", "--json", "--ignore-user-config", "-C", l.Workdir, "-s", "workspace-write",
		"-c", "sandbox_workspace_write.network_access=true", "--add-dir", common,
		"-m", "gpt-5.5", "-c", `model_reasoning_effort="high"`,
		"-c", `mcp_servers.the-loop.command="/usr/local/bin/the-loop"`,
		"-c", `mcp_servers.the-loop.args=["serve", "--config", "/etc/the-loop/config.yaml", "--repo", "` + l.Workdir + `", "--work-item", "issue-7"]`,
		"-c", `mcp_servers.the-loop.env={"THE_LOOP_DB" = "/var/lib/the-loop/the-loop.db"}`,
		"-c", `mcp_servers.the-loop.default_tools_approval_mode="approve"`, "-"}, p.Argv)
	assert.Equal(t, p.PromptFile, p.StdinPath, "the prompt goes on stdin")
	assert.Equal(t, OutputCodexJSON, p.Output)
	assert.Empty(t, p.MCPConfig, "codex takes its server in -c overrides, not a file")
	assert.Equal(t, []string{p.PromptFile}, p.Files)
	assert.Empty(t, p.Notes)
	assert.Equal(t, Home{State: []string{".codex"}, Login: []string{".codex/auth.json"}}, p.Home)

	// A checkout's own .git (the-loop run) stays read-only in codex's
	// sandbox: the plan says so. Read-only sandboxes get no network.
	l2 := launch(t)
	p2, err := Prepare("codex", Config{Adapter: AdapterCodex, PermissionMode: "read-only", Binary: "/opt/codex/bin/codex"}, l2)
	require.NoError(t, err)
	assert.Equal(t, []string{"/opt/codex/bin/codex", "exec", "--json", "--ignore-user-config", "-C", l2.Workdir, "-s", "read-only"}, p2.Argv[:8])
	assert.NotContains(t, strings.Join(p2.Argv, " "), "network_access")
	l3 := launch(t)
	require.NoError(t, os.MkdirAll(filepath.Join(l3.Workdir, ".git"), 0o755))
	p3, err := Prepare("codex", Config{Adapter: AdapterCodex}, l3)
	require.NoError(t, err)
	require.Len(t, p3.Notes, 1)
	assert.Contains(t, p3.Notes[0], "keeps "+filepath.Join(l3.Workdir, ".git")+" read-only, so the session cannot commit there")
	assert.NotContains(t, p3.Argv, "--add-dir")
}

func TestPrepareGemini(t *testing.T) {
	l := launch(t)
	l.Model, l.Effort = "gemini-2.5-pro", "high"
	c := Config{Adapter: AdapterGemini, AllowedTools: []string{"run_shell_command(git)"}, SecretEnv: []string{"ANTHROPIC_API_KEY"}}
	p, err := Prepare("gemini", c, l)
	require.NoError(t, err)
	home := filepath.Join(l.Dir, "gemini-home")
	settings := filepath.Join(home, ".gemini", "settings.json")
	assert.Equal(t, []string{"gemini", "--skip-trust", "-o", "stream-json", "--approval-mode", "auto_edit", "--allowed-mcp-server-names", "the-loop",
		"-m", "gemini-2.5-pro"}, p.Argv)
	assert.Equal(t, p.PromptFile, p.StdinPath)
	assert.Equal(t, settings, p.MCPConfig)
	assert.Equal(t, []string{p.PromptFile, settings}, p.Files)
	assert.Equal(t, []string{home}, p.Writable, "Gemini CLI writes its history in the session's own home")
	assert.Equal(t, home, envMap(p.Env)["GEMINI_CLI_HOME"], "the session's own home: the user's settings and servers are not read")
	assert.Equal(t, "/home/loop", envMap(p.Env)["HOME"], "HOME itself is left alone")
	assert.Equal(t, []string{"effort high is not passed: gemini has no effort setting"}, p.Notes, "the plan says what the CLI cannot take")
	assert.Empty(t, p.Effort, "no effort is in effect")

	var doc map[string]any
	raw, err := os.ReadFile(settings)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &doc))
	assert.Equal(t, map[string]any{
		"mcpServers": map[string]any{"the-loop": map[string]any{"command": "/usr/local/bin/the-loop",
			"args":  []any{"serve", "--config", "/etc/the-loop/config.yaml", "--repo", l.Workdir, "--work-item", "issue-7"},
			"env":   map[string]any{"THE_LOOP_DB": "/var/lib/the-loop/the-loop.db"},
			"trust": true}},
		"mcp":   map[string]any{"allowed": []any{"the-loop"}},
		"tools": map[string]any{"allowed": []any{"run_shell_command(git)"}},
	}, doc)
	for _, path := range []string{settings, home} {
		fi, err := os.Stat(path)
		require.NoError(t, err)
		assert.Zero(t, fi.Mode().Perm()&0o077, "%s is the session's alone", path)
	}
	assert.Equal(t, "GEMINI_CLI_HOME="+home+" gemini --resume 9b1f", geminiAdapter{}.Resume(c, "9b1f", l.Dir))
}

func TestPrepareOpencode(t *testing.T) {
	l := launch(t)
	l.Model, l.Effort = "anthropic/claude-sonnet-4-5", "high"
	c := Config{Adapter: AdapterOpencode, AllowedTools: []string{"bash(git *)", "bash(go test *)", "webfetch"}}
	p, err := Prepare("opencode", c, l)
	require.NoError(t, err)
	assert.Equal(t, []string{"opencode", "run", "--format", "json", "-m", "anthropic/claude-sonnet-4-5", "--variant", "high"}, p.Argv)
	assert.Equal(t, p.PromptFile, p.StdinPath)
	assert.Empty(t, p.MCPConfig)
	env := envMap(p.Env)
	assert.Equal(t, "1", env["OPENCODE_DISABLE_PROJECT_CONFIG"], "the tree's opencode.json, which the session writes, is not read")
	var cfg map[string]any
	require.NoError(t, json.Unmarshal([]byte(env["OPENCODE_CONFIG_CONTENT"]), &cfg))
	assert.Equal(t, map[string]any{
		"mcp": map[string]any{"the-loop": map[string]any{"type": "local", "enabled": true,
			"command":     []any{"/usr/local/bin/the-loop", "serve", "--config", "/etc/the-loop/config.yaml", "--repo", l.Workdir, "--work-item", "issue-7"},
			"environment": map[string]any{"THE_LOOP_DB": "/var/lib/the-loop/the-loop.db"}}},
		"permission": map[string]any{"edit": "allow", "the-loop_*": "allow", "webfetch": "allow",
			"bash": map[string]any{"*": "ask", "git *": "allow", "go test *": "allow"}},
	}, cfg)

	p2, err := Prepare("opencode", Config{Adapter: AdapterOpencode, PermissionMode: "plan"}, launch(t))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal([]byte(envMap(p2.Env)["OPENCODE_CONFIG_CONTENT"]), &cfg))
	assert.Equal(t, map[string]any{"edit": "deny", "the-loop_*": "allow", "bash": "ask"}, cfg["permission"])
}

func TestEveryAdapterPassesThePromptAsAnArgumentInATerminal(t *testing.T) {
	tests := []struct {
		c    Config
		tail []string // the end of argv, with P for the prompt
	}{
		{Config{Adapter: AdapterClaude}, nil},
		{Config{Adapter: AdapterCodex}, []string{"--", "P"}},
		{Config{Adapter: AdapterGemini}, []string{"--prompt=P"}},
		{Config{Adapter: AdapterOpencode}, []string{"--", "P"}},
	}
	for _, tt := range tests {
		t.Run(tt.c.Adapter, func(t *testing.T) {
			l := launch(t)
			l.Terminal = true
			p, err := Prepare(tt.c.Adapter, tt.c, l)
			require.NoError(t, err)
			assert.Empty(t, p.StdinPath, "a terminal's stdin is not the prompt")
			if tt.tail != nil {
				got := p.Argv[len(p.Argv)-len(tt.tail):]
				want := make([]string, len(tt.tail))
				for i, s := range tt.tail {
					want[i] = strings.ReplaceAll(s, "P", l.Prompt)
				}
				assert.Equal(t, want, got)
			}
			assert.Contains(t, p.Recorded, "<prompt: "+p.PromptFile+">", "the record names the prompt file, not its text")
			assert.NotContains(t, strings.Join(p.Recorded, " "), "create-design")

			l.Prompt = strings.Repeat("x", MaxArgPrompt+1)
			_, err = Prepare(tt.c.Adapter, tt.c, l)
			assert.ErrorContains(t, err, "too long to pass in a terminal session")
		})
	}
}

func TestAHarnessTakesOnlyTheModelsItNames(t *testing.T) {
	l := launch(t)
	l.Model = "opus-5" // the item's checklist chose a model of another vendor
	p, err := Prepare("codex", Config{Adapter: AdapterCodex, Model: "gpt-5.5", Models: []string{"gpt-5.5", "gpt-5.5-mini"}}, l)
	require.NoError(t, err)
	assert.Equal(t, "gpt-5.5", p.Model, "its own model applies")
	assert.Equal(t, []string{"model opus-5 is not passed: harness codex takes only gpt-5.5 or gpt-5.5-mini; its model gpt-5.5 applies"}, p.Notes)
	l.Model = "gpt-5.5-mini"
	p, err = Prepare("codex", Config{Adapter: AdapterCodex, Model: "gpt-5.5", Models: []string{"gpt-5.5", "gpt-5.5-mini"}}, l)
	require.NoError(t, err)
	assert.Equal(t, "gpt-5.5-mini", p.Model)
	assert.Empty(t, p.Notes)
}

func TestNoAdapterPassesPollerSecretsOrExpansions(t *testing.T) {
	for _, name := range AdapterNames() {
		t.Run(name, func(t *testing.T) {
			c := Config{Adapter: name, Env: []string{"GOPATH"}}
			if name == AdapterCommand {
				c.Argv = []string{"agent", "{prompt_file}"}
			}
			p, err := Prepare(name, c, launch(t))
			require.NoError(t, err)
			for _, kv := range p.Env {
				assert.NotContains(t, kv, "0001", "no secret value under any name")
			}
			for _, f := range p.Files {
				b, err := os.ReadFile(f)
				require.NoError(t, err)
				assert.NotContains(t, string(b), "0001")
			}
			for _, bad := range []string{"/srv/$HOME/x", "/srv/{env:HOME}/x", "/srv/{file:/etc/passwd}/x"} {
				l := launch(t)
				l.Workdir = bad
				_, err := Prepare(name, c, l)
				assert.ErrorContains(t, err, "would be expanded by the harness", bad)
			}
		})
	}
}

func TestTOMLValuesAreTOML(t *testing.T) {
	assert.Equal(t, `"a \"b\" \\ c\n\u007f"`, tomlString("a \"b\" \\ c\n\x7f"))
	assert.Equal(t, `"<&>"`, tomlString("<&>"), "no HTML escaping")
	assert.Equal(t, `["x", "y z"]`, tomlArray([]string{"x", "y z"}))
	assert.Equal(t, `{"A" = "1", "B" = "2"}`, tomlTable(map[string]string{"B": "2", "A": "1"}))
}
