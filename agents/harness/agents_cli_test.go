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

	"github.com/the-loop/the-loop/internal/proc"
	"github.com/the-loop/the-loop/internal/testbin"
)

// agentsDir is where testdata/e2e/install-agents.sh installs the pinned
// codex, gemini and opencode.
var agentsDir = filepath.Join("..", "..", "testdata", "e2e", "agents", "node_modules")

// agentCLI finds the real cli: $THE_LOOP_<CLI>, or the pinned copy
// testdata/e2e/install-agents.sh installed (only once its stamp says the
// install finished). Without either the check skips; under CI, where
// .ci/agents.sh installs them, a check that finds the stamp must run.
func agentCLI(t *testing.T, cli string) string {
	t.Helper()
	if p := os.Getenv("THE_LOOP_" + strings.ToUpper(cli)); p != "" {
		return p
	}
	if _, err := os.Stat(filepath.Join(agentsDir, ".the-loop-lock.sha256")); err == nil {
		p, err := filepath.Abs(filepath.Join(agentsDir, ".bin", cli))
		require.NoError(t, err)
		return p
	}
	t.Skipf("%s is not installed; run testdata/e2e/install-agents.sh (or set THE_LOOP_%s) to check its adapter against the real CLI", cli, strings.ToUpper(cli))
	return ""
}

// privateHome is an empty HOME and the variables that keep the CLIs off the
// network: no credential is needed, no model is called.
func privateHome(t *testing.T) (string, []string) {
	t.Helper()
	home := t.TempDir()
	return home, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "NO_COLOR=1", "OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_SHARE=1"}
}

// TestRealCLIsListEveryFlagTheirAdapterPasses runs `harness list`'s probe
// against each pinned CLI: its help lists every flag the adapter's argv
// uses, and the values it passes are among the choices the help names.
func TestRealCLIsListEveryFlagTheirAdapterPasses(t *testing.T) {
	for _, cli := range []string{AdapterCodex, AdapterGemini, AdapterOpencode} {
		t.Run(cli, func(t *testing.T) {
			bin := agentCLI(t, cli)
			home, _ := privateHome(t)
			c := Config{Adapter: cli, Binary: bin, Model: map[string]string{AdapterCodex: "gpt-5.5", AdapterGemini: "gemini-2.5-pro",
				AdapterOpencode: "anthropic/claude-sonnet-4-5"}[cli]}
			if cli != AdapterGemini {
				c.Effort = "high"
			}
			st := Probe(context.Background(), cli, c, ProbeOptions{Timeout: 2 * time.Minute, Lookup: func(n string) (string, bool) {
				switch n {
				case "PATH":
					return os.Getenv("PATH"), true
				case "HOME":
					return home, true
				}
				return "", false
			}})
			require.True(t, st.Available, st.Unavailable)
			assert.Empty(t, st.Mismatch)
			assert.Contains(t, st.Version, strings.TrimPrefix(TestedVersions[cli], map[string]string{AdapterCodex: "", AdapterGemini: "Gemini CLI ", AdapterOpencode: "opencode "}[cli]))
			t.Logf("%s %s: %d flags listed by `%s`: %s", cli, st.Version, len(st.Flags), st.Help, strings.Join(st.Flags, " "))
		})
	}
}

// TestRealCLIsShowTheGeneratedServer gives each pinned CLI the MCP
// configuration its adapter generates for a session (the -c overrides,
// the system settings file, the inline config) and asks the CLI's own
// `mcp list` what it sees: the-loop's confined server, and no other. Gemini
// CLI and opencode start the real `the-loop serve --work-item` and report
// it connected.
func TestRealCLIsShowTheGeneratedServer(t *testing.T) {
	clis := map[string]string{}
	for _, cli := range []string{AdapterCodex, AdapterGemini, AdapterOpencode} {
		if p := func() (p string) {
			ok := t.Run("find "+cli, func(t *testing.T) { p = agentCLI(t, cli) })
			if !ok {
				return ""
			}
			return p
		}(); p != "" {
			clis[cli] = p
		}
	}
	if len(clis) == 0 {
		t.Skip("no agent CLI is installed; run testdata/e2e/install-agents.sh")
	}
	loop := testbin.Build(t, "github.com/the-loop/the-loop/cmd/the-loop")
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "docs", "specs", "issue-1"), 0o755))
	config := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(config, nil, 0o600))
	for cli, bin := range clis {
		t.Run(cli, func(t *testing.T) {
			home, env := privateHome(t)
			l := Launch{SessionID: "s-1", WorkItem: "issue-1", Node: "design", Prompt: "probe", Workdir: repo,
				Dir: filepath.Join(dir, "sessions", cli), Serve: []string{loop, "serve", "--config", config},
				ServeEnv: map[string]string{"THE_LOOP_DB": filepath.Join(dir, "state.db")},
				Lookup: func(n string) (string, bool) {
					switch n {
					case "PATH":
						return os.Getenv("PATH"), true
					case "HOME":
						return home, true
					}
					return "", false
				}}
			p, err := Prepare(cli, Config{Adapter: cli, Binary: bin}, l)
			require.NoError(t, err)
			var argv []string
			switch cli {
			case AdapterCodex:
				// The -c overrides, as codex exec gets them, before `mcp get`.
				argv = append(argv, bin)
				for i, a := range p.Argv {
					if a == "-c" && strings.HasPrefix(p.Argv[i+1], "mcp_servers.") {
						argv = append(argv, a, p.Argv[i+1])
					}
				}
				argv = append(argv, "mcp", "list", "--json")
			case AdapterGemini:
				env = append(env, "GEMINI_CLI_TRUST_WORKSPACE=true") // what --skip-trust does for a session
				argv = []string{bin, "mcp", "list"}
				// The user settings a session would otherwise read hold a
				// server of their own: the session's home keeps it out.
				require.NoError(t, os.MkdirAll(filepath.Join(home, ".gemini"), 0o700))
				require.NoError(t, os.WriteFile(filepath.Join(home, ".gemini", "settings.json"),
					[]byte(`{"mcpServers":{"other":{"command":"/bin/cat"}}}`), 0o600))
			case AdapterOpencode:
				argv = []string{bin, "mcp", "list"}
			}
			for _, kv := range p.Env {
				if strings.HasPrefix(kv, "GEMINI_CLI_") || strings.HasPrefix(kv, "OPENCODE_") {
					env = append(env, kv)
				}
			}
			// Gemini CLI lists, then keeps the server's connection open: its
			// output is read when the bound cuts it off.
			res, err := proc.Run(context.Background(), proc.Command{Argv: argv, Dir: repo, Env: env, Timeout: 90 * time.Second, Grace: time.Second})
			if !res.TimedOut {
				require.NoError(t, err)
			}
			out := string(res.Stdout) + string(res.Stderr)
			t.Logf("%s: %s", strings.Join(argv[:1], " "), out)
			switch cli {
			case AdapterCodex:
				require.True(t, res.Status.Success(), "%s %s", res.Status, out)
				var servers []struct {
					Name      string `json:"name"`
					Enabled   bool   `json:"enabled"`
					Transport struct {
						Type    string            `json:"type"`
						Command string            `json:"command"`
						Args    []string          `json:"args"`
						Env     map[string]string `json:"env"`
					} `json:"transport"`
				}
				require.NoError(t, json.Unmarshal(res.Stdout, &servers), out)
				require.Len(t, servers, 1, "the-loop's server is the only one")
				s := servers[0]
				assert.Equal(t, ServerName, s.Name)
				assert.True(t, s.Enabled)
				assert.Equal(t, "stdio", s.Transport.Type)
				assert.Equal(t, loop, s.Transport.Command)
				assert.Equal(t, []string{"serve", "--config", config, "--repo", repo, "--work-item", "issue-1"}, s.Transport.Args)
				assert.Equal(t, map[string]string{"THE_LOOP_DB": filepath.Join(dir, "state.db")}, s.Transport.Env)
			case AdapterGemini:
				assert.Contains(t, out, "the-loop: "+loop+" serve --config "+config+" --repo "+repo+" --work-item issue-1 (stdio) - Connected")
				assert.NotContains(t, out, "Disabled")
				assert.NotContains(t, out, "other", "the user's own servers are not read")
			case AdapterOpencode:
				assert.Contains(t, out, "✓ the-loop")
				assert.Contains(t, out, "connected")
				assert.Contains(t, out, loop+" serve --config "+config+" --repo "+repo+" --work-item issue-1")
				assert.Contains(t, out, "1 server(s)")
				assert.NotContains(t, out, "Configuration is invalid")
			}
		})
	}
}
