package harness

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/harness/harnesstest"
	"github.com/the-loop/the-loop/internal/testbin"
)

// persona puts the fake harness in dir under cli's name, answering with
// the pinned CLI's help and version, or with the sidecar's.
func persona(t *testing.T, dir, cli string, sidecar map[string]any) string {
	t.Helper()
	bin := testbin.Build(t, "github.com/the-loop/the-loop/agents/harness/fakeharness")
	link := filepath.Join(dir, cli)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.Symlink(bin, link))
	if sidecar != nil {
		b, err := json.Marshal(sidecar)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(link+".fake.json", b, 0o644))
	}
	return link
}

func TestProbeChecksEveryFlagTheAdapterPassesAgainstTheCLIsHelp(t *testing.T) {
	dir := t.TempDir()
	opts := ProbeOptions{Lookup: func(n string) (string, bool) {
		if n == "PATH" {
			return dir + ":/usr/bin:/bin", true
		}
		return "", false
	}, Timeout: time.Minute}
	for _, cli := range harnesstest.CLIs {
		t.Run(cli, func(t *testing.T) {
			link := persona(t, filepath.Join(dir, "pinned"), cli, nil)
			c := Config{Adapter: cli, Binary: link}
			if cli != AdapterGemini {
				c.Effort = "high"
			}
			c.Model = map[string]string{"claude": "opus", "codex": "gpt-5.5", "gemini": "gemini-2.5-pro", "opencode": "anthropic/claude-sonnet-4-5"}[cli]
			st := Probe(context.Background(), cli, c, opts)
			require.True(t, st.Available, st.Unavailable)
			assert.Equal(t, link, st.Path)
			version, _ := harnesstest.Version(cli)
			assert.Equal(t, strings.TrimSpace(string(version)), st.Version)
			assert.NotEmpty(t, st.Flags)
			assert.Empty(t, st.Mismatch)
			assert.Contains(t, st.Help, "--help")
			if cli == AdapterGemini {
				assert.Subset(t, st.Flags, []string{"--skip-trust", "-o", "--approval-mode", "--allowed-mcp-server-names", "-m", "--prompt"},
					"the prompt a terminal session passes as --prompt=<text> is checked as --prompt")
			}
			if cli == AdapterCodex {
				assert.Subset(t, st.Flags, []string{"--json", "--ignore-user-config", "-C", "-s", "-c", "--add-dir", "-m"})
			}
		})
	}

	// An older codex whose help does not list --ignore-user-config, and
	// whose sandbox choices lack workspace-write, cannot run.
	help, err := harnesstest.Help("codex")
	require.NoError(t, err)
	old := strings.ReplaceAll(string(help), "--ignore-user-config", "--ignore-nothing")
	old = strings.ReplaceAll(old, "workspace-write, ", "")
	link := persona(t, filepath.Join(dir, "old"), "codex", map[string]any{"help": old, "version": "codex-cli 0.100.0"})
	st := Probe(context.Background(), "codex", Config{Adapter: AdapterCodex, Binary: link}, opts)
	assert.False(t, st.Available)
	assert.Equal(t, "codex-cli 0.100.0", st.Version)
	assert.Equal(t, []string{"--ignore-user-config is not listed", "-s workspace-write is not among its choices (read-only, danger-full-access)"}, st.Mismatch)
	assert.Contains(t, st.Unavailable, "`"+link+" exec --help` does not list what the codex adapter passes: --ignore-user-config is not listed; ")
	assert.Contains(t, st.Unavailable, "(the adapter was checked against codex-cli 0.171.0; install that version, or set binary)")

	missing := Probe(context.Background(), "gemini", Config{Adapter: AdapterGemini}, ProbeOptions{Lookup: func(n string) (string, bool) {
		return map[string]string{"PATH": "/nonexistent"}[n], n == "PATH"
	}})
	assert.False(t, missing.Available)
	assert.Equal(t, "gemini is not on the sessions' PATH (/nonexistent); install it, or name it in harnesses.gemini.binary", missing.Unavailable)

	bad := Probe(context.Background(), "x", Config{Adapter: AdapterGemini, Effort: "high"}, opts)
	assert.Equal(t, "not runnable as configured: harnesses.x.effort: gemini has no effort setting; remove effort", bad.Unavailable)

	cmd := Probe(context.Background(), "cursor", Config{Adapter: AdapterCommand, Argv: []string{"/bin/true", "{prompt_file}"}}, opts)
	assert.True(t, cmd.Available, "a command harness's program need not answer --version: %s", cmd.Unavailable)
	assert.Empty(t, cmd.Help, "its argv is the operator's: no flag is checked")
	assert.Equal(t, "unknown: its output is text", cmd.Cost)
}
