package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providertest"
	loopmcp "github.com/the-loop/the-loop/mcp"
	"github.com/the-loop/the-loop/mcp/transport"
	"github.com/the-loop/the-loop/runtime"
)

// gateRig drives one item through the real poller (`poll --once`), the
// CLI's claim (`graph complete`) and a launched session's claim (the
// graph_complete tool of the server `serve --work-item` builds), against
// the fake GitHub, whose clock the test sets.
type gateRig struct {
	t                    *testing.T
	gh                   *providertest.Server
	config, db, checkout string
	ref                  integrations.Ref
	id                   string
	cwd                  string
}

func newGateRig(t *testing.T, clock func() time.Time) *gateRig {
	t.Helper()
	gh := providertest.NewGitHub(t)
	gh.SetClock(clock)
	r := &gateRig{t: t, gh: gh, db: filepath.Join(t.TempDir(), "state.db"), checkout: t.TempDir(), cwd: t.TempDir(),
		ref: integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 1}, id: "issue-1"}
	require.NoError(t, os.MkdirAll(filepath.Join(r.checkout, ".the-loop"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(r.checkout, ".the-loop", "harness-config.yaml"),
		[]byte("ticketing:\n  github:\n    owner: octo\n    repo: widgets\n"), 0o644))
	r.config = filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(r.config, []byte(fmt.Sprintf(`integrations:
  github:
    baseUrl: %s
    tokenEnv: TEST_GH_TOKEN
routing:
  authorizedUsers: [alice]
polling:
  sources:
    - {system: github, repos: [%s], checkout: %q}
`, gh.URL(), providertest.GitHubRepo, r.checkout)), 0o600))
	return r
}

func (r *gateRig) env(stdout io.Writer) *Env {
	return &Env{Stdin: strings.NewReader(""), Stdout: stdout, Stderr: &lockedBuffer{}, Cwd: r.cwd,
		Getenv: func(k string) string {
			switch k {
			case "TEST_GH_TOKEN":
				return r.gh.Token()
			case "THE_LOOP_DB":
				return r.db
			}
			return ""
		}}
}

func (r *gateRig) run(args ...string) string {
	r.t.Helper()
	var out bytes.Buffer
	env := r.env(&out)
	code := Main(context.Background(), env, append(args, "--config", r.config))
	require.Contains(r.t, []int{exitOK, exitUnmet}, code, "%v: %s", args, env.Stderr)
	return out.String()
}

func (r *gateRig) say(body string) { r.gh.AddComment(r.ref, "alice", "OWNER", body) }

func (r *gateRig) poll() { r.run("poll", "--once") }

func (r *gateRig) node() string {
	r.t.Helper()
	var st struct {
		CurrentNode string `json:"currentNode"`
	}
	out := r.run("graph", "status", r.id, "--repo", r.checkout, "--format", "json")
	require.NoError(r.t, json.Unmarshal([]byte(out), &st), out)
	return st.CurrentNode
}

// claimCLI claims the current node as `the-loop graph complete` does.
func (r *gateRig) claimCLI() {
	r.t.Helper()
	r.run("graph", "complete", r.id, "--repo", r.checkout)
}

// claimMCP claims the current node through the graph_complete tool of the
// server a launched session talks to (`serve --work-item`): confined to the
// item, its entry chains left to the poller.
func (r *gateRig) claimMCP() {
	r.t.Helper()
	f := newFactory(r.env(&bytes.Buffer{}))
	f.ConfigPath = r.config
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc, err := newServeService(f, "", r.checkout, true, logger)
	require.NoError(r.t, err)
	defer svc.Close()
	srv := loopmcp.NewServer(serverDeps(svc, logger, r.checkout, r.id), loopmcp.AllTools(), Version())
	c, err := client.NewInProcessClient(srv)
	require.NoError(r.t, err)
	defer c.Close()
	ctx := transport.WithPrincipal(context.Background(), transport.Principal{Subject: "session", Method: "stdio"})
	require.NoError(r.t, c.Start(ctx))
	_, err = c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "session", Version: "1"}}})
	require.NoError(r.t, err)
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "graph_complete", map[string]any{"workItem": r.id}
	res, err := c.CallTool(ctx, req)
	require.NoError(r.t, err)
	require.False(r.t, res.IsError, "%v", res.Content)
}

// routeBacks counts the times requirements-approval sent the work back.
func (r *gateRig) routeBacks() int {
	r.t.Helper()
	out := r.run("graph", "events", r.id, "--repo", r.checkout, "--format", "json")
	var evs []struct {
		Name string         `json:"name"`
		Node string         `json:"node"`
		Data map[string]any `json:"data"`
	}
	require.NoError(r.t, json.Unmarshal([]byte(out), &evs), out)
	n := 0
	for _, e := range evs {
		if e.Name == "graph.advanced" && e.Node == "requirements-approval" && e.Data["outcome"] == runtime.OutcomeChangesRequested {
			n++
		}
	}
	return n
}

func (r *gateRig) writeRequirements() {
	r.t.Helper()
	req, err := os.ReadFile(filepath.Join("..", "..", "testdata", "repo", "docs", "specs", "issue-3", "requirements.md"))
	require.NoError(r.t, err)
	dir := filepath.Join(r.checkout, "docs", "specs", r.id)
	require.NoError(r.t, os.MkdirAll(dir, 0o755))
	body := strings.Replace(string(req), "status: approved\napprovedBy: [owner]\n", "", 1)
	require.NoError(r.t, os.WriteFile(filepath.Join(dir, "requirements.md"), []byte(body), 0o644))
}

// One change request sends the work back exactly once, through the real
// poller, whether the ticket system's clock runs years ahead of the loop's
// or years behind it, and whether the agent claims its node again over MCP
// (a launched session) or over the CLI: the reply decided its visit, and
// the next visit begins above it. The config names no routing.selfLogins,
// so nothing rests on recognising the loop's own review request either.
func TestOneChangeRequestRoutesBackOnceThroughThePoller(t *testing.T) {
	year := 365 * 24 * time.Hour
	for _, skew := range []time.Duration{10 * year, -10 * year} {
		for _, via := range []string{"mcp", "cli"} {
			t.Run(fmt.Sprintf("clock %+dy, claims over %s", int(skew/year), via), func(t *testing.T) {
				r := newGateRig(t, func() time.Time { return time.Now().Add(skew) })
				claim := r.claimCLI
				if via == "mcp" {
					claim = r.claimMCP
				}
				r.say("the-loop start")
				r.poll()
				r.say("- [ ] brainstorming\n\nthe-loop execute")
				r.poll()
				require.Equal(t, "requirements-definition", r.node())
				r.writeRequirements()
				claim()
				r.poll() // a session's claim left the gate's entry chain to the poller
				require.Equal(t, "requirements-approval", r.node())

				r.say("Changes requested: R2 must keep exports for 30 days.")
				r.poll()
				require.Equal(t, "requirements-definition", r.node(), "the change request sends the work back")
				claim()
				for i := 0; i < 4; i++ {
					r.poll()
					assert.Equal(t, "requirements-approval", r.node(), "cycle %d: the change request decided its visit and no other", i+1)
				}
				assert.Equal(t, 1, r.routeBacks(), "exactly one route back")

				r.say("Approved.")
				r.poll()
				assert.Equal(t, "design", r.node())
				assert.Equal(t, 1, r.routeBacks())
			})
		}
	}
}
