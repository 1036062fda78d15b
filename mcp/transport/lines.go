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
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// lineServer answers newline-delimited JSON-RPC frames with srv: the
// serving loop ServeStdio and ServeConn share. Notifications are handled
// in the order they arrive, before the next frame is read; requests run
// concurrently, at most cap(slots) at once, and are answered as they
// finish, one whole frame per write.
type lineServer struct {
	srv     *server.MCPServer
	logger  *slog.Logger
	session *lineSession

	wmu sync.Mutex
	out io.Writer

	slots   chan struct{}
	running sync.WaitGroup
	pending atomic.Int64
	// quit, once closed, stops a request waiting for a slot: it is
	// dropped, as the server is going away.
	quit <-chan struct{}
}

// lineSessions numbers the sessions of this process: one srv may serve
// several connections at once.
var lineSessions atomic.Int64

func newLineServer(srv *server.MCPServer, out io.Writer, concurrency int, quit <-chan struct{}, logger *slog.Logger, kind string) *lineServer {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &lineServer{
		srv:     srv,
		logger:  logger,
		out:     out,
		slots:   make(chan struct{}, concurrency),
		quit:    quit,
		session: newLineSession(fmt.Sprintf("%s-%d", kind, lineSessions.Add(1))),
	}
}

// open registers the session with srv and starts writing its
// notifications; it returns the context requests run under and the
// function that ends the session.
func (s *lineServer) open(ctx context.Context) (context.Context, func(), error) {
	if err := s.srv.RegisterSession(ctx, s.session); err != nil {
		return nil, nil, fmt.Errorf("register session %s: %w", s.session.id, err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case n := <-s.session.notifications:
				s.write(n)
			case <-stop:
				return
			}
		}
	}()
	ctx = context.WithValue(ctx, writesEncodedKey{}, true)
	return s.srv.WithContext(ctx, s.session), func() {
		s.srv.UnregisterSession(ctx, s.session.id)
		close(stop)
		<-done
	}, nil
}

// frameHead is what dispatch reads of a frame before handing it to srv.
type frameHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// dispatch handles one frame under ctx: a request on its own goroutine
// (waiting for a slot, unless quit closes first), anything else at once.
func (s *lineServer) dispatch(ctx context.Context, line []byte) {
	var head frameHead
	if json.Unmarshal(line, &head) != nil {
		s.answer(ctx, nil, line) // srv answers with a parse error
		return
	}
	if head.Method == "" && (head.Result != nil || head.Error != nil) {
		// A response: this server sends the client no requests.
		s.logger.Debug("the-loop mcp: dropped a response to no request", "id", string(head.ID))
		return
	}
	if isNullID(head.ID) {
		s.answer(ctx, nil, line) // a notification: no answer
		return
	}
	var id any
	_ = json.Unmarshal(head.ID, &id)
	select {
	case s.slots <- struct{}{}:
	case <-s.quit:
		s.logger.Debug("the-loop mcp: dropped a request read while stopping", "id", string(head.ID))
		return
	}
	s.running.Add(1)
	s.pending.Add(1)
	go func() {
		defer func() { s.pending.Add(-1); s.running.Done(); <-s.slots }()
		s.answer(ctx, id, line)
	}()
}

// answer runs srv on one frame and writes its answer, if any. A handler
// that panics is answered with an internal error carrying the request's id.
func (s *lineServer) answer(ctx context.Context, id any, frame []byte) {
	var resp mcp.JSONRPCMessage
	func() {
		defer func() {
			if r := recover(); r != nil {
				s.logger.Error("the-loop mcp: a request handler panicked", "panic", fmt.Sprint(r))
				if id != nil {
					resp = mcp.NewJSONRPCError(mcp.NewRequestId(id), mcp.INTERNAL_ERROR, fmt.Sprintf("internal panic: %v", r), nil)
				}
			}
		}()
		resp = s.srv.HandleMessage(ctx, frame)
	}()
	if resp != nil {
		s.write(resp)
	}
}

// write sends one message as one line.
func (s *lineServer) write(msg mcp.JSONRPCMessage) {
	b, err := encodeMessage(msg)
	if err != nil {
		s.logger.Warn("the-loop mcp: encode an answer", "err", err)
		return
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := s.out.Write(append(b, '\n')); err != nil {
		s.logger.Debug("the-loop mcp: write an answer", "err", err)
	}
}

// settle waits until no request is running, at most grace; false when
// some still are.
func (s *lineServer) settle(grace time.Duration) bool {
	idle := make(chan struct{})
	go func() { s.running.Wait(); close(idle) }()
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-idle:
		return true
	case <-timer.C:
		return false
	}
}

// readFrames reads r line by line onto the returned channel, blank lines
// dropped, each at most max bytes (0: no bound), until r ends or fails or
// stop closes. The channel closes then; *err holds why, nil at the end of
// input.
func readFrames(r io.Reader, max int, stop <-chan struct{}) (<-chan []byte, *error) {
	frames := make(chan []byte)
	var readErr error
	go func() {
		defer close(frames)
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, err := readLine(br, max)
			if len(bytes.TrimSpace(line)) > 0 {
				select {
				case frames <- line:
				case <-stop:
					return
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					readErr = err
				}
				return
			}
		}
	}()
	return frames, &readErr
}

// errFrameTooLarge is the error for a frame longer than its bound.
var errFrameTooLarge = errors.New("a frame larger than its bound")

// readLine reads one line without its end, at most max bytes (0: no bound).
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			return line, err
		}
		line = append(line, chunk...)
		if max > 0 && len(line) > max {
			return nil, fmt.Errorf("%w (%d bytes)", errFrameTooLarge, max)
		}
		if !isPrefix {
			return line, nil
		}
	}
}

// isNullID reports whether a frame's id is absent or null.
func isNullID(id json.RawMessage) bool {
	s := bytes.TrimSpace(id)
	return len(s) == 0 || string(s) == "null"
}

// lineSession is the session of one line connection: it carries the
// server's notifications to the client and remembers what the client
// said of itself.
type lineSession struct {
	id            string
	notifications chan mcp.JSONRPCNotification
	initialized   atomic.Bool

	mu           sync.Mutex
	clientInfo   mcp.Implementation
	capabilities mcp.ClientCapabilities
	logLevel     mcp.LoggingLevel
}

func newLineSession(id string) *lineSession {
	return &lineSession{id: id, notifications: make(chan mcp.JSONRPCNotification, 64), logLevel: mcp.LoggingLevelError}
}

// SessionID names the session.
func (s *lineSession) SessionID() string { return s.id }

// NotificationChannel is where the server puts notifications for the client.
func (s *lineSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return s.notifications
}

// Initialize marks the session initialized.
func (s *lineSession) Initialize() { s.initialized.Store(true) }

// Initialized reports whether the client has initialized the session.
func (s *lineSession) Initialized() bool { return s.initialized.Load() }

// GetClientInfo returns what the client said of itself.
func (s *lineSession) GetClientInfo() mcp.Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientInfo
}

// SetClientInfo records what the client said of itself.
func (s *lineSession) SetClientInfo(info mcp.Implementation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clientInfo = info
}

// GetClientCapabilities returns the client's capabilities.
func (s *lineSession) GetClientCapabilities() mcp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.capabilities
}

// SetClientCapabilities records the client's capabilities.
func (s *lineSession) SetClientCapabilities(c mcp.ClientCapabilities) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.capabilities = c
}

// SetLogLevel records the lowest level of log message the client wants.
func (s *lineSession) SetLogLevel(level mcp.LoggingLevel) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logLevel = level
}

// GetLogLevel returns the lowest level of log message the client wants.
func (s *lineSession) GetLogLevel() mcp.LoggingLevel {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logLevel
}

var (
	_ server.SessionWithClientInfo = (*lineSession)(nil)
	_ server.SessionWithLogging    = (*lineSession)(nil)
)

// finish waits for the running requests, at most grace, and says so in the
// log when some are still running after it; why names what ended the
// session.
func (s *lineServer) finish(grace time.Duration, why string) {
	if !s.settle(grace) {
		s.logger.Warn(fmt.Sprintf("the-loop mcp: %s: grace period over with %d request(s) unfinished", why, s.pending.Load()))
	}
}
