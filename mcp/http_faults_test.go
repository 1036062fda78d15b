package mcp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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

// Fault 2: connections are capped per client address (and overall); a
// connection past the cap is closed at once.
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
	var held []net.Conn
	for range 2 {
		conn, err := net.Dial("tcp", host)
		require.NoError(t, err)
		held = append(held, conn)
	}
	healthy := func(conn net.Conn) bool {
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", transport.HealthPath, host); err != nil {
			return false
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	extra, err := net.Dial("tcp", host)
	require.NoError(t, err)
	defer extra.Close()
	assert.False(t, healthy(extra), "a third connection from the same client is closed")
	assert.True(t, healthy(held[0]), "the connections within the cap are served")

	require.NoError(t, held[1].Close())
	require.Eventually(t, func() bool {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			return false
		}
		defer conn.Close()
		return healthy(conn)
	}, 10*time.Second, 20*time.Millisecond, "a closed connection frees its place")
	_ = held[0].Close()
	cancel()
	require.NoError(t, <-done)
}
