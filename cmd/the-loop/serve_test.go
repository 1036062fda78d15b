package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/syncbuf"
	loopmcp "github.com/the-loop/the-loop/mcp"
)

// lockedBuffer is a log or stderr several goroutines write and the test reads.
type lockedBuffer = syncbuf.Buffer

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

// The server a launched session gets (serve --work-item) answers for its
// item only and does not serve handoff_post, through the real stdio
// transport.
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
	assert.Contains(t, byID["4"], `"error"`)
	assert.Contains(t, byID["4"], "tool 'handoff_post' not found", "a confined server lists and serves only the tools it answers")

	env, _, errb, cfg = serveEnv(t, "", nil)
	assert.Equal(t, exitUsage, Main(context.Background(), env, []string{"serve", "--config", cfg, "--repo", repo, "--work-item", "../x"}))
	assert.Contains(t, errb.String(), "--work-item")
}
