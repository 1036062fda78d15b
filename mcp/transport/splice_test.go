package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spliceValue has what encoding/json escapes or reorders: HTML characters,
// a map's keys out of order, non-ASCII text, a line separator.
var spliceValue = map[string]any{
	"z":     []any{1, 2.5, "<b>&</b>"},
	"a":     map[string]any{"y": nil, "b": true, "text": "déjà vu\u2028next"},
	"items": []any{map[string]any{"id": "issue-7", "ok": false}},
	// past net/http's 2 KiB, beyond which an undeclared body is chunked
	"pad": strings.Repeat("report line. ", 300),
}

// spliceRig serves two tools that answer alike: "encoded" through
// StructuredForm (the tool middleware's path), "value" with the value
// itself, mcp-go encoding it. notify makes both send a notification first,
// which turns the answer into an SSE stream.
type spliceRig struct {
	url, session string
	logs         *bytes.Buffer
	forms        chan any // what StructuredForm gave each "encoded" call
}

func startSpliceRig(t *testing.T) *spliceRig {
	t.Helper()
	srv := server.NewMCPServer("t", "1", server.WithToolCapabilities(false), server.WithLogging())
	forms := make(chan any, 8)
	answer := func(encoded bool) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.GetBool("notify", false) {
				require.NoError(t, srv.SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "info", "data": "working"}))
			}
			res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("summary")}, StructuredContent: spliceValue}
			if encoded {
				js, err := json.Marshal(spliceValue)
				require.NoError(t, err)
				res.StructuredContent = StructuredForm(ctx, Encoded{Value: spliceValue, JSON: js})
				forms <- res.StructuredContent
			}
			return res, nil
		}
	}
	srv.AddTool(mcp.NewTool("encoded", mcp.WithBoolean("notify")), answer(true))
	srv.AddTool(mcp.NewTool("value", mcp.WithBoolean("notify")), answer(false))
	logs := &bytes.Buffer{}
	h, err := NewHTTPHandler(context.Background(), srv, HTTPOptions{Token: "tok", Logger: slog.New(slog.NewTextHandler(logs, nil))})
	require.NoError(t, err)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	rig := &spliceRig{url: ts.URL + EndpointPath, logs: logs, forms: forms}
	resp, _ := rig.post(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, nil)
	rig.session = resp.Header.Get(server.HeaderKeySessionID)
	require.NotEmpty(t, rig.session)
	rig.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	return rig
}

func (r *spliceRig) post(t *testing.T, body string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if r.session != "" {
		req.Header.Set(server.HeaderKeySessionID, r.session)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, 2, resp.StatusCode/100, "%s", raw)
	return resp, raw
}

// TestHTTPAnswerIsTheEncodingOfTheValue: a structured content written from
// its bytes gives, byte for byte, the answer mcp-go gives encoding the
// value — as a JSON body, as the last event of an SSE stream, and to a
// client of either protocol era — and no stand-in ever reaches a client.
func TestHTTPAnswerIsTheEncodingOfTheValue(t *testing.T) {
	rig := startSpliceRig(t)
	modern := map[string]string{"MCP-Protocol-Version": mcp.ProtocolVersion20260728, "Mcp-Method": "tools/call", "Mcp-Name": "encoded"}
	call := func(tool, args, meta string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + meta + `}}`
	}
	modernMeta := `,"_meta":{"` + mcp.MetaKeyProtocolVersion + `":"` + mcp.ProtocolVersion20260728 + `","` +
		mcp.MetaKeyClientCapabilities + `":{},"` + mcp.MetaKeyClientInfo + `":{"name":"c","version":"1"}}`
	for _, tc := range []struct {
		name, args, meta, contentType string
		header                        map[string]string
	}{
		{name: "JSON body", args: `{}`, contentType: "application/json"},
		{name: "SSE stream", args: `{"notify":true}`, contentType: "text/event-stream"},
		{name: "2026-07-28 request", args: `{}`, meta: modernMeta, contentType: "application/json", header: modern},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, spliced := rig.post(t, call("encoded", tc.args, tc.meta), tc.header)
			assert.Equal(t, tc.contentType, resp.Header.Get("Content-Type"))
			if tc.contentType == "application/json" {
				assert.Equal(t, int64(len(spliced)), resp.ContentLength, "a JSON body is declared with its length")
				assert.Empty(t, resp.TransferEncoding, "a JSON body is not chunked")
			} else {
				assert.Equal(t, int64(-1), resp.ContentLength, "a stream has no length")
			}
			assert.IsType(t, json.RawMessage{}, <-rig.forms, "the tool answered with a stand-in")
			if tc.header != nil {
				tc.header["Mcp-Name"] = "value"
			}
			_, encoded := rig.post(t, call("value", tc.args, tc.meta), tc.header)
			if tc.contentType == "text/event-stream" {
				// mcp-go can drop a notification sent just before the
				// handler returns (its forwarder takes it off the session's
				// channel, then finds the request done), in either call:
				// the answer's own event is what must match.
				spliced, encoded = answerEvent(t, spliced), answerEvent(t, encoded)
			}
			assert.Equal(t, string(encoded), string(spliced))
			assert.NotContains(t, string(spliced), "the-loop:encoded:")
			assert.Contains(t, string(spliced), `"structuredContent":{"a":{"b":true`)
		})
	}
	assert.Empty(t, rig.logs.String(), "every stand-in was written over")
}

// answerEvent is the event of an SSE stream that answers request 7.
func answerEvent(t *testing.T, stream []byte) []byte {
	t.Helper()
	for _, event := range bytes.Split(stream, []byte("\n\n")) {
		if bytes.Contains(event, []byte(`"id":7,`)) {
			return event
		}
	}
	require.Failf(t, "no answer in the stream", "%s", stream)
	return nil
}

// A batch of writes: each stand-in is replaced where it is met, those not
// met stay pending, and a write without any passes as it is.
func TestSplicesReplaceEachStandInWhereMet(t *testing.T) {
	s := &splices{}
	one := s.standIn([]byte(`{"n":1}`))
	two := s.standIn([]byte(`[2]`))
	assert.NotEqual(t, string(one), string(two), "each result has its own stand-in")
	var got bytes.Buffer
	w := &splicingWriter{ResponseWriter: &recorder{body: &got}, splices: s}

	n, err := w.Write([]byte(`{"a":` + string(two) + `,"b":` + string(one) + `}`))
	require.NoError(t, err)
	assert.Equal(t, len(`{"a":`+string(two)+`,"b":`+string(one)+`}`), n, "a write reports the bytes it was given")
	assert.Equal(t, `{"a":[2],"b":{"n":1}}`, got.String())
	assert.Zero(t, s.left())

	three := s.standIn([]byte(`3`))
	got.Reset()
	_, err = w.Write([]byte(`no stand-in here`))
	require.NoError(t, err)
	assert.Equal(t, `no stand-in here`, got.String())
	assert.Equal(t, 1, s.left(), "a stand-in not yet written stays pending")
	got.Reset()
	_, err = w.Write([]byte(`data: ` + string(three) + "\n\n"))
	require.NoError(t, err)
	assert.Equal(t, "data: 3\n\n", got.String())
	assert.Zero(t, s.left())
}

// A JSON body's status waits for its one write, which declares the
// length after replacement; a stream's status, a status without a body
// and one already declared pass as they are.
func TestSplicingDeclaresAJSONBodysLength(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, declared string
		status                      int
		body                        string
		wantLength                  string
	}{
		{name: "JSON body", contentType: "application/json", status: 200, body: "stand-ins", wantLength: "21"},
		{name: "JSON error", contentType: "application/json", status: 400, body: `{"error":1}`, wantLength: "11"},
		{name: "JSON status alone", contentType: "application/json", status: 202, wantLength: "0"},
		{name: "stream", contentType: "text/event-stream", status: 200, body: "data: 1\n\n"},
		{name: "no content", contentType: "application/json", status: 204},
		{name: "declared", contentType: "application/json", declared: "11", status: 200, body: `{"error":1}`, wantLength: "11"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &splices{}
			rec := httptest.NewRecorder()
			w := &splicingWriter{ResponseWriter: rec, splices: s}
			w.Header().Set("Content-Type", tc.contentType)
			if tc.declared != "" {
				w.Header().Set("Content-Length", tc.declared)
			}
			w.WriteHeader(tc.status)
			body := tc.body
			if body == "stand-ins" {
				one, two := s.standIn([]byte(`{"n":1}`)), s.standIn([]byte(`[2]`))
				body = `{"a":` + string(two) + `,"b":` + string(one) + `}`
			}
			if body != "" {
				_, err := io.WriteString(w, body)
				require.NoError(t, err)
			}
			w.release(0)
			assert.Equal(t, tc.status, rec.Code)
			assert.Equal(t, tc.wantLength, rec.Header().Get("Content-Length"))
			if tc.wantLength != "" {
				assert.Equal(t, tc.wantLength, strconv.Itoa(rec.Body.Len()), "the declared length is the body's")
			}
		})
	}
}

// A stand-in handed out but never written over is logged: the client got
// it instead of the content. A request whose client left is not.
func TestSplicingLogsAStandInNeverWritten(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	h := splicing(logger, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = StructuredForm(r.Context(), Encoded{Value: 1, JSON: []byte(`1`)})
		_, _ = io.WriteString(w, `{"result":"written some other way"}`)
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/mcp", nil))
	assert.Contains(t, logs.String(), "not written in place of its stand-in")

	logs.Reset()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/mcp", nil).WithContext(ctx))
	assert.Empty(t, logs.String(), "a client that left was never answered")

	get := httptest.NewRequest(http.MethodGet, "/mcp", nil)
	h.ServeHTTP(httptest.NewRecorder(), get)
	assert.Empty(t, logs.String(), "only POSTs answer tool calls")
}

// recorder is a ResponseWriter writing its body to a buffer.
type recorder struct {
	body *bytes.Buffer
}

func (r *recorder) Header() http.Header         { return http.Header{} }
func (r *recorder) WriteHeader(int)             {}
func (r *recorder) Write(p []byte) (int, error) { return r.body.Write(p) }
