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

// pollerEnv is the poller's environment in these tests.
var pollerEnv = map[string]string{
	"PATH":                 "/usr/bin:/bin",
	"HOME":                 "/home/loop",
	"GITHUB_TOKEN":         "ghp_pollertoken0001",
	"THE_LOOP_SIGNING_KEY": "signing-key-0001",
	"TRACKER_CREDS":        "tracker-0001",
	"ANTHROPIC_API_KEY":    "sk-ant-session-0001",
	"GOPATH":               "/home/loop/go",
}

func launch(t *testing.T) Launch {
	t.Helper()
	base := t.TempDir()
	return Launch{
		SessionID: "s-1", WorkItem: "issue-7", Node: "design",
		Prompt:  "Run /the-loop:create-design issue-7.\n",
		Workdir: filepath.Join(base, "trees", "issue-7"), Dir: filepath.Join(base, "sessions", "s-1"),
		Serve:     []string{"/usr/local/bin/the-loop", "serve", "--config", "/etc/the-loop/config.yaml"},
		ServeEnv:  map[string]string{"THE_LOOP_DB": "/var/lib/the-loop/the-loop.db"},
		Sensitive: []string{"TRACKER_CREDS"},
		Lookup:    func(n string) (string, bool) { v, ok := pollerEnv[n]; return v, ok },
	}
}

func envMap(list []string) map[string]string {
	m := map[string]string{}
	for _, kv := range list {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

func TestPrepareClaude(t *testing.T) {
	l := launch(t)
	c := Config{Adapter: AdapterClaude, Model: "sonnet", AllowedTools: []string{"Read", "Bash(go test *)"}, SecretEnv: []string{"ANTHROPIC_API_KEY"}}
	l.Model = "opus" // the item's checklist choice wins over the harness default
	p, err := Prepare("claude", c, l)
	require.NoError(t, err)
	assert.Equal(t, []string{"claude", "-p", "--output-format", "stream-json", "--verbose",
		"--mcp-config", filepath.Join(l.Dir, "mcp.json"), "--strict-mcp-config",
		"--model", "opus", "--permission-mode", "acceptEdits",
		"--allowedTools", "mcp__the-loop", "Read", "Bash(go test *)"}, p.Argv)
	assert.Equal(t, p.Argv, p.Recorded)
	assert.Equal(t, l.Workdir, p.Dir)
	assert.Equal(t, p.PromptFile, p.StdinPath, "the prompt goes on stdin")
	assert.Equal(t, OutputStreamJSON, p.Output)
	assert.Equal(t, "opus", p.Model)
	assert.Empty(t, p.Effort)

	prompt, err := os.ReadFile(p.PromptFile)
	require.NoError(t, err)
	assert.Equal(t, l.Prompt, string(prompt))
	for _, f := range []string{p.PromptFile, p.MCPConfig} {
		fi, err := os.Stat(f)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), f)
	}
	fi, err := os.Stat(l.Dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())

	var doc map[string]map[string]map[string]any
	raw, err := os.ReadFile(p.MCPConfig)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &doc))
	require.Len(t, doc["mcpServers"], 1, "the item's server is the only one")
	srv := doc["mcpServers"]["the-loop"]
	assert.Equal(t, "stdio", srv["type"])
	assert.Equal(t, "/usr/local/bin/the-loop", srv["command"])
	assert.Equal(t, []any{"serve", "--config", "/etc/the-loop/config.yaml", "--repo", l.Workdir, "--work-item", "issue-7"}, srv["args"])
	assert.Equal(t, map[string]any{"THE_LOOP_DB": "/var/lib/the-loop/the-loop.db"}, srv["env"])

	env := envMap(p.Env)
	assert.Equal(t, "sk-ant-session-0001", env["ANTHROPIC_API_KEY"], "a secret named in secretEnv is passed on purpose")
	assert.Equal(t, "issue-7", env["THE_LOOP_WORK_ITEM"])
	assert.Equal(t, "design", env["THE_LOOP_NODE"])
	assert.Equal(t, "s-1", env["THE_LOOP_SESSION"])

	// Without a model anywhere the flag is left out: the harness's own default.
	l2 := launch(t)
	p2, err := Prepare("claude", Config{Adapter: AdapterClaude, Effort: "high", PermissionMode: "plan", Binary: "/opt/claude"}, l2)
	require.NoError(t, err)
	assert.Equal(t, []string{"/opt/claude", "-p", "--output-format", "stream-json", "--verbose",
		"--mcp-config", filepath.Join(l2.Dir, "mcp.json"), "--strict-mcp-config",
		"--effort", "high", "--permission-mode", "plan", "--allowedTools", "mcp__the-loop"}, p2.Argv)
}

func TestPrepareClaudeInATerminalPassesThePromptAsAnArgument(t *testing.T) {
	l := launch(t)
	l.Terminal = true
	p, err := Prepare("claude", Config{Adapter: AdapterClaude}, l)
	require.NoError(t, err)
	assert.Equal(t, []string{"claude", "-p", l.Prompt, "--output-format", "stream-json", "--verbose"}, p.Argv[:6])
	assert.Empty(t, p.StdinPath)
	assert.Equal(t, "<prompt: "+p.PromptFile+">", p.Recorded[2], "the record names the prompt file, not its text")

	l.Prompt = "--dangerously-skip-permissions and then the task"
	p, err = Prepare("claude", Config{Adapter: AdapterClaude}, l)
	require.NoError(t, err)
	assert.Equal(t, "\n--dangerously-skip-permissions and then the task", p.Argv[2], "a prompt is never read as an option")

	l.Prompt = strings.Repeat("x", MaxArgPrompt+1)
	_, err = Prepare("claude", Config{Adapter: AdapterClaude}, l)
	assert.ErrorContains(t, err, "too long to pass in a terminal session")
}

func TestPrepareNeverPassesPollerSecrets(t *testing.T) {
	for _, c := range []Config{
		{Adapter: AdapterClaude, Env: []string{"GOPATH"}},
		{Adapter: AdapterCommand, Argv: []string{"agent", "{prompt_file}"}, Env: []string{"GOPATH"}},
	} {
		p, err := Prepare("h", c, launch(t))
		require.NoError(t, err)
		env := envMap(p.Env)
		for _, secret := range []string{"GITHUB_TOKEN", "THE_LOOP_SIGNING_KEY", "TRACKER_CREDS", "ANTHROPIC_API_KEY"} {
			assert.NotContains(t, env, secret)
		}
		assert.Equal(t, "/home/loop/go", env["GOPATH"])
		assert.Equal(t, "/usr/bin:/bin", env["PATH"])
		for _, v := range p.Env {
			assert.NotContains(t, v, "0001", "no secret value under any name")
		}
	}
	// A variable the poller's config marks as a secret is refused even
	// when its name looks harmless.
	_, err := Prepare("h", Config{Adapter: AdapterClaude, Env: []string{"TRACKER_CREDS"}}, launch(t))
	assert.Error(t, err)
	l := launch(t)
	l.Sensitive = []string{"GOPATH"}
	_, err = Prepare("h", Config{Adapter: AdapterClaude, Env: []string{"GOPATH"}}, l)
	assert.ErrorContains(t, err, `"GOPATH": holds a secret`)
}

func TestPrepareCommandExpandsTheTemplate(t *testing.T) {
	tmpl := []string{"agent", "run", "--prompt-file", "{prompt_file}", "--mcp={mcp_config}", "--model", "{model}",
		"--effort={effort}", "--cwd", "{workdir}", "--item", "{work_item}", `{"literal": "json"}`}
	l := launch(t)
	l.Model, l.Effort = "gpt-5.5", "high"
	p, err := Prepare("cursor", Config{Adapter: AdapterCommand, Argv: tmpl, Output: OutputStreamJSON}, l)
	require.NoError(t, err)
	assert.Equal(t, []string{"agent", "run", "--prompt-file", p.PromptFile, "--mcp=" + p.MCPConfig, "--model", "gpt-5.5",
		"--effort=high", "--cwd", l.Workdir, "--item", "issue-7", `{"literal": "json"}`}, p.Argv)
	assert.Empty(t, p.StdinPath)
	assert.Equal(t, OutputStreamJSON, p.Output)

	// No model or effort: those arguments (and the bare flag before one)
	// are left out, so the harness uses its own default.
	p2, err := Prepare("cursor", Config{Adapter: AdapterCommand, Argv: tmpl}, launch(t))
	require.NoError(t, err)
	assert.Equal(t, []string{"agent", "run", "--prompt-file", p2.PromptFile, "--mcp=" + p2.MCPConfig,
		"--cwd", p2.Dir, "--item", "issue-7", `{"literal": "json"}`}, p2.Argv)
	assert.Equal(t, OutputText, p2.Output)
}

func TestPrepareRecordsArgvWithSecretsRedacted(t *testing.T) {
	l := launch(t)
	l.Redact = []string{"ghp_pollertoken0001"}
	c := Config{Adapter: AdapterCommand, SecretEnv: []string{"ANTHROPIC_API_KEY"},
		Argv: []string{"agent", "--api-key", "sk-ant-session-0001", "--header=ghp_pollertoken0001", "--token=abc", "{prompt_file}"}}
	p, err := Prepare("x", c, l)
	require.NoError(t, err)
	assert.Equal(t, []string{"agent", "--api-key", "[redacted]", "--header=[redacted]", "--token=[redacted]", p.PromptFile}, p.Recorded)
	assert.Equal(t, "sk-ant-session-0001", p.Argv[2], "only the record is redacted")
}

func TestPrepareRefusesBadLaunches(t *testing.T) {
	c := Config{Adapter: AdapterClaude}
	tests := []struct {
		name   string
		mutate func(*Launch)
		want   string
	}{
		{"no session id", func(l *Launch) { l.SessionID = "" }, "required"},
		{"relative workdir", func(l *Launch) { l.Workdir = "trees/x" }, "absolute"},
		{"no serve program", func(l *Launch) { l.Serve = nil }, "Serve"},
		{"empty prompt", func(l *Launch) { l.Prompt = " \n" }, "prompt is empty"},
		{"model like a flag", func(l *Launch) { l.Model = "--dangerously-skip-permissions" }, "not a model name"},
		{"expansion in the server path", func(l *Launch) { l.Workdir = "/srv/${HOME}/x" }, "would be expanded"},
		{"secret in the server env", func(l *Launch) { l.ServeEnv = map[string]string{"GITHUB_TOKEN": "x"} }, "refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := launch(t)
			tt.mutate(&l)
			_, err := Prepare("claude", c, l)
			assert.ErrorContains(t, err, tt.want)
		})
	}
	_, err := Prepare("bad", Config{Adapter: "nope"}, launch(t))
	assert.ErrorContains(t, err, "harnesses.bad.adapter")
}

func TestAPullRequestsSessionServesItsItemWhereTheItemLives(t *testing.T) {
	l := launch(t)
	item := l.Workdir
	l.Workdir, l.ServeRepo = filepath.Join(filepath.Dir(item), "octo-widgets.issue-7"), item
	l.PR, l.PRRepo = 7, "octo/infra"
	p, err := Prepare("claude", Config{Adapter: AdapterClaude}, l)
	require.NoError(t, err)
	assert.Equal(t, l.Workdir, p.Dir, "the session runs in the pull request's own tree")
	raw, err := os.ReadFile(p.MCPConfig)
	require.NoError(t, err)
	var cfg struct {
		MCPServers map[string]struct{ Args []string } `json:"mcpServers"`
	}
	require.NoError(t, json.Unmarshal(raw, &cfg))
	assert.Equal(t, []string{"serve", "--config", "/etc/the-loop/config.yaml", "--repo", item, "--work-item", "issue-7"},
		cfg.MCPServers[ServerName].Args, "its server serves the item in the item's tree, where its state lives")
	env := envMap(p.Env)
	assert.Equal(t, "7", env["THE_LOOP_PR"])
	assert.Equal(t, "octo/infra", env["THE_LOOP_PR_REPO"])

	own := launch(t)
	p, err = Prepare("claude", Config{Adapter: AdapterClaude}, own)
	require.NoError(t, err)
	_, set := envMap(p.Env)["THE_LOOP_PR"]
	assert.False(t, set, "the item's own loop names no pull request")

	l.ServeRepo = "relative/tree"
	_, err = Prepare("claude", Config{Adapter: AdapterClaude}, l)
	assert.ErrorContains(t, err, "must be absolute paths")
}
