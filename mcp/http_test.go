package mcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/mcp/transport"
)

func TestHTTPRefusesToStartWithoutAuth(t *testing.T) {
	tests := []struct {
		name string
		opts transport.HTTPOptions
		want []string
	}{
		{"loopback", transport.HTTPOptions{Addr: "127.0.0.1:8765"}, []string{"needs a bearer token", "set THE_LOOP_MCP_TOKEN", "--token-file FILE", "mcp.http.tokenEnv"}},
		{"renamed variable", transport.HTTPOptions{Addr: "127.0.0.1:8765", TokenEnv: "LOOP_TOKEN"}, []string{"set LOOP_TOKEN", "--token-file FILE", "mcp.http.tokenEnv"}},
		{"all interfaces", transport.HTTPOptions{Addr: "0.0.0.0:0"}, []string{"refusing to listen on 0.0.0.0:0", "not a loopback address", "--token-file FILE", "mcp.http.tokenEnv", "THE_LOOP_MCP_TOKEN"}},
		{"public name", transport.HTTPOptions{Addr: "loop.example.com:8765"}, []string{"not a loopback address"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := transport.ServeHTTP(context.Background(), NewServer(Deps{}, nil, "v"), tt.opts)
			require.Error(t, err)
			assert.True(t, errors.Is(err, transport.ErrNoAuth))
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestResolveToken(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(file, []byte("file-token-0123456789\n"), 0o600))
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.WriteFile(empty, []byte("\n"), 0o600))
	env := map[string]string{"THE_LOOP_MCP_TOKEN": "env-token-0123456789", "OTHER": "other-token-0123456789", "SHORT": "abc123"}
	getenv := func(k string) string { return env[k] }

	tests := []struct {
		name, file, envName    string
		token, source, errPart string
	}{
		{"file wins", file, "", "file-token-0123456789", "file " + file, ""},
		{"default variable", "", "", "env-token-0123456789", "environment variable THE_LOOP_MCP_TOKEN", ""},
		{"configured variable", "", "OTHER", "other-token-0123456789", "environment variable OTHER", ""},
		{"nothing set", "", "UNSET", "", "", ""},
		{"empty file", empty, "", "", "", "is empty"},
		{"missing file", filepath.Join(dir, "nope"), "", "", "", "--token-file"},
		{"short token", "", "SHORT", "", "", "shorter than 16 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token, source, err := transport.ResolveToken(tt.file, tt.envName, getenv)
			if tt.errPart != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.errPart)
				assert.NotContains(t, err.Error(), "abc123", "a token value never appears in an error")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.token, token)
			assert.Equal(t, tt.source, source)
		})
	}
}

func TestHTTPBearerAuth(t *testing.T) {
	rig := startHTTP(t, transport.HTTPOptions{Token: testToken})
	tests := []struct {
		name      string
		headers   []string
		status    int
		challenge string
	}{
		{"no token", nil, http.StatusUnauthorized, `Bearer realm="the-loop"`},
		{"wrong token", []string{bearer("wrong-token-0123456789abcdef")}, http.StatusUnauthorized, `Bearer realm="the-loop", error="invalid_token"`},
		{"prefix of the token", []string{bearer(testToken[:10])}, http.StatusUnauthorized, `error="invalid_token"`},
		{"basic scheme", []string{"Authorization: Basic " + testToken}, http.StatusUnauthorized, `Bearer realm="the-loop"`},
		{"right token", []string{bearer(testToken)}, http.StatusOK, ""},
		{"scheme is case-insensitive", []string{"Authorization: bearer " + testToken}, http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := do(t, http.MethodPost, rig.url, legacyInit, tt.headers...)
			body := readBody(t, resp)
			assert.Equal(t, tt.status, resp.StatusCode, body)
			if tt.challenge == "" {
				assert.Empty(t, resp.Header.Get("WWW-Authenticate"))
				return
			}
			assert.True(t, strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), `Bearer realm="the-loop"`))
			assert.Contains(t, resp.Header.Get("WWW-Authenticate"), tt.challenge)
			assert.NotContains(t, resp.Header.Get("WWW-Authenticate"), "resource_metadata", "no OAuth pointer in static-token mode")
			assert.Contains(t, body, `"jsonrpc":"2.0"`)
			assert.NotContains(t, body, "wrong-token")
		})
	}
	assert.NotContains(t, rig.logs.String(), testToken, "the token never reaches the logs")
	assert.NotContains(t, rig.logs.String(), "wrong-token")
	assert.Contains(t, rig.logs.String(), "wrong bearer token")
}

func TestHTTPOriginAllowList(t *testing.T) {
	rig := startHTTP(t, transport.HTTPOptions{Token: testToken, AllowedOrigins: []string{"https://App.Example.com"}})
	tests := []struct {
		name    string
		headers []string
		status  int
	}{
		{"no origin", []string{bearer(testToken)}, http.StatusOK},
		{"allowed origin", []string{bearer(testToken), "Origin: https://app.example.com"}, http.StatusOK},
		{"other origin", []string{bearer(testToken), "Origin: https://evil.example"}, http.StatusForbidden},
		{"lookalike port", []string{bearer(testToken), "Origin: https://app.example.com:8443"}, http.StatusForbidden},
		{"null origin", []string{bearer(testToken), "Origin: null"}, http.StatusForbidden},
		{"bad origin is refused before auth", []string{"Origin: https://evil.example"}, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := do(t, http.MethodPost, rig.url, legacyInit, tt.headers...)
			body := readBody(t, resp)
			require.Equal(t, tt.status, resp.StatusCode, body)
			if tt.status == http.StatusForbidden {
				assert.Contains(t, body, "mcp.http.allowedOrigins")
			}
		})
	}

	// mcp-go's CORS option, as documented: allowed origins get
	// Access-Control-* headers and preflight is answered without
	// credentials.
	resp := do(t, http.MethodPost, rig.url, legacyInit, bearer(testToken), "Origin: https://app.example.com")
	assert.Equal(t, "https://app.example.com", resp.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, resp.Header.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id")

	resp = do(t, http.MethodOptions, rig.url, "", "Origin: https://app.example.com", "Access-Control-Request-Method: POST")
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("Access-Control-Allow-Headers"), "Authorization")
	assert.Contains(t, resp.Header.Get("Access-Control-Allow-Headers"), "Mcp-Protocol-Version")

	resp = do(t, http.MethodOptions, rig.url, "", "Origin: https://evil.example", "Access-Control-Request-Method: POST")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "preflight from a stranger is refused too")

	resp = do(t, http.MethodPost, rig.url, legacyInit, "Origin: https://app.example.com")
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, "https://app.example.com", resp.Header.Get("Access-Control-Allow-Origin"), "an allowed browser client can read the challenge")
	assert.Contains(t, resp.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate")
}

func TestOriginConfigIsChecked(t *testing.T) {
	for _, bad := range []string{"*", "null", "app.example.com", "https://app.example.com/path", "ftp://x"} {
		_, err := transport.NewHTTPHandler(context.Background(), NewServer(Deps{}, nil, "v"), transport.HTTPOptions{Token: testToken, AllowedOrigins: []string{bad}})
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "mcp.http.allowedOrigins")
	}
}

func TestHTTPLocalhostProtection(t *testing.T) {
	// mcp-go's DNS-rebinding guard: on a loopback connection, a Host that
	// is not localhost is refused.
	rig := startHTTP(t, transport.HTTPOptions{Token: testToken})
	resp := do(t, http.MethodPost, rig.url, legacyInit, bearer(testToken), "Host: evil.example")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Contains(t, readBody(t, resp), "invalid Host header")

	resp = do(t, http.MethodPost, rig.url, legacyInit, bearer(testToken), "Host: localhost:1234")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestHTTPBodyLimit(t *testing.T) {
	rig := startHTTP(t, transport.HTTPOptions{Token: testToken, MaxBodyBytes: 512})
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 1024) + `"}}`
	resp := do(t, http.MethodPost, rig.url, big, bearer(testToken))
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.Contains(t, readBody(t, resp), "mcp.http.maxBodyBytes")

	// Without Content-Length (an unknown-length body goes chunked) the
	// limit still holds.
	req, err := http.NewRequest(http.MethodPost, rig.url, struct{ *strings.Reader }{strings.NewReader(big)})
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	chunked, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer chunked.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, chunked.StatusCode)

	resp = do(t, http.MethodPost, rig.url, big)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "authentication comes first: an unauthenticated body is never read")

	resp = do(t, http.MethodPost, rig.url, legacyInit, bearer(testToken))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a body under the limit passes")
}

func TestHealthz(t *testing.T) {
	rig := startHTTP(t, transport.HTTPOptions{Token: testToken})
	resp := do(t, http.MethodGet, rig.srv.URL+transport.HealthPath, "")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"status":"ok"}`, readBody(t, resp))

	resp = do(t, http.MethodPost, rig.srv.URL+transport.HealthPath, "{}")
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)

	resp = do(t, http.MethodGet, rig.srv.URL+"/other", "")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestHTTPToolCalls(t *testing.T) {
	rig := startHTTP(t, transport.HTTPOptions{Token: testToken})
	for _, legacy := range []bool{false, true} {
		t.Run(fmt.Sprintf("legacy=%v", legacy), func(t *testing.T) {
			var opts []client.ClientOption
			if legacy {
				//lint:ignore SA1019 the test drives clients of the legacy handshake on purpose
				opts = append(opts, client.WithLegacyProtocolOnly())
			}
			c := httpClient(t, rig.url, testToken, opts...)
			list, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
			require.NoError(t, err)
			require.Len(t, list.Tools, 1)
			res := callTool(t, c, "echo_item", map[string]any{"workItem": "a/b#2", "verbose": true})
			require.False(t, res.IsError)
			assert.Equal(t, "a/b#2 by bearer in /repo", resultText(t, res), "the bearer principal reaches the tool")
			res = callTool(t, c, "echo_item", map[string]any{"workItem": "a/b#2", "force": true})
			assert.True(t, res.IsError)
			assert.Contains(t, resultText(t, res), `unknown argument "force"`)
		})
	}
	assert.NotContains(t, rig.logs.String(), testToken)
}

func TestHTTPConcurrentClients(t *testing.T) {
	rig := startHTTP(t, transport.HTTPOptions{Token: testToken, MaxSessions: 64})
	const clients, calls = 16, 8
	var wg sync.WaitGroup
	errs := make(chan error, clients*calls)
	for i := 0; i < clients; i++ {
		var opts []client.ClientOption
		if i%2 == 1 {
			//lint:ignore SA1019 half the clients speak the legacy handshake on purpose
			opts = append(opts, client.WithLegacyProtocolOnly())
		}
		c := httpClient(t, rig.url, testToken, opts...)
		wg.Add(1)
		go func(i int, c *client.Client) {
			defer wg.Done()
			for j := 0; j < calls; j++ {
				item := fmt.Sprintf("o/r#%d-%d", i, j)
				req := mcp.CallToolRequest{}
				req.Params.Name = "echo_item"
				req.Params.Arguments = map[string]any{"workItem": item, "mode": "loud"}
				res, err := c.CallTool(context.Background(), req)
				switch {
				case err != nil:
					errs <- err
				case res.IsError:
					errs <- fmt.Errorf("%s: tool error", item)
				default:
					if tc, ok := mcp.AsTextContent(res.Content[0]); !ok || tc.Text != strings.ToUpper(item) {
						errs <- fmt.Errorf("%s: got %v", item, res.Content)
					}
				}
			}
		}(i, c)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	assert.Equal(t, clients*calls, strings.Count(rig.logs.String(), `"msg":"mcp tool call"`))
}

func TestHTTPSessionCap(t *testing.T) {
	rig := startHTTP(t, transport.HTTPOptions{Token: testToken, MaxSessions: 2})
	var ids []string
	for i := 0; i < 2; i++ {
		resp := do(t, http.MethodPost, rig.url, legacyInit, bearer(testToken))
		require.Equal(t, http.StatusOK, resp.StatusCode, readBody(t, resp))
		id := resp.Header.Get("Mcp-Session-Id")
		require.NotEmpty(t, id)
		ids = append(ids, id)
	}
	assert.NotEqual(t, ids[0], ids[1])

	// A request inside a live session is served at the cap.
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	resp := do(t, http.MethodPost, rig.url, ping, bearer(testToken), "Mcp-Session-Id: "+ids[0], "Mcp-Protocol-Version: 2025-11-25")
	assert.Equal(t, http.StatusOK, resp.StatusCode, readBody(t, resp))

	// An id the server never issued is not a session, and takes no slot.
	resp = do(t, http.MethodPost, rig.url, ping, bearer(testToken), "Mcp-Session-Id: mcp-session-made-up", "Mcp-Protocol-Version: 2025-11-25")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "an unknown id is refused")
	assert.Equal(t, 2, rig.handler.Sessions())

	resp = do(t, http.MethodDelete, rig.url, "", bearer(testToken), "Mcp-Session-Id: "+ids[0], "Mcp-Protocol-Version: 2025-11-25")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	resp = do(t, http.MethodPost, rig.url, ping, bearer(testToken), "Mcp-Session-Id: "+ids[0], "Mcp-Protocol-Version: 2025-11-25")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "a terminated session is gone")
	assert.Equal(t, 1, rig.handler.Sessions(), "closing a session frees its slot")

	resp = do(t, http.MethodPost, rig.url, legacyInit, bearer(testToken))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	resp = do(t, http.MethodPost, rig.url, legacyInit, bearer(testToken))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "at the cap, an idle session makes room instead of a refusal")
	assert.Equal(t, 2, rig.handler.Sessions())
}

func TestHTTPSessionCapCountsInflightStatelessRequests(t *testing.T) {
	rig := startHTTP(t, transport.HTTPOptions{Token: testToken, MaxSessions: 1})
	c := httpClient(t, rig.url, testToken)
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "echo_item"
		req.Params.Arguments = map[string]any{"workItem": "slow#1", "mode": "slow"}
		res, err := c.CallTool(context.Background(), req)
		if err != nil {
			res = mcp.NewToolResultError(err.Error())
		}
		done <- res
	}()
	<-rig.backend.started

	req := mcp.CallToolRequest{}
	req.Params.Name = "echo_item"
	req.Params.Arguments = map[string]any{"workItem": "x"}
	_, err := c.CallTool(context.Background(), req)
	require.Error(t, err, "the only slot is held by the call in flight")
	assert.Contains(t, err.Error(), "mcp.http.maxSessions")

	close(rig.backend.release)
	res := <-done
	require.False(t, res.IsError, resultText(t, res))
	res = callTool(t, c, "echo_item", map[string]any{"workItem": "x"})
	assert.False(t, res.IsError, "the slot is free again")
}

func TestHTTPSessionIdleTTL(t *testing.T) {
	// mcp-go's idle sweeper, as documented, ends sessions idle past the
	// TTL; our table hears of it through Terminate.
	rig := startHTTP(t, transport.HTTPOptions{Token: testToken, SessionIdleTTL: 500 * time.Millisecond})
	resp := do(t, http.MethodPost, rig.url, legacyInit, bearer(testToken))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	id := resp.Header.Get("Mcp-Session-Id")
	require.Equal(t, 1, rig.handler.Sessions())
	require.Eventually(t, func() bool { return rig.handler.Sessions() == 0 }, 10*time.Second, 50*time.Millisecond)
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	resp = do(t, http.MethodPost, rig.url, ping, bearer(testToken), "Mcp-Session-Id: "+id, "Mcp-Protocol-Version: 2025-11-25")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestServeHTTPGracefulShutdown(t *testing.T) {
	backend := newFakeBackend()
	srv := NewServer(Deps{Backend: backend}, []Tool{echoTool}, "v1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- transport.ServeHTTP(ctx, srv, transport.HTTPOptions{
			Addr: "127.0.0.1:0", Token: testToken, ReadTimeout: 100 * time.Millisecond,
			Ready: func(u string) { ready <- u },
		})
	}()
	var url string
	select {
	case url = <-ready:
	case err := <-done:
		t.Fatalf("transport.ServeHTTP: %v", err)
	}
	require.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), url)
	require.True(t, strings.HasSuffix(url, "/mcp"), url)

	c := httpClient(t, url, testToken)
	result := make(chan *mcp.CallToolResult, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "echo_item"
		req.Params.Arguments = map[string]any{"workItem": "slow#2", "mode": "slow"}
		res, err := c.CallTool(context.Background(), req)
		if err != nil {
			res = mcp.NewToolResultError("protocol: " + err.Error())
		}
		result <- res
	}()
	<-backend.started
	// Outlive ReadTimeout: the call must not be cancelled by it.
	time.Sleep(250 * time.Millisecond)
	cancel() // SIGTERM in the binary
	select {
	case err := <-done:
		t.Fatalf("transport.ServeHTTP returned (%v) with a call in flight", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(backend.release)
	res := <-result
	require.False(t, res.IsError, resultText(t, res))
	assert.Equal(t, "slow#2", resultText(t, res))
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("transport.ServeHTTP did not return after the call finished")
	}
	_, err := http.Get(strings.TrimSuffix(url, "/mcp") + transport.HealthPath)
	assert.Error(t, err, "the listener is closed")
}

func TestServeHTTPShutdownDoesNotWaitForSilentConnections(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- transport.ServeHTTP(ctx, NewServer(Deps{}, nil, "v"), transport.HTTPOptions{
			Addr: "127.0.0.1:0", Token: testToken, Ready: func(u string) { ready <- u },
		})
	}()
	url := <-ready
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	conn, err := net.Dial("tcp", host) // opened, never sends a request
	require.NoError(t, err)
	defer conn.Close()
	resp, err := http.Get("http://" + host + transport.HealthPath)
	require.NoError(t, err)
	resp.Body.Close()

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(3 * time.Second):
		t.Fatal("shutdown waited on a connection that never sent a request")
	}
}
