package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/mcp/transport"
)

const legacyVersion = "Mcp-Protocol-Version: 2025-11-25"

// Fault 1: sessions abandoned without a DELETE (as the TypeScript SDK
// leaves them) and GETs without a session id never lock the next client
// out. An id-less GET holds no slot; at the cap the least recently active
// idle session is evicted instead of refusing the newcomer.
func TestAbandonedSessionsNeverLockOutTheNextClient(t *testing.T) {
	rig := startHTTP(t, transport.HTTPOptions{Token: testToken})
	for i := range 1000 {
		resp := do(t, http.MethodPost, rig.url, legacyInit, bearer(testToken))
		require.Equal(t, http.StatusOK, resp.StatusCode, "abandoned session %d: %s", i, readBody(t, resp))
		_ = resp.Body.Close()
	}
	for i := range 100 {
		resp := do(t, http.MethodGet, rig.url, "", bearer(testToken), legacyVersion, "Accept: text/event-stream")
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, "id-less GET %d", i)
		assert.Contains(t, readBody(t, resp), "Mcp-Session-Id")
		_ = resp.Body.Close()
	}
	assert.LessOrEqual(t, rig.handler.Sessions(), transport.DefaultMaxSessions)

	c := httpClient(t, rig.url, testToken)
	res := callTool(t, c, "echo_item", map[string]any{"workItem": "next#1"})
	require.False(t, res.IsError, resultText(t, res))
	assert.Equal(t, "next#1", resultText(t, res))
}

// At the cap the least recently active idle session makes room; a busy
// session (a call in flight or an open stream) is never evicted, and when
// every session is busy the newcomer gets 503.
func TestSessionEvictionPicksTheLeastRecentlyActiveIdleSession(t *testing.T) {
	rig := startHTTP(t, transport.HTTPOptions{Token: testToken, MaxSessions: 2})
	open := func() string {
		resp := do(t, http.MethodPost, rig.url, legacyInit, bearer(testToken))
		require.Equal(t, http.StatusOK, resp.StatusCode, readBody(t, resp))
		return resp.Header.Get("Mcp-Session-Id")
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	a, b := open(), open()
	resp := do(t, http.MethodPost, rig.url, ping, bearer(testToken), "Mcp-Session-Id: "+a, legacyVersion)
	require.Equal(t, http.StatusOK, resp.StatusCode, "a is now the more recent")
	c := open()
	resp = do(t, http.MethodPost, rig.url, ping, bearer(testToken), "Mcp-Session-Id: "+b, legacyVersion)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "b was idle longest and was evicted")
	for _, id := range []string{a, c} {
		resp = do(t, http.MethodPost, rig.url, ping, bearer(testToken), "Mcp-Session-Id: "+id, legacyVersion)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
	}

	// Hold both remaining sessions busy with open streams.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, id := range []string{a, c} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, rig.url, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		req.Header.Set("Accept", "text/event-stream")
		stream, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer stream.Body.Close()
		require.Equal(t, http.StatusOK, stream.StatusCode)
	}
	resp = do(t, http.MethodPost, rig.url, legacyInit, bearer(testToken))
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "no idle session to evict")
	assert.Equal(t, "5", resp.Header.Get("Retry-After"))
	assert.Contains(t, readBody(t, resp), "mcp.http.maxSessions")
}

// Fault 2: a request without valid credentials is refused before a byte of
// its body is read.
func TestHTTPAuthenticatesBeforeReadingTheBody(t *testing.T) {
	rig := startHTTP(t, transport.HTTPOptions{Token: testToken})
	for name, auth := range map[string]string{"no token": "", "wrong token": "Bearer not-the-token-0123456789"} {
		t.Run(name, func(t *testing.T) {
			body := &countingReader{r: strings.NewReader(strings.Repeat("x", 1<<20))}
			req := httptest.NewRequest(http.MethodPost, transport.EndpointPath, body)
			req.Header.Set("Content-Type", "application/json")
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			rec := httptest.NewRecorder()
			rig.handler.ServeHTTP(rec, req)
			assert.Equal(t, http.StatusUnauthorized, rec.Code)
			assert.Zero(t, body.n.Load(), "no byte of an unauthenticated body is read")
			assert.Equal(t, "close", rec.Header().Get("Connection"), "the connection is not kept to drain the body")
		})
	}
}

type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// Fault 2: connections are capped per client address (and overall), in two
// pools: those that never authenticated and those that did. Connections
// without a token — opened and left silent — only ever displace each other,
// never an authenticated client's; an authenticated client past its own cap
// is refused with 503.
func TestServeHTTPCapsConnectionsPerClient(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- transport.ServeHTTP(ctx, NewServer(Deps{}, nil, "v"), transport.HTTPOptions{
			Addr: "127.0.0.1:0", Token: testToken, MaxConnectionsPerClient: 2, Ready: func(u string) { ready <- u },
		})
	}()
	host := strings.TrimSuffix(strings.TrimPrefix(<-ready, "http://"), "/mcp")
	dial := func() net.Conn {
		conn, err := net.Dial("tcp", host)
		require.NoError(t, err)
		t.Cleanup(func() { _ = conn.Close() })
		return conn
	}
	// ask sends one request on conn and returns its status (0: the
	// connection was closed). An id-less GET on /mcp is authenticated, then
	// answered 400: the connection proves its client holds a token.
	ask := func(conn net.Conn, path, auth string) int {
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\n", path, host)
		if auth != "" {
			req += "Authorization: Bearer " + auth + "\r\n" + legacyVersion + "\r\n"
		}
		if _, err := fmt.Fprint(conn, req+"\r\n"); err != nil {
			return 0
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			return 0
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	authed := []net.Conn{dial(), dial()}
	for _, c := range authed {
		require.Equal(t, http.StatusBadRequest, ask(c, transport.EndpointPath, testToken), "authenticated, then answered")
	}
	third := dial()
	assert.Equal(t, http.StatusServiceUnavailable, ask(third, transport.EndpointPath, testToken), "a third authenticated connection from one client is refused")

	var silent []net.Conn
	for range 10 {
		silent = append(silent, dial())
	}
	closed := 0
	require.Eventually(t, func() bool {
		closed = 0
		for _, c := range silent {
			_ = c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
			if _, err := c.Read(make([]byte, 1)); errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || isReset(err) {
				closed++
			}
		}
		return closed >= 8
	}, 10*time.Second, 50*time.Millisecond, "silent connections displace each other: at most two stay open (%d closed)", closed)
	for _, c := range authed {
		assert.Equal(t, http.StatusBadRequest, ask(c, transport.EndpointPath, testToken), "the authenticated connections survive the flood")
	}
	require.NoError(t, authed[1].Close())
	require.Eventually(t, func() bool { return ask(dial(), transport.EndpointPath, testToken) == http.StatusBadRequest },
		10*time.Second, 20*time.Millisecond, "a closed authenticated connection frees its place; a new one displaces a silent one")
	cancel()
	require.NoError(t, <-done)
}

// Connections without a token, opened first and left silent up to the
// per-client cap (and past it), never lock an authenticated client of the
// same address out: its connection displaces the oldest silent one.
func TestTokenlessConnectionsCannotLockOutAnAuthenticatedClient(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- transport.ServeHTTP(ctx, NewServer(Deps{}, nil, "v"), transport.HTTPOptions{
			Addr: "127.0.0.1:0", Token: testToken, MaxConnectionsPerClient: 2, MaxConnections: 4, Ready: func(u string) { ready <- u },
		})
	}()
	url := <-ready
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	for range 6 {
		conn, err := net.Dial("tcp", host)
		require.NoError(t, err)
		defer conn.Close()
	}
	time.Sleep(50 * time.Millisecond)  // the server accepts them all
	c := httpClient(t, url, testToken) // initialize is answered
	_, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	require.NoError(t, err, "the authenticated client is served although silent connections filled both caps first")
	cancel()
	require.NoError(t, <-done)
}

// isReset reports a connection the peer closed with a reset.
func isReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}
