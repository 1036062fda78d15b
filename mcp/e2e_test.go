package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/testbin"
)

// End-to-end tests of the real binary. The Node ones drive it with the
// official TypeScript SDK (testdata/e2e/*.mjs) and are skipped when node or
// testdata/e2e/node_modules is missing (run testdata/e2e/install.sh). THE_LOOP_E2E_BINARY
// names a prebuilt binary to use instead of building one.

// e2eVersion is stamped into the binary so the reported version is known.
const e2eVersion = "v0.0.0-e2e"

// e2eCalls are the tool calls both scripts make, in order, against a
// private copy of testdata/repo (a git checkout without a continuity set),
// with what each must produce.
var e2eCalls = []struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	// expectation, not sent
	wantProtocolError string
	wantIsError       bool
	wantText          string
	// wantStructured are keys the structured content must carry.
	wantStructured map[string]any
}{
	{Name: "no_such_tool", Arguments: map[string]any{}, wantProtocolError: "no_such_tool"},
	{Name: "check", Arguments: map[string]any{"workItem": "issue-2"},
		wantText:       "issue-2: UNMET (at requirements-definition)\n- required section is empty: Security considerations",
		wantStructured: map[string]any{"workItem": "issue-2", "currentNode": "requirements-definition", "ok": false}},
	{Name: "check", Arguments: map[string]any{"all": true}, wantText: "1/6 work items satisfied"},
	{Name: "check", Arguments: map[string]any{}, wantIsError: true, wantText: "give either workItem"},
	{Name: "graph_status", Arguments: map[string]any{"workItem": "issue-2"}, wantText: "current node: requirements-definition",
		wantStructured: map[string]any{"started": true, "status": "block"}},
	{Name: "graph_complete", Arguments: map[string]any{"workItem": "issue-2"},
		wantText:       "requirements-definition: block (block) — now at requirements-definition\n- required section is empty: Security considerations",
		wantStructured: map[string]any{"node": "requirements-definition", "status": "block", "moved": false}},
	{Name: "graph_complete", Arguments: map[string]any{"workItem": "issue-1"}, wantText: "issue-1: refused (not-started)",
		wantStructured: map[string]any{"status": "refused", "reason": "not-started"}},
	{Name: "graph_complete", Arguments: map[string]any{"workItem": "issue-2", "force": true}, wantIsError: true, wantText: `unknown argument "force"`},
	{Name: "ticket_projects", Arguments: map[string]any{}, wantText: "no Jira projects are configured",
		wantStructured: map[string]any{"projects": []any{}}},
	{Name: "continuity_update", Arguments: map[string]any{"kind": "decision", "text": "x"}, wantIsError: true, wantText: "no live continuity set"},
	{Name: "continuity_prompt", Arguments: map[string]any{"task": "Review the fixture's open work items."}, wantText: "Review the fixture's open work items.",
		wantStructured: map[string]any{"copied": false}},
}

// e2eCall is one recorded outcome from lib.mjs runCalls.
type e2eCall struct {
	Name              string         `json:"name"`
	IsError           bool           `json:"isError"`
	Text              string         `json:"text"`
	StructuredContent map[string]any `json:"structuredContent"`
	ProtocolError     string         `json:"protocolError"`
}

type e2eTool struct {
	Name        string         `json:"name"`
	Annotations map[string]any `json:"annotations"`
	InputSchema map[string]any `json:"inputSchema"`
}

type e2eDoc struct {
	Server struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"server"`
	Instructions string    `json:"instructions"`
	Tools        []e2eTool `json:"tools"`
	Calls        []e2eCall `json:"calls"`
	Stderr       string    `json:"stderr"`
	Stdout       string    `json:"stdout"`
}

type e2eProbe struct {
	Status          int    `json:"status"`
	WWWAuthenticate string `json:"wwwAuthenticate"`
	Body            string `json:"body"`
}

type e2eHTTPDoc struct {
	e2eDoc
	StartWithoutToken struct {
		ExitCode any    `json:"exitCode"`
		Stderr   string `json:"stderr"`
	} `json:"startWithoutToken"`
	Endpoint string   `json:"endpoint"`
	Healthz  e2eProbe `json:"healthz"`
	Refusals struct {
		NoToken    e2eProbe `json:"noToken"`
		WrongToken e2eProbe `json:"wrongToken"`
		BadOrigin  e2eProbe `json:"badOrigin"`
	} `json:"refusals"`
	SessionID  *string `json:"sessionId"`
	Concurrent struct {
		Clients      int      `json:"clients"`
		OK           int      `json:"ok"`
		Errors       []string `json:"errors"`
		SameAsSerial bool     `json:"sameAsSerial"`
	} `json:"concurrent"`
	Exit struct {
		Code   *int    `json:"code"`
		Signal *string `json:"signal"`
	} `json:"exit"`
}

// moduleRoot is the repository root (this package lives in mcp/).
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	return root
}

// buildBinary is cmd/the-loop with the version the scripts expect.
func buildBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("THE_LOOP_E2E_BINARY"); bin != "" {
		return bin
	}
	return testbin.BuildWith(t, testbin.Module+"/cmd/the-loop", testbin.Options{LDFlags: "-X main.version=" + e2eVersion})
}

// isolatedEnv is the environment for the binary: no operator config, a
// private state store, no token unless the script sets one.
func isolatedEnv(t *testing.T) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "THE_LOOP_CONFIG" || k == "THE_LOOP_MCP_TOKEN" || k == "XDG_CONFIG_HOME" || k == "THE_LOOP_DB" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "XDG_CONFIG_HOME="+t.TempDir(), "THE_LOOP_DB="+filepath.Join(t.TempDir(), "state.db"))
}

// e2eRepo is a private copy of the fixture repository, made a git
// checkout so the continuity tools can resolve it.
func e2eRepo(t *testing.T) string {
	t.Helper()
	repo := copyFixture(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("e2e: git is not installed")
	}
	out, err := exec.Command("git", "-C", repo, "init", "-q", ".").CombinedOutput()
	require.NoError(t, err, "git init: %s", out)
	return repo
}

func requireNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("e2e: node is not installed; install Node 20+ and run testdata/e2e/install.sh")
	}
	if _, err := os.Stat(filepath.Join(moduleRoot(t), "testdata", "e2e", "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skip("e2e: testdata/e2e/node_modules is missing; run testdata/e2e/install.sh")
	}
	return node
}

// runScript runs an e2e script and decodes its JSON document into doc.
func runScript(t *testing.T, node, script, bin string, doc any) {
	t.Helper()
	calls, err := json.Marshal(e2eCalls)
	require.NoError(t, err)
	repo := e2eRepo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(moduleRoot(t), "testdata", "e2e", script), bin, repo, string(calls))
	cmd.Env = isolatedEnv(t)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "%s failed:\n%s", script, stderr.String())
	require.NoError(t, json.Unmarshal(stdout.Bytes(), doc), "%s printed:\n%s", script, stdout.String())
}

// assertCommon checks what both transports must show.
func assertCommon(t *testing.T, doc e2eDoc) {
	t.Helper()
	assert.Equal(t, "the-loop", doc.Server.Name)
	if os.Getenv("THE_LOOP_E2E_BINARY") == "" {
		assert.Equal(t, e2eVersion, doc.Server.Version, "the version comes from the build")
	}
	assert.Equal(t, Instructions, doc.Instructions)

	var want []string
	for _, tool := range AllTools() {
		want = append(want, tool.Def.Name)
	}
	var got []string
	for _, tool := range doc.Tools {
		got = append(got, tool.Name)
		assert.NoError(t, CheckToolName(tool.Name))
		for _, hint := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			assert.Contains(t, tool.Annotations, hint, "tool %s", tool.Name)
		}
		assert.Equal(t, false, tool.InputSchema["additionalProperties"], "tool %s", tool.Name)
	}
	assert.ElementsMatch(t, want, got, "the binary lists exactly the shipped tools")

	require.Len(t, doc.Calls, len(e2eCalls))
	for i, want := range e2eCalls {
		got := doc.Calls[i]
		assert.Equal(t, want.Name, got.Name)
		if want.wantProtocolError != "" {
			assert.Contains(t, got.ProtocolError, want.wantProtocolError)
			continue
		}
		assert.Empty(t, got.ProtocolError, "call %s", want.Name)
		assert.Equal(t, want.wantIsError, got.IsError, "call %s: %s", want.Name, got.Text)
		assert.Contains(t, got.Text, want.wantText, "call %s", want.Name)
		for k, v := range want.wantStructured {
			assert.Equal(t, v, got.StructuredContent[k], "call %s %v: structured %q", want.Name, want.Arguments, k)
		}
	}
}

func TestE2EStdioWithTypeScriptSDK(t *testing.T) {
	node := requireNode(t)
	bin := buildBinary(t)
	var doc e2eDoc
	runScript(t, node, "stdio.mjs", bin, &doc)
	assertCommon(t, doc)
}

func TestE2EHTTPWithTypeScriptSDK(t *testing.T) {
	node := requireNode(t)
	bin := buildBinary(t)
	var doc e2eHTTPDoc
	runScript(t, node, "http.mjs", bin, &doc)
	assertCommon(t, doc.e2eDoc)

	start := doc.StartWithoutToken
	assert.EqualValues(t, 1, start.ExitCode, "no token: HTTP refuses to start")
	for _, way := range []string{"THE_LOOP_MCP_TOKEN", "--token-file FILE", "mcp.http.tokenEnv"} {
		assert.Contains(t, start.Stderr, way, "the refusal names each way to give a token")
	}

	assert.True(t, strings.HasPrefix(doc.Endpoint, "http://127.0.0.1:"), "binds loopback: %s", doc.Endpoint)
	assert.Equal(t, 200, doc.Healthz.Status)
	assert.JSONEq(t, `{"status":"ok"}`, doc.Healthz.Body)

	r := doc.Refusals
	assert.Equal(t, 401, r.NoToken.Status)
	assert.True(t, strings.HasPrefix(r.NoToken.WWWAuthenticate, "Bearer "), r.NoToken.WWWAuthenticate)
	assert.Equal(t, 401, r.WrongToken.Status)
	assert.Contains(t, r.WrongToken.WWWAuthenticate, `error="invalid_token"`)
	assert.NotContains(t, r.WrongToken.Body, "not-the-token")
	assert.Equal(t, 403, r.BadOrigin.Status)

	require.NotNil(t, doc.SessionID, "the TypeScript SDK negotiates the legacy era and gets a session")
	assert.True(t, strings.HasPrefix(*doc.SessionID, "mcp-session-"))

	c := doc.Concurrent
	assert.Equal(t, c.Clients, c.OK, "concurrent clients: %v", c.Errors)
	assert.True(t, c.SameAsSerial, "concurrent clients saw what the serial one saw")

	require.NotNil(t, doc.Exit.Code, "exited by signal %v instead of shutting down", doc.Exit.Signal)
	assert.Equal(t, 0, *doc.Exit.Code, "SIGTERM is a graceful exit")
	assert.Contains(t, doc.Stderr, "shutting down")
	assert.Empty(t, doc.Stdout, "HTTP mode writes nothing to stdout")
	assert.NotContains(t, doc.Stderr, "Bearer ", "no credentials in the logs")
}

func TestE2EStdioStdoutIsFramesOnly(t *testing.T) {
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--repo", t.TempDir())
	cmd.Env = isolatedEnv(t)
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		legacyInit,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
		`this line is not json`,
	}, "\n") + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())

	ids := map[string]bool{}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var frame struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &frame), "stdout line is not JSON: %q", sc.Text())
		assert.Equal(t, "2.0", frame.JSONRPC, sc.Text())
		ids[string(frame.ID)] = true
	}
	assert.True(t, ids["1"] && ids["2"] && ids["3"], "every request was answered on stdout: %v", ids)
	assert.True(t, ids["null"], "the malformed line got a parse error frame, not a crash")
}
