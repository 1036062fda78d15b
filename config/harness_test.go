package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func TestHarnessDecodesFromYAML(t *testing.T) {
	doc := `
claude:
  adapter: claude
  model: opus
  effort: high
  permissionMode: acceptEdits
  allowedTools: [Read, Edit, "Bash(go test *)"]
  env: [GOPATH]
  secretEnv: [ANTHROPIC_API_KEY]
cursor:
  adapter: command
  argv: [cursor-agent, -p, --model, "{model}", --prompt-file, "{prompt_file}", --mcp, "{mcp_config}"]
  output: text
`
	var hs map[string]Harness
	dec := yaml.NewDecoder(strings.NewReader(doc))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(&hs))
	require.NoError(t, ValidateHarnesses(hs))
	assert.Equal(t, Harness{Adapter: "claude", Model: "opus", Effort: "high", PermissionMode: "acceptEdits",
		AllowedTools: []string{"Read", "Edit", "Bash(go test *)"}, Env: []string{"GOPATH"}, SecretEnv: []string{"ANTHROPIC_API_KEY"}}, hs["claude"])
	assert.Equal(t, "command", hs["cursor"].Adapter)
}

func TestHarnessValidateNamesTheFieldAndTheFix(t *testing.T) {
	tests := []struct {
		name    string
		hs      map[string]Harness
		wantKey string
		wantMsg string
	}{
		{"missing adapter", map[string]Harness{"a": {}}, "harnesses.a.adapter", "missing; set adapter: claude, codex, gemini, opencode or command"},
		{"unknown adapter", map[string]Harness{"a": {Adapter: "cursor"}}, "harnesses.a.adapter", `"cursor" is not an adapter; use claude, codex, gemini, opencode or command`},
		{"bad name", map[string]Harness{"Bad Name": {Adapter: "claude"}}, "harnesses.Bad Name", "lower-case letters"},
		{"claude with argv", map[string]Harness{"c": {Adapter: "claude", Argv: []string{"x"}}}, "harnesses.c.argv", "command adapter only"},
		{"claude with text output", map[string]Harness{"c": {Adapter: "claude", Output: "text"}}, "harnesses.c.output", "always reads stream-json"},
		{"claude bad permission mode", map[string]Harness{"c": {Adapter: "claude", PermissionMode: "accept edits"}}, "harnesses.c.permissionMode", `"accept edits" is not one of acceptEdits, default, manual, dontAsk or plan`},
		{"claude bypass", map[string]Harness{"c": {Adapter: "claude", PermissionMode: "bypassPermissions"}}, "harnesses.c.permissionMode", `"bypassPermissions" is a bypass of every permission check; the loop never runs a session without its approvals`},
		{"claude auto", map[string]Harness{"c": {Adapter: "claude", PermissionMode: "auto"}}, "harnesses.c.permissionMode", "lets a model approve tool calls"},
		{"claude prices", map[string]Harness{"c": {Adapter: "claude", Prices: map[string]Price{"opus": {Input: f(1), Output: f(2)}}}}, "harnesses.c.prices", "claude reports its own cost, so prices would never be read"},
		{"codex argv", map[string]Harness{"x": {Adapter: "codex", Argv: []string{"codex"}}}, "harnesses.x.argv", "the codex adapter builds its own argv"},
		{"codex output", map[string]Harness{"x": {Adapter: "codex", Output: "text"}}, "harnesses.x.output", "the codex adapter always reads codex-json"},
		{"codex tools", map[string]Harness{"x": {Adapter: "codex", AllowedTools: []string{"shell"}}}, "harnesses.x.allowedTools", "codex has no tool allow-list"},
		{"codex sandbox", map[string]Harness{"x": {Adapter: "codex", PermissionMode: "full"}}, "harnesses.x.permissionMode", `"full" is not one of workspace-write, read-only or danger-full-access`},
		{"codex bypass", map[string]Harness{"x": {Adapter: "codex", PermissionMode: "dangerously-bypass-approvals-and-sandbox"}}, "harnesses.x.permissionMode", "the loop never runs a session without its approvals"},
		{"codex price without output", map[string]Harness{"x": {Adapter: "codex", Prices: map[string]Price{"gpt-5.5": {Input: f(1.25)}}}}, "harnesses.x.prices.gpt-5.5", "give input and output"},
		{"codex negative price", map[string]Harness{"x": {Adapter: "codex", Prices: map[string]Price{"gpt-5.5": {Input: f(1.25), Output: f(-1)}}}}, "harnesses.x.prices.gpt-5.5.output", "-1 is not a price"},
		{"codex bad price model", map[string]Harness{"x": {Adapter: "codex", Prices: map[string]Price{"gpt 5": {Input: f(1), Output: f(1)}}}}, "harnesses.x.prices.gpt 5", "not a model name"},
		{"gemini effort", map[string]Harness{"g": {Adapter: "gemini", Effort: "high"}}, "harnesses.g.effort", "gemini has no effort setting; remove effort"},
		{"gemini yolo", map[string]Harness{"g": {Adapter: "gemini", PermissionMode: "yolo"}}, "harnesses.g.permissionMode", `"yolo" approves every tool call; the loop never runs a session without its approvals (use auto_edit, default or plan)`},
		{"opencode auto", map[string]Harness{"o": {Adapter: "opencode", PermissionMode: "auto"}}, "harnesses.o.permissionMode", "approves whatever is not denied"},
		{"opencode rule", map[string]Harness{"o": {Adapter: "opencode", AllowedTools: []string{"Bash(git *)"}}}, "harnesses.o.allowedTools[0]", `"Bash(git *)" is not an opencode rule; give a tool, or a tool and a pattern, e.g. webfetch or "bash(git *)"`},
		{"bad models entry", map[string]Harness{"o": {Adapter: "opencode", Models: []string{"a b"}}}, "harnesses.o.models[0]", "not a model name"},
		{"claude tool with a comma", map[string]Harness{"c": {Adapter: "claude", AllowedTools: []string{"Read,Edit"}}}, "harnesses.c.allowedTools[0]", "one rule per entry"},
		{"claude tool like a flag", map[string]Harness{"c": {Adapter: "claude", AllowedTools: []string{"--dangerously-skip-permissions"}}}, "harnesses.c.allowedTools[0]", "not a tool rule"},
		{"bad model", map[string]Harness{"c": {Adapter: "claude", Model: "opus; rm -rf"}}, "harnesses.c.model", "not a model name"},
		{"model like a flag", map[string]Harness{"c": {Adapter: "claude", Model: "--help"}}, "harnesses.c.model", "not a model name"},
		{"bad effort", map[string]Harness{"c": {Adapter: "claude", Effort: "HIGH"}}, "harnesses.c.effort", "not an effort level"},
		{"command without argv", map[string]Harness{"x": {Adapter: "command"}}, "harnesses.x.argv", "missing"},
		{"command with binary", map[string]Harness{"x": {Adapter: "command", Binary: "b", Argv: []string{"a", "{prompt_file}"}}}, "harnesses.x.binary", "does not apply to the command adapter; put the program in argv[0]"},
		{"command with allowedTools", map[string]Harness{"x": {Adapter: "command", AllowedTools: []string{"Read"}, Argv: []string{"a", "{prompt_file}"}}}, "harnesses.x.allowedTools", "does not apply to the command adapter"},
		{"unknown placeholder", map[string]Harness{"x": {Adapter: "command", Argv: []string{"a", "{prompt_file}", "--x={token}"}}}, "harnesses.x.argv[2]", "unknown placeholder {token}; use {prompt_file}, {mcp_config}"},
		{"placeholder as the program", map[string]Harness{"x": {Adapter: "command", Argv: []string{"{workdir}/agent", "{prompt_file}"}}}, "harnesses.x.argv[0]", "program must be fixed"},
		{"no prompt file", map[string]Harness{"x": {Adapter: "command", Argv: []string{"agent", "{mcp_config}"}}}, "harnesses.x.argv", "never names {prompt_file}"},
		{"bad output", map[string]Harness{"x": {Adapter: "command", Argv: []string{"a", "{prompt_file}"}, Output: "json"}}, "harnesses.x.output", `"json" is not one of text, stream-json, codex-json, gemini-json, opencode-json`},
		{"secret in env", map[string]Harness{"c": {Adapter: "claude", Env: []string{"PATH", "GITHUB_TOKEN"}}}, "harnesses.c.env[1]", "GITHUB_TOKEN holds a secret, so a session never gets it from env; list it under harnesses.c.secretEnv"},
		{"malformed env", map[string]Harness{"c": {Adapter: "claude", Env: []string{"A-B"}}}, "harnesses.c.env[0]", "not a valid variable name"},
		{"malformed secretEnv", map[string]Harness{"c": {Adapter: "claude", SecretEnv: []string{"9X"}}}, "harnesses.c.secretEnv[0]", "not a valid variable name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateHarnesses(tt.hs)
			require.Error(t, err)
			var fe *FieldError
			require.True(t, errors.As(err, &fe), "%T %v", err, err)
			assert.Equal(t, tt.wantKey, fe.Key)
			assert.Contains(t, fe.Msg, tt.wantMsg)
		})
	}
	assert.NoError(t, ValidateHarnesses(nil))
	assert.NoError(t, ValidateHarnesses(map[string]Harness{"x": {Adapter: "command", Argv: []string{"agent", `{"json": "braces are fine"}`, "{prompt_file}"}}}))
	assert.NoError(t, ValidateHarnesses(map[string]Harness{
		"codex":    {Adapter: "codex", Model: "gpt-5.5", Effort: "high", PermissionMode: "read-only", Prices: map[string]Price{"gpt-5.5": {Input: f(1.25), Output: f(10), CachedInput: f(0.125)}}},
		"gemini":   {Adapter: "gemini", PermissionMode: "plan", AllowedTools: []string{"run_shell_command(git)"}, Prices: map[string]Price{"gemini-2.5-pro": {Input: f(1.25), Output: f(10)}}},
		"opencode": {Adapter: "opencode", Model: "anthropic/claude-sonnet-4-5", AllowedTools: []string{"bash(git *)", "webfetch"}},
		"free":     {Adapter: "codex", Prices: map[string]Price{"local": {Input: f(0), Output: f(0)}}},
	}))
}

func f(v float64) *float64 { return &v }
