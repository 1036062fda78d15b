package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// StdioGrace bounds how long ServeStdio, cancelled or at the end of stdin,
// waits for in-flight requests before it stops anyway. ServeStdio reads it
// once, when it starts.
var StdioGrace = 25 * time.Second

// ServeStdio serves srv over newline-delimited JSON-RPC on stdin/stdout
// until stdin closes or ctx is cancelled. stdout carries protocol frames
// only; the transport's own diagnostics, and mcp-go's, go to logger. On cancellation it
// stops reading new requests, lets the requests already received finish
// (bounded by a grace period), then returns nil. Run one per process:
// mcp-go's stdio session is process-wide.
func ServeStdio(ctx context.Context, srv *server.MCPServer, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	stdio := server.NewStdioServer(srv)
	stdio.SetErrorLogger(slog.NewLogLogger(logger.With("component", "mcp stdio").Handler(), slog.LevelError))

	grace := StdioGrace // read once: the server's goroutines never read the variable
	track := newInflight()
	pr, pw := io.Pipe()
	out := &frameWriter{w: stdout, onFrame: track.response}

	// The listener's context is not ctx: cancelling it would cancel the
	// requests in flight. It ends when the pumped input reaches EOF.
	listenCtx, stopListen := context.WithCancel(WithPrincipal(context.WithoutCancel(ctx), Principal{Subject: "local", Method: "stdio"}))
	defer stopListen()

	draining := make(chan struct{})
	inputDone := make(chan struct{})
	go func() {
		defer close(inputDone)
		pumpInput(stdin, pw, track, draining, grace)
	}()

	listenErr := make(chan error, 1)
	go func() { listenErr <- stdio.Listen(listenCtx, pr, out) }()

	select {
	case err := <-listenErr:
		_ = pw.Close()
		return listenResult(err)
	case <-ctx.Done():
	}
	close(draining)
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-track.idle():
	case <-timer.C:
		logger.Warn(fmt.Sprintf("the-loop mcp: shutdown grace period over with %d request(s) unfinished", track.count()))
	}
	_ = pw.CloseWithError(io.EOF)
	select {
	case err := <-listenErr:
		return listenResult(err)
	case <-time.After(5 * time.Second):
		stopListen()
		return listenResult(<-listenErr)
	}
}

func listenResult(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		return nil
	}
	return fmt.Errorf("mcp stdio: %w", err)
}

// pumpInput copies stdin line by line into the listener, recording each
// request id, until stdin ends or draining starts. Lines that arrive while
// draining are dropped: the client is told nothing because the process is
// about to exit. When stdin ends, the listener's input is held open until
// the requests already read are answered (bounded by grace): mcp-go
// cancels the calls in flight once its input ends, and a client that
// writes its requests and closes stdin waits for the answers.
func pumpInput(stdin io.Reader, pw *io.PipeWriter, track *inflight, draining <-chan struct{}, grace time.Duration) {
	r := bufio.NewReaderSize(stdin, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			select {
			case <-draining:
				return
			default:
			}
			track.request(line)
			if _, werr := pw.Write(line); werr != nil {
				return
			}
		}
		if err != nil {
			timer := time.NewTimer(grace)
			defer timer.Stop()
			select {
			case <-track.idle():
			case <-timer.C:
			case <-draining: // ServeStdio waits for them and closes the input
				return
			}
			_ = pw.CloseWithError(io.EOF)
			return
		}
	}
}

// frameWriter passes bytes through unchanged and reports each complete
// line to onFrame.
type frameWriter struct {
	mu      sync.Mutex
	w       io.Writer
	partial []byte
	onFrame func([]byte)
}

func (f *frameWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.w.Write(p)
	rest := p[:n]
	if len(f.partial) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			f.partial = append(f.partial, rest...)
			return n, err
		}
		f.onFrame(append(f.partial, rest[:i]...))
		f.partial, rest = nil, rest[i+1:]
	}
	// Whole lines are reported from p itself: a response is written in
	// one call, so nothing is copied in the common case.
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		f.onFrame(rest[:i])
		rest = rest[i+1:]
	}
	if len(rest) > 0 {
		f.partial = append([]byte(nil), rest...)
	}
	return n, err
}

// inflight tracks JSON-RPC requests read but not yet answered.
type inflight struct {
	mu      sync.Mutex
	pending map[string]bool
	waiters []chan struct{}
}

func newInflight() *inflight { return &inflight{pending: map[string]bool{}} }

type frameHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func (t *inflight) request(line []byte) {
	var h frameHead
	if json.Unmarshal(line, &h) != nil || h.Method == "" || isNullID(h.ID) {
		return
	}
	t.mu.Lock()
	t.pending[canonicalID(h.ID)] = true
	t.mu.Unlock()
}

func (t *inflight) response(line []byte) {
	id, ok := answerID(line)
	if !ok {
		return
	}
	t.mu.Lock()
	delete(t.pending, canonicalID(id))
	if len(t.pending) == 0 {
		for _, w := range t.waiters {
			close(w)
		}
		t.waiters = nil
	}
	t.mu.Unlock()
}

// answerID returns the id of a frame the server wrote when it answers a
// request (it has a "result" or an "error" and no "method"). It reads the
// frame's top-level keys in order and stops once it knows: the server
// writes the id before the result, so a large result is copied into the
// decoder's buffer at most once and never scanned or decoded.
func answerID(line []byte) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var id json.RawMessage
	answer := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		switch tok {
		case "method":
			return nil, false
		case "id":
			if dec.Decode(&id) != nil {
				return nil, false
			}
		case "result", "error":
			answer = true
			if id != nil {
				return id, !isNullID(id)
			}
			fallthrough
		default:
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil, false
			}
		}
	}
	return id, answer && id != nil && !isNullID(id)
}

func (t *inflight) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.pending)
}

// idle returns a channel closed once no request is pending.
func (t *inflight) idle() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	ch := make(chan struct{})
	if len(t.pending) == 0 {
		close(ch)
		return ch
	}
	t.waiters = append(t.waiters, ch)
	return ch
}

func isNullID(id json.RawMessage) bool {
	s := bytes.TrimSpace(id)
	return len(s) == 0 || string(s) == "null"
}

// canonicalID makes 1, 1.0 and "1" distinct but stable keys.
func canonicalID(id json.RawMessage) string {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return string(id)
	}
	return fmt.Sprintf("%T:%v", v, v)
}
