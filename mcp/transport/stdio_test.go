package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEncodeMessageMatchesEncodingJSON: the line transports' encoding of a
// tool result with Encoded structured content decodes to what
// encoding/json writes for the same message, whatever else the result
// holds; every other message is encoding/json's own bytes.
func TestEncodeMessageMatchesEncodingJSON(t *testing.T) {
	structured, err := json.Marshal(map[string]any{"reports": []any{map[string]any{"workItem": "issue-2", "ok": false, "note": "<a & b>"}}})
	require.NoError(t, err)
	withMeta := mcp.NewToolResultText("summary")
	withMeta.Meta = &mcp.Meta{AdditionalFields: map[string]any{"k": "v"}}
	tests := []struct {
		name string
		msg  mcp.JSONRPCMessage
	}{
		{"text and structured content", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(7)), &mcp.CallToolResult{
			Content: []mcp.Content{mcp.NewTextContent("issue-2: UNMET \"quoted\"\n- line")}, StructuredContent: Encoded{JSON: structured}})},
		{"an error result with a string id", mcp.NewJSONRPCResultResponse(mcp.NewRequestId("a-1"), &mcp.CallToolResult{
			Content: []mcp.Content{mcp.NewTextContent("no")}, StructuredContent: Encoded{JSON: []byte(`{"x":1}`)}, IsError: true})},
		{"no content", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(1)), &mcp.CallToolResult{StructuredContent: Encoded{JSON: []byte(`[]`)}})},
		{"meta", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(2)), func() *mcp.CallToolResult {
			r := *withMeta
			r.StructuredContent = Encoded{JSON: []byte(`{"y":[1,2]}`)}
			return &r
		}())},
		{"typed structured content", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(3)), mcp.NewToolResultStructured(map[string]int{"a": 1}, "t"))},
		{"raw structured content", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(4)), &mcp.CallToolResult{RawStructuredContent: json.RawMessage(`{"z":true}`)})},
		{"another result", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(5)), mcp.ListToolsResult{Tools: []mcp.Tool{}})},
		{"an error", mcp.NewJSONRPCError(mcp.NewRequestId(int64(6)), mcp.INVALID_PARAMS, "bad", nil)},
		{"a notification", mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: "notifications/tools/list_changed"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := json.Marshal(tt.msg)
			require.NoError(t, err)
			got, err := encodeMessage(tt.msg)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(got))
			assert.True(t, json.Valid(got))
			assert.NotContains(t, string(got), "\n", "one frame, one line")
		})
	}
}

func TestReadLineBoundsAFrame(t *testing.T) {
	tests := []struct {
		name, input string
		max         int
		want        []string
		err         error
	}{
		{"lines", "a\nbb\n", 0, []string{"a", "bb"}, io.EOF},
		{"a last line without its end", "a\nbb", 0, []string{"a", "bb"}, io.EOF},
		{"at the bound", strings.Repeat("x", 8) + "\n", 8, []string{strings.Repeat("x", 8)}, io.EOF},
		{"over the bound", strings.Repeat("x", 9) + "\n", 8, nil, errFrameTooLarge},
		{"longer than the reader's buffer, unbounded", strings.Repeat("y", 200<<10) + "\n", 0, []string{strings.Repeat("y", 200<<10)}, io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			br := bufio.NewReaderSize(strings.NewReader(tt.input), 64<<10)
			var got []string
			for {
				line, err := readLine(br, tt.max)
				if err != nil {
					assert.ErrorIs(t, err, tt.err)
					break
				}
				got = append(got, string(line))
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// lineRig serves a server with one tool over ServeConn on pipes.
type lineRig struct {
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func startLines(t *testing.T, tool server.ToolHandlerFunc) *lineRig {
	t.Helper()
	srv := server.NewMCPServer("t", "1", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("t", mcp.WithString("x")), tool)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	conn := struct {
		io.Reader
		io.Writer
	}{inR, outW}
	done := make(chan error, 1)
	go func() {
		done <- ServeConn(context.Background(), srv, conn, Principal{Subject: "s", Method: "session"}, nil)
	}()
	t.Cleanup(func() { _ = inW.Close(); _ = outR.Close() })
	return &lineRig{in: inW, out: bufio.NewReader(outR), done: done}
}

func (r *lineRig) send(t *testing.T, frame string) {
	t.Helper()
	_, err := io.WriteString(r.in, frame+"\n")
	require.NoError(t, err)
}

func (r *lineRig) read(t *testing.T) map[string]any {
	t.Helper()
	line, err := r.out.ReadBytes('\n')
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(line, &m), "%s", line)
	return m
}

func TestLineServerAnswersWhatItShould(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var seen []string
	rig := startLines(t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		x := req.GetString("x", "")
		if x == "panic" {
			panic("boom")
		}
		if x == "slow" {
			<-release
		}
		p, _ := PrincipalFromContext(ctx)
		mu.Lock()
		_, asIs := StructuredForm(ctx, Encoded{Value: 1, JSON: []byte("1")}).(Encoded)
		seen = append(seen, fmt.Sprintf("%s %t", p.Subject, asIs))
		mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(x)}, StructuredContent: Encoded{Value: map[string]any{"x": x}, JSON: []byte(`{"x":"` + x + `"}`)}}, nil
	})
	rig.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	assert.EqualValues(t, 1, rig.read(t)["id"])
	rig.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	rig.send(t, ``)                                      // a blank line is skipped
	rig.send(t, `{"jsonrpc":"2.0","id":99,"result":{}}`) // a response to no request is dropped
	rig.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{"x":"slow"}}}`)
	rig.send(t, `{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"t","arguments":{"x":"fast"}}}`)
	fast := rig.read(t)
	assert.Equal(t, "three", fast["id"], "a later call is answered while an earlier one runs")
	assert.Equal(t, map[string]any{"x": "fast"}, fast["result"].(map[string]any)["structuredContent"])
	close(release)
	assert.EqualValues(t, 2, rig.read(t)["id"])
	rig.send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t","arguments":{"x":"panic"}}}`)
	crashed := rig.read(t)
	assert.EqualValues(t, 4, crashed["id"])
	assert.Contains(t, crashed["error"].(map[string]any)["message"], "internal panic: boom", "a panic is answered, the server goes on")
	rig.send(t, `not json`)
	parse := rig.read(t)
	assert.Nil(t, parse["id"])
	assert.EqualValues(t, mcp.PARSE_ERROR, parse["error"].(map[string]any)["code"])
	require.NoError(t, rig.in.Close())
	select {
	case err := <-rig.done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("ServeConn did not return at the end of its input")
	}
	assert.Equal(t, []string{"s true", "s true"}, seen, "every call runs as the connection's principal, on a transport that writes encoded content as is")
	assert.Equal(t, 1, StructuredForm(context.Background(), Encoded{Value: 1, JSON: []byte("1")}), "elsewhere, the value")
}

func TestServeConnRefusesAFrameOverItsBound(t *testing.T) {
	rig := startLines(t, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	go func() { _, _ = io.WriteString(rig.in, strings.Repeat("x", MaxConnFrame+1)+"\n") }()
	select {
	case err := <-rig.done:
		require.Error(t, err)
		assert.True(t, errors.Is(err, errFrameTooLarge), "%v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("ServeConn did not end on a frame over its bound")
	}
}

// With every slot taken by a call that never ends and more calls waiting,
// a cancelled ServeStdio still returns once its grace period is over.
func TestServeStdioStopsWithEverySlotTaken(t *testing.T) {
	old := StdioGrace
	StdioGrace = 100 * time.Millisecond
	t.Cleanup(func() { StdioGrace = old })
	srv := server.NewMCPServer("t", "1", server.WithToolCapabilities(false))
	started := make(chan struct{}, 2*stdioConcurrency)
	srv.AddTool(mcp.NewTool("stuck"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	inR, inW := io.Pipe()
	t.Cleanup(func() { _ = inW.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeStdio(ctx, srv, inR, io.Discard, nil) }()
	go func() {
		for i := range stdioConcurrency + 2 {
			if _, err := fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"stuck"}}`+"\n", i); err != nil {
				return
			}
		}
	}()
	for range stdioConcurrency {
		<-started
	}
	time.Sleep(50 * time.Millisecond) // the loop takes the next call and waits for a slot
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not return with every slot taken")
	}
}

// A client's notifications/cancelled reaches the call it names: the call's
// context ends while it runs.
func TestLineServerCancelsTheCallTheClientCancels(t *testing.T) {
	cancelled := make(chan struct{})
	started := make(chan struct{})
	rig := startLines(t, func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(started)
		select {
		case <-ctx.Done():
			close(cancelled)
		case <-time.After(10 * time.Second):
		}
		return mcp.NewToolResultText("done"), nil
	})
	rig.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	rig.read(t)
	rig.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	rig.send(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"x":"slow"}}}`)
	<-started
	rig.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"the user moved on"}}`)
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call's context did not end")
	}
}
