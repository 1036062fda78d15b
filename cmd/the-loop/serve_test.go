package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/continuity"
	loopmcp "github.com/the-loop/the-loop/mcp"
)

// lockedBuffer is a goroutine-safe writer for a server's stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serveEnv returns an Env with an empty config file and the given
// environment variables.
func serveEnv(t *testing.T, stdin string, vars map[string]string) (*Env, *bytes.Buffer, *lockedBuffer, string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfg, nil, 0o600))
	var out bytes.Buffer
	errb := &lockedBuffer{}
	env := &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: errb, Getenv: func(k string) string { return vars[k] }, Cwd: t.TempDir()}
	return env, &out, errb, cfg
}

func TestServeFlagErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		vars map[string]string
		code int
		want []string
	}{
		{"token file without http", []string{"--token-file", "x"}, nil, exitUsage, []string{"apply only with --http"}},
		{"origin without http", []string{"--allow-origin", "https://a.example"}, nil, exitUsage, []string{"apply only with --http"}},
		{"positional argument", []string{"extra"}, nil, exitUsage, []string{"serve takes no arguments"}},
		{"missing repo", []string{"--repo", "/no/such/dir"}, nil, exitUnmet, []string{"--repo /no/such/dir", "repository checkout"}},
		{"http without a token", []string{"--http", "127.0.0.1:0"}, nil, exitUnmet, []string{"THE_LOOP_MCP_TOKEN", "--token-file FILE", "mcp.http.tokenEnv"}},
		{"http on all interfaces without a token", []string{"--http", "0.0.0.0:0"}, nil, exitUnmet, []string{"not a loopback address", "--token-file FILE"}},
		{"short token", []string{"--http", "127.0.0.1:0"}, map[string]string{"THE_LOOP_MCP_TOKEN": "tiny-secret"}, exitUnmet, []string{"shorter than 16 characters"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, _, errb, cfg := serveEnv(t, "", tt.vars)
			code := Main(context.Background(), env, append([]string{"serve", "--config", cfg}, tt.args...))
			assert.Equal(t, tt.code, code, errb.String())
			for _, w := range tt.want {
				assert.Contains(t, errb.String(), w)
			}
			assert.NotContains(t, errb.String(), "tiny-secret", "a token never appears in an error")
		})
	}
}

func TestServeStdio(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	}, "\n") + "\n"
	env, out, errb, cfg := serveEnv(t, in, nil)
	require.Equal(t, exitOK, Main(context.Background(), env, []string{"serve", "--config", cfg}), errb.String())

	// Requests are answered concurrently, so match responses by id.
	byID := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var frame struct {
			ID json.RawMessage `json:"id"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &frame), "stdout carries only JSON-RPC frames: %q", line)
		byID[string(frame.ID)] = line
	}
	require.Len(t, byID, 2, out.String())
	var init struct {
		Result struct {
			ServerInfo struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"serverInfo"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(byID["1"]), &init))
	assert.Equal(t, "the-loop", init.Result.ServerInfo.Name)
	assert.Equal(t, Version(), init.Result.ServerInfo.Version)
	var list struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(byID["2"]), &list))
	assert.Len(t, list.Result.Tools, len(loopmcp.AllTools()), "serve registers exactly the shipped tools")
	assert.NotContains(t, errb.String(), `"jsonrpc"`, "no frames on stderr")
}

func TestServeHTTPUntilCancelled(t *testing.T) {
	env, out, errb, cfg := serveEnv(t, "", map[string]string{"LOOP_TOKEN": "serve-test-token-0123456789"})
	require.NoError(t, os.WriteFile(cfg, []byte("mcp:\n  http:\n    tokenEnv: LOOP_TOKEN\n"), 0o600))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- Main(ctx, env, []string{"serve", "--config", cfg, "--http", ":0"}) }()

	re := regexp.MustCompile(`listening on (http://\S+)`)
	var endpoint string
	require.Eventually(t, func() bool {
		m := re.FindStringSubmatch(errb.String())
		if m != nil {
			endpoint = m[1]
		}
		return m != nil
	}, 10*time.Second, 20*time.Millisecond, errb.String())
	assert.True(t, strings.HasPrefix(endpoint, "http://127.0.0.1:"), "a bare port binds loopback: %s", endpoint)

	resp, err := http.Get(strings.TrimSuffix(endpoint, "/mcp") + "/healthz")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, `{"status":"ok"}`, string(body))

	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer serve-test-token-0123456789")
	req.Header.Set("Content-Type", "application/json")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.NotEqual(t, http.StatusUnauthorized, resp.StatusCode, "the token came from the variable named by mcp.http.tokenEnv")

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code, errb.String())
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	assert.Empty(t, out.String(), "HTTP mode writes nothing to stdout")
	assert.Contains(t, errb.String(), "environment variable LOOP_TOKEN")
	assert.NotContains(t, errb.String(), "serve-test-token-0123456789")
}

// The CLI verbs and the MCP tools are bindings over the same core: these
// tests run the CLI through Main and the tool through an in-process MCP
// client on loopmcp.NewServer, over the same input, and compare the JSON.

// copyRepoFixture copies testdata/repo (six work items) into a temp dir.
func copyRepoFixture(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "..", "testdata", "repo")
	dst := filepath.Join(t.TempDir(), "repo")
	require.NoError(t, filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	}))
	return dst
}

// parity runs CLI commands and MCP tool calls against one config and one
// state store.
type parity struct {
	t      *testing.T
	config string
	vars   map[string]string
}

func newParity(t *testing.T, config string, vars map[string]string) *parity {
	t.Helper()
	if config == "" {
		config = filepath.Join(t.TempDir(), "config.yaml")
		require.NoError(t, os.WriteFile(config, nil, 0o600))
	}
	all := map[string]string{"THE_LOOP_DB": filepath.Join(t.TempDir(), "state.db")}
	for k, v := range vars {
		all[k] = v
	}
	return &parity{t: t, config: config, vars: all}
}

func (p *parity) env() *Env {
	return &Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &lockedBuffer{}, Getenv: func(k string) string { return p.vars[k] }, Cwd: p.t.TempDir()}
}

// cli runs the-loop with args and returns stdout (exit 0 or 1 allowed).
func (p *parity) cli(args ...string) string {
	p.t.Helper()
	env := p.env()
	code := Main(context.Background(), env, append(args, "--config", p.config))
	require.Contains(p.t, []int{exitOK, exitUnmet}, code, "%v: %s", args, env.Stderr)
	return env.Stdout.(*bytes.Buffer).String()
}

// tool calls an MCP tool on a server built the way `the-loop serve` builds
// it and returns its structured content as JSON.
func (p *parity) tool(repo, name string, args map[string]any) string {
	p.t.Helper()
	env := p.env()
	f := newFactory(env)
	f.ConfigPath = p.config
	svc, err := newServeService(f, "", repo, false, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(p.t, err)
	defer svc.Close()
	srv := loopmcp.NewServer(loopmcp.Deps{Backend: svc, DefaultRepo: repo}, loopmcp.AllTools(), Version())
	c, err := client.NewInProcessClient(srv)
	require.NoError(p.t, err)
	defer c.Close()
	ctx := context.Background()
	require.NoError(p.t, c.Start(ctx))
	_, err = c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "parity", Version: "1"}}})
	require.NoError(p.t, err)
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(ctx, req)
	require.NoError(p.t, err)
	require.False(p.t, res.IsError, "%s: %v", name, res.Content)
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(p.t, err)
	return string(b)
}

func TestCLIAndToolReturnTheSameCheckReport(t *testing.T) {
	repo := copyRepoFixture(t)
	p := newParity(t, "", nil)
	for _, recompute := range []bool{false, true} {
		flag := []string{}
		if recompute {
			flag = []string{"--recompute"}
		}
		for _, id := range []string{"issue-1", "issue-2", "issue-3", "issue-4", "issue-5", "issue-6"} {
			cli := p.cli(append([]string{"check", id, "--repo", repo, "--format", "json"}, flag...)...)
			tool := p.tool(repo, "check", map[string]any{"workItem": id, "recompute": recompute})
			assert.JSONEq(t, cli, tool, "check %s recompute=%v", id, recompute)
		}
		cli := p.cli(append([]string{"check", "--all", "--repo", repo, "--format", "json"}, flag...)...)
		tool := p.tool(repo, "check", map[string]any{"all": true, "recompute": recompute})
		assert.JSONEq(t, `{"reports":`+cli+`}`, tool, "check --all recompute=%v", recompute)
	}
}

func TestCLIAndToolReturnTheSameGraphReports(t *testing.T) {
	repo := copyRepoFixture(t)
	p := newParity(t, "", nil)
	for _, id := range []string{"issue-1", "issue-2", "issue-3"} {
		assert.JSONEq(t, p.cli("graph", "status", id, "--repo", repo, "--format", "json"),
			p.tool(repo, "graph_status", map[string]any{"workItem": id}), "graph status %s", id)
	}
	assert.JSONEq(t, p.cli("graph", "show", "--format", "json"), p.tool(repo, "graph_show", nil))

	// graph complete writes, so each side claims on its own copy and store.
	for _, id := range []string{"issue-1", "issue-2", "issue-3"} {
		cliRepo, toolRepo := copyRepoFixture(t), copyRepoFixture(t)
		cliSide, toolSide := newParity(t, "", nil), newParity(t, "", nil)
		assert.JSONEq(t, cliSide.cli("graph", "complete", id, "--repo", cliRepo),
			toolSide.tool(toolRepo, "graph_complete", map[string]any{"workItem": id}), "graph complete %s", id)
	}
}

func TestCLIAndToolCreateTheSameTicket(t *testing.T) {
	cases := []struct {
		name string
		cli  []string
		args map[string]any
	}{
		{"github", []string{"--system", "github", "--repo", "octo/widgets", "--title", "Broken", "--body", "It broke", "--labels", "bug,triage"},
			map[string]any{"system": "github", "repo": "octo/widgets", "title": "Broken", "body": "It broke", "labels": []any{"bug", "triage"}}},
		{"jira", []string{"--system", "jira", "--project", "PROJ", "--title", "Story", "--body", "b", "--issue-type", "Story", "--parent", "PROJ-1"},
			map[string]any{"system": "jira", "project": "PROJ", "title": "Story", "body": "b", "issueType": "Story", "parent": "PROJ-1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cf, tf := newTicketFixture(t, "[PROJ]"), newTicketFixture(t, "[PROJ]")
			cli := newParity(t, cf.config, cf.vars).cli(append([]string{"ticket", "create", "--format", "json"}, tc.cli...)...)
			tool := newParity(t, tf.config, tf.vars).tool(t.TempDir(), "ticket_create", tc.args)
			// Each side has its own fake server, so only the port differs.
			host := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
			assert.JSONEq(t, host.ReplaceAllString(cli, "HOST"), host.ReplaceAllString(tool, "HOST"))
		})
	}

	f := newTicketFixture(t, "[PROJ, OPS]")
	p := newParity(t, f.config, f.vars)
	assert.JSONEq(t, p.cli("ticket", "projects", "--format", "json"), p.tool(t.TempDir(), "ticket_projects", nil))
}

// liveGitCheckout is a git checkout with a live continuity set, started
// the way `the-loop continuity init --goal` starts one.
func liveGitCheckout(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := filepath.Join(t.TempDir(), "checkout")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, args := range [][]string{{"init", "-q", "."}, {"remote", "add", "origin", "https://github.com/acme/widgets.git"}} {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	set, err := continuity.Open(dir)
	require.NoError(t, err)
	_, err = set.Init(continuity.InitOptions{Goal: "ship the widget importer"})
	require.NoError(t, err)
	return dir
}

func TestCLIAndToolKeepTheSameContinuityRecord(t *testing.T) {
	p := newParity(t, "", nil)
	cliRepo, toolRepo := liveGitCheckout(t), liveGitCheckout(t)
	updates := []struct {
		cli  []string
		args map[string]any
	}{
		{[]string{"--kind", "decision", "--text", "parse with encoding/csv", "--why", "no new dependency", "--files", "importer/parse.go"},
			map[string]any{"kind": "decision", "text": "parse with encoding/csv", "why": "no new dependency", "files": []any{"importer/parse.go"}}},
		{[]string{"--kind", "task", "--text", "write the parser tests", "--node", "t1", "--status", "open", "--next", "write the tests"},
			map[string]any{"kind": "task", "text": "write the parser tests", "node": "t1", "status": "open", "next": "write the tests"}},
		{[]string{"--kind", "blocker", "--text", "fixture CSV is missing", "--blocks", "t1"},
			map[string]any{"kind": "blocker", "text": "fixture CSV is missing", "blocks": "t1"}},
	}
	for _, u := range updates {
		cli := p.cli(append([]string{"continuity", "update", "--repo", cliRepo, "--format", "json"}, u.cli...)...)
		tool := p.tool(toolRepo, "continuity_update", u.args)
		assert.JSONEq(t, cli, tool, "continuity update %v", u.cli)
	}

	// brief and prompt read; both sides read the same checkout. The age is
	// the seconds since the last update, so it may tick between the two.
	age := regexp.MustCompile(`("age": ?"|- age: )\d+s`)
	cli := p.cli("continuity", "brief", "--repo", cliRepo, "--format", "json")
	tool := p.tool(cliRepo, "continuity_brief", nil)
	assert.JSONEq(t, age.ReplaceAllString(cli, "${1}Ns"), age.ReplaceAllString(tool, "${1}Ns"))

	var cliPrompt, toolPrompt map[string]any
	require.NoError(t, json.Unmarshal([]byte(p.cli("continuity", "prompt", "--repo", cliRepo, "--format", "json", "--task", "Review the importer error handling", "--non-goal", "a rewrite")), &cliPrompt))
	require.NoError(t, json.Unmarshal([]byte(p.tool(cliRepo, "continuity_prompt", map[string]any{"task": "Review the importer error handling", "nonGoals": []any{"a rewrite"}})), &toolPrompt))
	delete(cliPrompt, "notice") // the CLI says it found no clipboard; the tool never uses one
	assert.Equal(t, cliPrompt, toolPrompt)
	assert.Equal(t, false, toolPrompt["copied"])
}

// The server a launched session gets (serve --work-item) answers for its
// item only and refuses handoff_post, through the real stdio transport.
func TestServeConfinedToAWorkItem(t *testing.T) {
	repo := copyRepoFixture(t)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"check","arguments":{"workItem":"issue-3"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"handoff_post","arguments":{"workItem":"octo/widgets#2","record":{}}}}`,
	}, "\n") + "\n"
	env, out, errb, cfg := serveEnv(t, in, map[string]string{"THE_LOOP_DB": filepath.Join(t.TempDir(), "state.db")})
	require.Equal(t, exitOK, Main(context.Background(), env, []string{"serve", "--config", cfg, "--repo", repo, "--work-item", "issue-2"}), errb.String())
	byID := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var frame struct {
			ID json.RawMessage `json:"id"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &frame))
		byID[string(frame.ID)] = line
	}
	assert.Contains(t, byID["3"], `"isError":true`)
	assert.Contains(t, byID["3"], "confined to work item issue-2")
	assert.Contains(t, byID["4"], `"isError":true`)
	assert.Contains(t, byID["4"], "a handoff needs the developer present")

	env, _, errb, cfg = serveEnv(t, "", nil)
	assert.Equal(t, exitUsage, Main(context.Background(), env, []string{"serve", "--config", cfg, "--repo", repo, "--work-item", "../x"}))
	assert.Contains(t, errb.String(), "--work-item")
}
