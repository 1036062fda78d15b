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
		{"missing adapter", map[string]Harness{"a": {}}, "harnesses.a.adapter", "set adapter: claude or adapter: command"},
		{"unknown adapter", map[string]Harness{"a": {Adapter: "cursor"}}, "harnesses.a.adapter", `"cursor" is not an adapter`},
		{"bad name", map[string]Harness{"Bad Name": {Adapter: "claude"}}, "harnesses.Bad Name", "lower-case letters"},
		{"claude with argv", map[string]Harness{"c": {Adapter: "claude", Argv: []string{"x"}}}, "harnesses.c.argv", "command adapter only"},
		{"claude with text output", map[string]Harness{"c": {Adapter: "claude", Output: "text"}}, "harnesses.c.output", "always reads stream-json"},
		{"claude bad permission mode", map[string]Harness{"c": {Adapter: "claude", PermissionMode: "accept edits"}}, "harnesses.c.permissionMode", "not a permission mode"},
		{"claude tool with a comma", map[string]Harness{"c": {Adapter: "claude", AllowedTools: []string{"Read,Edit"}}}, "harnesses.c.allowedTools[0]", "one rule per entry"},
		{"claude tool like a flag", map[string]Harness{"c": {Adapter: "claude", AllowedTools: []string{"--dangerously-skip-permissions"}}}, "harnesses.c.allowedTools[0]", "not a tool rule"},
		{"bad model", map[string]Harness{"c": {Adapter: "claude", Model: "opus; rm -rf"}}, "harnesses.c.model", "not a model name"},
		{"model like a flag", map[string]Harness{"c": {Adapter: "claude", Model: "--help"}}, "harnesses.c.model", "not a model name"},
		{"bad effort", map[string]Harness{"c": {Adapter: "claude", Effort: "HIGH"}}, "harnesses.c.effort", "not an effort level"},
		{"command without argv", map[string]Harness{"x": {Adapter: "command"}}, "harnesses.x.argv", "missing"},
		{"command with binary", map[string]Harness{"x": {Adapter: "command", Binary: "b", Argv: []string{"a", "{prompt_file}"}}}, "harnesses.x.binary", "claude adapter only"},
		{"command with allowedTools", map[string]Harness{"x": {Adapter: "command", AllowedTools: []string{"Read"}, Argv: []string{"a", "{prompt_file}"}}}, "harnesses.x.allowedTools", "claude adapter only"},
		{"unknown placeholder", map[string]Harness{"x": {Adapter: "command", Argv: []string{"a", "{prompt_file}", "--x={token}"}}}, "harnesses.x.argv[2]", "unknown placeholder {token}; use {prompt_file}, {mcp_config}"},
		{"placeholder as the program", map[string]Harness{"x": {Adapter: "command", Argv: []string{"{workdir}/agent", "{prompt_file}"}}}, "harnesses.x.argv[0]", "program must be fixed"},
		{"no prompt file", map[string]Harness{"x": {Adapter: "command", Argv: []string{"agent", "{mcp_config}"}}}, "harnesses.x.argv", "never names {prompt_file}"},
		{"bad output", map[string]Harness{"x": {Adapter: "command", Argv: []string{"a", "{prompt_file}"}, Output: "json"}}, "harnesses.x.output", "not one of text, stream-json"},
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
}
