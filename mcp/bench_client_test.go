package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/mcp/transport"
)

// The benchmarks' clients, over stdio and over HTTP (bench_test.go has the
// benchmarks).

// benchCaller makes one tool call and returns once the whole answer is read;
// a protocol error or an error result is an error.
type benchCaller interface {
	call(tool string) error
}

// The benchmark clients speak JSON-RPC themselves: they write the request,
// read the whole response and decode its envelope (id, error, isError),
// or, for an answer identical but for its id to one already decoded and
// found good, compare its bytes (answerCheck), so the figures are the server's
// cost and not a client's decoding of the answer.
type rpcEnvelope struct {
	ID     int64           `json:"id"`
	Error  json.RawMessage `json:"error"`
	Result struct {
		IsError bool `json:"isError"`
	} `json:"result"`
}

func callBody(id int64, tool string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": benchArgs}})
	return b
}

// answerCheck holds the answers already decoded and found good, each but for
// its id, keyed by tool. An answer that equals one of them byte for byte,
// but for the id, is good without decoding: the client's cost stays a
// comparison, however large the answer, and the figures stay the server's.
// Any other answer is decoded whole (checkEnvelope).
type answerCheck struct {
	mu  sync.Mutex
	ans map[string][2][]byte // tool → the bytes before and after the id
}

var goodAnswers = &answerCheck{ans: map[string][2][]byte{}}

// idPart splits raw around its first "id": value.
func idPart(raw []byte, id int64) (head, tail []byte, ok bool) {
	key := fmt.Appendf(nil, `"id":%d`, id)
	i := bytes.Index(raw, key)
	if i < 0 {
		return nil, nil, false
	}
	return raw[:i], raw[i+len(key):], true
}

// check accepts raw when it is an answer to id already known good, or when
// it decodes as a good one (which is then remembered).
func (c *answerCheck) check(raw []byte, id int64, tool string) error {
	head, tail, ok := idPart(raw, id)
	if ok {
		c.mu.Lock()
		known, seen := c.ans[tool]
		c.mu.Unlock()
		if seen && bytes.Equal(head, known[0]) && bytes.Equal(tail, known[1]) {
			return nil
		}
	}
	if err := checkEnvelope(raw, id, tool); err != nil {
		return err
	}
	if ok {
		c.mu.Lock()
		c.ans[tool] = [2][]byte{bytes.Clone(head), bytes.Clone(tail)}
		c.mu.Unlock()
	}
	return nil
}

func checkEnvelope(raw []byte, id int64, tool string) error {
	var env rpcEnvelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return fmt.Errorf("%s: undecodable answer: %w", tool, err)
	}
	switch {
	case env.ID != id:
		return fmt.Errorf("%s: answer to id %d, want %d", tool, env.ID, id)
	case len(env.Error) > 0 && string(env.Error) != "null":
		return fmt.Errorf("%s: %s", tool, env.Error)
	case env.Result.IsError:
		return fmt.Errorf("%s: error result %s", tool, raw)
	}
	return nil
}

// benchStdio speaks to ServeStdio over two pipes, one line per message.
type benchStdio struct {
	w  io.Writer
	r  *bufio.Reader
	id int64
}

func (c *benchStdio) send(body []byte) error {
	_, err := c.w.Write(append(body, '\n'))
	return err
}

func (c *benchStdio) roundTrip(body []byte, id int64, tool string) error {
	if err := c.send(body); err != nil {
		return err
	}
	for {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			return fmt.Errorf("%s: %w", tool, err)
		}
		if bytes.Contains(line, []byte(`"id"`)) {
			return goodAnswers.check(bytes.TrimSuffix(line, []byte("\n")), id, tool)
		}
	}
}

func (c *benchStdio) call(tool string) error {
	c.id++
	return c.roundTrip(callBody(c.id, tool), c.id, tool)
}

func benchStdioClient(b *testing.B, srv *server.MCPServer) benchCaller {
	b.Helper()
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = transport.ServeStdio(ctx, srv, stdinR, stdoutW, nil)
	}()
	c := &benchStdio{w: stdinW, r: bufio.NewReaderSize(stdoutR, 64<<10)}
	b.Cleanup(func() {
		cancel()
		_ = stdinW.Close()
		_ = stdoutW.Close()
		<-done
	})
	c.id++
	require.NoError(b, c.roundTrip(initializeBody(c.id), c.id, "initialize"))
	require.NoError(b, c.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)))
	return c
}

func initializeBody(id int64) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "initialize",
		"params": map[string]any{"protocolVersion": mcp.LATEST_LEGACY_PROTOCOL_VERSION,
			"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bench", "version": "1"}}})
	return b
}

func benchHTTPURL(b *testing.B, srv *server.MCPServer) string {
	b.Helper()
	return loopHTTPWith(b, srv)
}

// benchHTTP posts each message to the streamable HTTP endpoint under one
// MCP session and reads the whole answer (JSON or one SSE event).
type benchHTTP struct {
	url, session string
	hc           *http.Client
	id           atomic.Int64
	buf          []byte // the last answer's bytes, reused by the next (one caller at a time)
}

func (c *benchHTTP) post(body []byte) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := readWholeBody(resp, c.buf)
	if err != nil {
		return nil, nil, err
	}
	c.buf = raw
	if resp.StatusCode/100 != 2 {
		return nil, nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, raw)
	}
	// An SSE answer carries the message on its data: line.
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range bytes.Split(raw, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data:")); ok && bytes.Contains(d, []byte(`"id"`)) {
				raw = bytes.TrimSpace(d)
				break
			}
		}
	}
	return resp, raw, nil
}

// readWholeBody reads a response's whole body into buf, grown to the
// length the response declares when short (a stream's, of unknown length,
// goes to a new buffer that grows as read): the client allocates nothing
// per answer, so the figures are the server's allocations.
func readWholeBody(resp *http.Response, buf []byte) ([]byte, error) {
	if n := resp.ContentLength; n >= 0 && n <= 64<<20 {
		if int64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		raw := buf[:n]
		if _, err := io.ReadFull(resp.Body, raw); err != nil {
			return nil, err
		}
		return raw, nil
	}
	return io.ReadAll(resp.Body)
}

func (c *benchHTTP) call(tool string) error {
	id := c.id.Add(1)
	_, raw, err := c.post(callBody(id, tool))
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	return goodAnswers.check(raw, id, tool)
}

func benchHTTPClient(b *testing.B, url string) benchCaller {
	b.Helper()
	c := &benchHTTP{url: url, hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
	id := c.id.Add(1)
	resp, raw, err := c.post(initializeBody(id))
	require.NoError(b, err)
	require.NoError(b, checkEnvelope(raw, id, "initialize"))
	c.session = resp.Header.Get("Mcp-Session-Id")
	_, _, err = c.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	require.NoError(b, err)
	b.Cleanup(c.hc.CloseIdleConnections)
	return c
}
