package mcp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	clienttransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/mcp/transport"
)

const testToken = "test-token-0123456789abcdef"

// httpRig is the full HTTP surface on a real loopback listener.
type httpRig struct {
	srv     *httptest.Server
	url     string // the /mcp endpoint
	backend *fakeBackend
	logs    *syncBuffer
	handler *transport.HTTPHandler
}

func startHTTP(t *testing.T, opts transport.HTTPOptions) *httpRig {
	t.Helper()
	logs := &syncBuffer{}
	backend := newFakeBackend()
	if opts.Logger == nil {
		opts.Logger = jsonLogger(logs)
	}
	mcpSrv := NewServer(Deps{Logger: opts.Logger, Backend: backend, DefaultRepo: "/repo"}, []Tool{echoTool}, "v1")
	h, err := transport.NewHTTPHandler(context.Background(), mcpSrv, opts)
	require.NoError(t, err)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		_ = h.Shutdown(context.Background())
		ts.Close()
	})
	return &httpRig{srv: ts, url: ts.URL + transport.EndpointPath, backend: backend, logs: logs, handler: h}
}

const legacyInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// do sends a raw request; headers are "Name: value" strings.
func do(t *testing.T, method, url, body string, headers ...string) *http.Response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	for _, h := range headers {
		k, v, ok := strings.Cut(h, ": ")
		require.True(t, ok, h)
		if strings.EqualFold(k, "Host") {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

func bearer(token string) string { return "Authorization: Bearer " + token }

// httpClient connects an mcp-go streamable HTTP client with the token.
func httpClient(t *testing.T, url, token string, opts ...client.ClientOption) *client.Client {
	t.Helper()
	tr, err := clienttransport.NewStreamableHTTP(url, clienttransport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	require.NoError(t, err)
	c := client.NewClient(tr, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, c.Start(ctx))
	_, err = c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "http-test", Version: "1"},
	}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}
