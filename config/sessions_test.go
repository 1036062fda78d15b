package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSessionBlocksDecodeWithDefaults(t *testing.T) {
	c, err := Parse([]byte(`harnesses:
  claude:
    adapter: claude
    model: sonnet
    secretEnv: [ANTHROPIC_API_KEY]
  cursor:
    adapter: command
    argv: [cursor-agent, -p, --prompt-file, "{prompt_file}"]
sessions:
  max: 2
  harness: claude
  budget:
    costUsd: 25
  relaunch:
    max: 5
`))
	require.NoError(t, err)
	assert.True(t, c.SessionsEnabled())
	assert.Equal(t, "claude", c.DefaultHarness())
	assert.Equal(t, "sonnet", c.Harnesses["claude"].Model)
	assert.Equal(t, []string{"cursor-agent", "-p", "--prompt-file", "{prompt_file}"}, c.Harnesses["cursor"].Argv)
	assert.Equal(t, 2, c.Sessions.Max)
	assert.Equal(t, 25.0, c.Sessions.Budget.CostUSD)
	assert.Equal(t, 5, c.Sessions.Relaunch.Max)
	assert.Equal(t, "process", c.Sessions.Runner, "defaulted")
	assert.Equal(t, 7200, c.Sessions.TimeLimitSeconds, "defaulted")
	assert.Equal(t, 30, c.Sessions.Relaunch.BackoffSeconds, "defaulted")
	assert.Equal(t, "origin", c.Sessions.Remote, "defaulted")
	assert.Equal(t, "auto", c.Sessions.Confinement, "sessions are confined unless the operator opts out")
	assert.Equal(t, int64(64<<20), c.Sessions.MaxTranscriptBytes, "defaulted")

	c, err = Parse([]byte("sessions:\n  confinement: auto\n  user: \"998:998\"\n  sandbox:\n    readOnly: [/opt/go]\n    writable: [/var/cache/go]\n  maxTranscriptBytes: 1048576\n"))
	require.NoError(t, err)
	assert.Equal(t, "998:998", c.Sessions.User)
	assert.Equal(t, []string{"/opt/go"}, c.Sessions.Sandbox.ReadOnly)
	assert.Equal(t, []string{"/var/cache/go"}, c.Sessions.Sandbox.Writable)
	assert.Equal(t, int64(1<<20), c.Sessions.MaxTranscriptBytes)
}

func TestNoHarnessMeansNoSessions(t *testing.T) {
	c, err := Parse(nil)
	require.NoError(t, err)
	assert.False(t, c.SessionsEnabled())
	assert.Equal(t, "", c.DefaultHarness())
	assert.Equal(t, 4, c.Sessions.Max, "the limits still have their defaults")

	one, err := Parse([]byte("harnesses:\n  fake:\n    adapter: command\n    argv: [fake, \"{prompt_file}\"]\n"))
	require.NoError(t, err)
	assert.Equal(t, "fake", one.DefaultHarness(), "the only harness is the default")

	every, err := Parse([]byte(`harnesses:
  claude: {adapter: claude}
  codex:
    adapter: codex
    model: gpt-5.5
    prices:
      gpt-5.5: {input: 1.25, cachedInput: 0.125, output: 10}
  gemini: {adapter: gemini, allowedTools: ["run_shell_command(git)"]}
  opencode: {adapter: opencode, model: anthropic/claude-sonnet-4-5, allowedTools: ["bash(git *)"]}
sessions:
  harness: claude
  nodes: {implementation: codex, critic-review: gemini}
  budget: {costUsd: 25, wallSeconds: 7200}
  repositoryBudget: {costUsd: 200, windowHours: 168}
`))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"implementation": "codex", "critic-review": "gemini"}, every.Sessions.Nodes)
	assert.Equal(t, 1.25, *every.Harnesses["codex"].Prices["gpt-5.5"].Input)
	assert.Equal(t, 7200, every.Sessions.Budget.WallSeconds)
	assert.Equal(t, 168, every.Sessions.RepositoryBudget.WindowHours)
}

func TestSessionBlocksRefuseBadValuesNamingKeyAndLine(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"unknown sessions key", "sessions:\n  maxSessions: 3\n", "line 2: sessions.maxSessions: field maxSessions not found"},
		{"unknown harness key", "harnesses:\n  claude:\n    adapter: claude\n    modle: x\n", "line 4: harnesses.claude.modle: field modle not found"},
		{"missing adapter", "harnesses:\n  x:\n    model: m\n", "harnesses.x.adapter: missing; set adapter: claude, codex, gemini, opencode or command"},
		{"unknown placeholder", "harnesses:\n  c:\n    adapter: command\n    argv: [a, \"{prompt_file}\", \"{token}\"]\n", "line 4: harnesses.c.argv[2]: unknown placeholder {token}"},
		{"secret in env", "harnesses:\n  c:\n    adapter: claude\n    env: [GITHUB_TOKEN]\n", "harnesses.c.env[0]: GITHUB_TOKEN holds a secret"},
		{"bad runner", "sessions:\n  runner: screen\n", `line 2: sessions.runner: "screen" is not one of process, tmux`},
		{"negative max", "sessions:\n  max: -1\n", "line 2: sessions.max: -1 is negative"},
		{"unknown default harness", "harnesses:\n  c:\n    adapter: claude\nsessions:\n  harness: cursor\n", `line 5: sessions.harness: "cursor" is not a configured harness`},
		{"relative trees", "sessions:\n  trees: trees\n", `line 2: sessions.trees: "trees" is not an absolute path`},
		{"bad remote", "sessions:\n  remote: \"--upload-pack=x\"\n", "line 2: sessions.remote"},
		{"half an author", "sessions:\n  commitName: Loop\n", "sessions.commitName: give both commitName and commitEmail"},
		{"node pinned to an unknown harness", "harnesses:\n  c:\n    adapter: claude\nsessions:\n  nodes:\n    design: codex\n", `line 6: sessions.nodes.design: "codex" is not a configured harness; name an entry of harnesses:`},
		{"bad node id", "harnesses:\n  c:\n    adapter: claude\nsessions:\n  nodes:\n    Design Phase: c\n", `sessions.nodes.Design Phase: "Design Phase" is not a node id`},
		{"codex price", "harnesses:\n  x:\n    adapter: codex\n    prices:\n      gpt-5.5: {input: 1}\n", "harnesses.x.prices.gpt-5.5: give input and output, in US dollars per million tokens"},
		{"gemini effort", "harnesses:\n  g:\n    adapter: gemini\n    effort: high\n", "line 4: harnesses.g.effort: gemini has no effort setting; remove effort"},
		{"repository budget window", "sessions:\n  repositoryBudget:\n    windowHours: -1\n", "sessions.repositoryBudget.windowHours: -1 is negative"},
		{"bad confinement", "sessions:\n  confinement: off\n", `line 2: sessions.confinement: "off" is not one of auto, none`},
		{"an account unconfined", "sessions:\n  confinement: none\n  user: the-loop-session\n", "sessions.user: applies only when sessions are confined"},
		{"relative sandbox path", "sessions:\n  sandbox:\n    writable: [cache]\n", `sessions.sandbox.writable[0]: "cache" is not an absolute path`},
		{"unknown sandbox key", "sessions:\n  sandbox:\n    readonly: [/opt]\n", "line 3: sessions.sandbox.readonly: field readonly not found"},
		{"tiny transcript cap", "sessions:\n  maxTranscriptBytes: 100\n", "line 2: sessions.maxTranscriptBytes: 100 is too small"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
