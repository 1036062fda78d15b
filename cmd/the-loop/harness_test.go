package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/internal/testbin"
)

// TestHarnessListSaysWhichHarnessesCanRun: the fake harness stands in for
// each agent CLI (answering with the pinned version's help); one harness
// names a program that is missing. The list says which can run and why
// not, and exits 1.
func TestHarnessListSaysWhichHarnessesCanRun(t *testing.T) {
	fake := testbin.Build(t, "github.com/the-loop/the-loop/agents/harness/fakeharness")
	dir := t.TempDir()
	yaml := "harnesses:\n"
	for _, cli := range []string{"claude", "codex", "gemini", "opencode"} {
		link := filepath.Join(dir, cli)
		require.NoError(t, os.Symlink(fake, link))
		yaml += "  " + cli + ":\n    adapter: " + cli + "\n    binary: " + link + "\n"
	}
	yaml += "  gone:\n    adapter: codex\n    binary: /nonexistent/codex\n"
	yaml += "  cursor:\n    adapter: command\n    argv: [" + fake + ", --prompt-file, \"{prompt_file}\"]\n"
	cfg := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(yaml), 0o600))

	out, stderr, code := runCLI(t, nil, "harness", "list", "--config", cfg)
	assert.Equal(t, exitUnmet, code, "a configured harness that cannot run is unmet")
	assert.Contains(t, stderr, "1 of 6 configured harnesses cannot run here")
	assert.Contains(t, out, "codex (adapter codex): runs "+filepath.Join(dir, "codex")+", codex-cli 0.171.0\n  flags: `"+filepath.Join(dir, "codex")+
		" exec --help` lists every flag it passes (6)\n  reads: codex-json; cost unknown: add prices for its models\n")
	assert.Contains(t, out, "claude (adapter claude): runs "+filepath.Join(dir, "claude")+", 2.1.332 (Claude Code)")
	assert.Contains(t, out, "  reads: stream-json; cost reported by claude\n")
	assert.Contains(t, out, "gemini (adapter gemini): runs "+filepath.Join(dir, "gemini")+", 0.61.0")
	assert.Contains(t, out, "opencode (adapter opencode): runs "+filepath.Join(dir, "opencode")+", 1.18.33")
	assert.Contains(t, out, "gone (adapter codex): cannot run: executable /nonexistent/codex does not exist; install it, or fix harnesses.gone.binary\n")
	assert.Contains(t, out, "cursor (adapter command): runs "+fake)
	assert.Contains(t, out, "  flags: not checked (the command adapter runs the argv you configured)\n")

	out, _, _ = runCLI(t, nil, "harness", "list", "--config", cfg, "--format", "json")
	var res struct {
		Harnesses []struct {
			Name      string   `json:"name"`
			Available bool     `json:"available"`
			Flags     []string `json:"flags"`
		} `json:"harnesses"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	require.Len(t, res.Harnesses, 6)
	assert.Equal(t, "claude", res.Harnesses[0].Name, "in name order")
	assert.Contains(t, res.Harnesses[0].Flags, "--strict-mcp-config")

	none := filepath.Join(dir, "none.yaml")
	require.NoError(t, os.WriteFile(none, nil, 0o600))
	out, stderr, code = runCLI(t, nil, "harness", "list", "--config", none)
	assert.Equal(t, exitOK, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "no harness is configured; an operator adds one under `harnesses:`")

	_, stderr, code = runCLI(t, nil, "harness", "list", "extra")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "harness list takes no arguments")
}

// docs/sessions.md's configurations load as they are shown: every harness
// of every adapter, the node pins and the limits.
func TestSessionsPageConfigsLoad(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "sessions.md"))
	require.NoError(t, err)
	blocks := fencedBlocks(string(data))["yaml"]
	require.GreaterOrEqual(t, len(blocks), 3)
	adapters := map[string]bool{}
	base := "" // the page's harnesses, which its other blocks name
	for _, y := range blocks {
		if strings.HasPrefix(y, "harnesses:") {
			base = y
			break
		}
	}
	require.NotEmpty(t, base)
	for _, y := range blocks {
		if !strings.HasPrefix(y, "harnesses:") {
			y = base + "\n" + y
		}
		c, err := config.Parse([]byte(y))
		require.NoError(t, err, "a config on the page does not load:\n%s", y)
		for _, h := range c.Harnesses {
			adapters[h.Adapter] = true
		}
	}
	assert.Equal(t, map[string]bool{"claude": true, "codex": true, "gemini": true, "opencode": true, "command": true}, adapters,
		"the page configures every adapter")
}
