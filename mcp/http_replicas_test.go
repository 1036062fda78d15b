package mcp

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/mcp/transport"
	"github.com/the-loop/the-loop/store"
	"github.com/the-loop/the-loop/store/storetest"
)

// TestHTTPSessionsSurviveAReplicaChange runs two replicas of the HTTP
// transport on one store (each with its own handle, as two processes
// would): a session started on one is served by the other, ended on one it
// is gone on both, and an id nobody issued is refused by both.
func TestHTTPSessionsSurviveAReplicaChange(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			loc := filepath.Join(t.TempDir(), "state.db")
			if backend == "postgres" {
				loc = storetest.TempPostgres(t)
			}
			open := func() *store.Store {
				st, err := store.Open(context.Background(), loc)
				require.NoError(t, err)
				t.Cleanup(func() { _ = st.Close() })
				return st
			}
			a := startHTTP(t, transport.HTTPOptions{Token: testToken, Shared: open()})
			b := startHTTP(t, transport.HTTPOptions{Token: testToken, Shared: open()})

			resp := do(t, http.MethodPost, a.url, legacyInit, bearer(testToken))
			require.Equal(t, http.StatusOK, resp.StatusCode, readBody(t, resp))
			id := resp.Header.Get("Mcp-Session-Id")
			require.NotEmpty(t, id)

			call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo_item","arguments":{"workItem":"issue-7"}}}`
			resp = do(t, http.MethodPost, b.url, call, bearer(testToken), "Mcp-Session-Id: "+id, "Mcp-Protocol-Version: 2025-11-25")
			body := readBody(t, resp)
			require.Equal(t, http.StatusOK, resp.StatusCode, body)
			assert.Contains(t, body, "issue-7", "the other replica serves the session's tool call")
			assert.Equal(t, 1, b.handler.Sessions())

			resp = do(t, http.MethodPost, b.url, call, bearer(testToken), "Mcp-Session-Id: mcp-session-made-up", "Mcp-Protocol-Version: 2025-11-25")
			assert.Equal(t, http.StatusNotFound, resp.StatusCode, "an id no replica issued is refused")

			resp = do(t, http.MethodDelete, b.url, "", bearer(testToken), "Mcp-Session-Id: "+id, "Mcp-Protocol-Version: 2025-11-25")
			require.Equal(t, http.StatusOK, resp.StatusCode)
			resp = do(t, http.MethodPost, a.url, call, bearer(testToken), "Mcp-Session-Id: "+id, "Mcp-Protocol-Version: 2025-11-25")
			assert.Equal(t, http.StatusNotFound, resp.StatusCode, "a session its client ended on one replica is gone on the other")
		})
	}
}
