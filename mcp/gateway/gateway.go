// Package gateway is the poller's end of a confined session's socket. A
// session holds no signing key, no tracker token and no store handle: its
// `the-loop serve --work-item` (and every `the-loop` command it runs)
// forwards over a Unix socket of its own to the poller, which checks the
// capability minted for that session and serves the item's confined tools
// there — so the poller evaluates, signs every receipt and writes the
// store. The capability is scoped to one item, its pull request if any, and
// the node the session was launched for, and is revoked when the session
// ends.
package gateway

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/the-loop/the-loop/agents/sessions"
)

// Hello is the first line a client sends: Hello, a space, the capability.
const Hello = "THE-LOOP-SESSION"

// handshakeTimeout bounds the wait for a client's hello.
const handshakeTimeout = 5 * time.Second

// Scope is what one session's capability allows (sessions.Scope).
type Scope = sessions.Scope

// Servers builds the confined MCP server of one scope.
type Servers func(Scope) (*server.MCPServer, error)

// Serve serves an MCP server over one connection until it closes; the
// caller is the session named by its scope.
type Serve func(ctx context.Context, srv *server.MCPServer, conn net.Conn, scope Scope) error

// Gateway hosts the sockets of the live sessions.
type Gateway struct {
	servers Servers
	serve   Serve
	log     *slog.Logger

	mu       sync.Mutex
	sessions map[string]*entry
}

type entry struct {
	scope  Scope
	cap    []byte
	ln     *net.UnixListener
	path   string
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]bool
}

// New returns a gateway building each session's server with servers and
// serving connections with serve.
func New(servers Servers, serve Serve, log *slog.Logger) *Gateway {
	if log == nil {
		log = slog.Default()
	}
	return &Gateway{servers: servers, serve: serve, log: log, sessions: map[string]*entry{}}
}

// Open mints a capability for scope and listens on socket for its session.
// The socket is created anew (mode 0666: the directory holding it is the
// session's own; the capability is what authenticates).
func (g *Gateway) Open(ctx context.Context, socket string, scope Scope) (string, error) {
	if scope.Session == "" || scope.WorkItem == "" || scope.Node == "" {
		return "", errors.New("gateway: a session, its work item and its node are required")
	}
	srv, err := g.servers(scope)
	if err != nil {
		return "", fmt.Errorf("gateway: the server of %s: %w", scope.Session, err)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("gateway: mint a capability: %w", err)
	}
	capability := hex.EncodeToString(raw[:])
	_ = os.Remove(socket)
	addr, done, err := shortPath(socket)
	if err != nil {
		return "", fmt.Errorf("gateway: listen for %s: %w", scope.Session, err)
	}
	ln, err := net.Listen("unix", addr)
	done()
	if err != nil {
		return "", fmt.Errorf("gateway: listen for %s: %w", scope.Session, err)
	}
	if err := os.Chmod(socket, 0o666); err != nil {
		_ = ln.Close()
		return "", fmt.Errorf("gateway: %w", err)
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(false) // its path is the descriptor's; Close removes the socket
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	e := &entry{scope: scope, cap: []byte(capability), ln: ul, path: socket, cancel: cancel, conns: map[net.Conn]bool{}}
	g.mu.Lock()
	if old := g.sessions[scope.Session]; old != nil {
		g.mu.Unlock()
		cancel()
		_ = ln.Close()
		return "", fmt.Errorf("gateway: %s already has a socket", scope.Session)
	}
	g.sessions[scope.Session] = e
	g.mu.Unlock()
	e.wg.Add(1)
	go g.accept(ctx, e, srv)
	return capability, nil
}

// Close revokes a session's capability: its socket is closed and removed,
// and every connection on it ends.
func (g *Gateway) Close(session string) {
	g.mu.Lock()
	e := g.sessions[session]
	delete(g.sessions, session)
	g.mu.Unlock()
	if e == nil {
		return
	}
	e.cancel()
	_ = e.ln.Close()
	e.mu.Lock()
	for c := range e.conns {
		_ = c.Close()
	}
	e.mu.Unlock()
	e.wg.Wait()
	_ = os.Remove(e.path)
}

// Shutdown revokes every session's capability.
func (g *Gateway) Shutdown() {
	g.mu.Lock()
	ids := make([]string, 0, len(g.sessions))
	for id := range g.sessions {
		ids = append(ids, id)
	}
	g.mu.Unlock()
	for _, id := range ids {
		g.Close(id)
	}
}

func (g *Gateway) accept(ctx context.Context, e *entry, srv *server.MCPServer) {
	defer e.wg.Done()
	for {
		conn, err := e.ln.Accept()
		if err != nil {
			return
		}
		e.mu.Lock()
		if ctx.Err() != nil {
			e.mu.Unlock()
			_ = conn.Close()
			return
		}
		e.conns[conn] = true
		e.wg.Add(1)
		e.mu.Unlock()
		go func() {
			defer e.wg.Done()
			defer func() {
				e.mu.Lock()
				delete(e.conns, conn)
				e.mu.Unlock()
				_ = conn.Close()
			}()
			g.handle(ctx, e, srv, conn)
		}()
	}
}

// handle checks a connection's hello and serves it.
func (g *Gateway) handle(ctx context.Context, e *entry, srv *server.MCPServer, conn net.Conn) {
	_ = conn.SetReadDeadline(time.Now().Add(handshakeTimeout))
	br := bufio.NewReaderSize(conn, 256)
	line, err := readLine(br, 200)
	if err != nil {
		g.refuse(conn, e, "no hello within "+handshakeTimeout.String())
		return
	}
	word, capability, _ := strings.Cut(line, " ")
	if word != Hello || subtle.ConstantTimeCompare([]byte(capability), e.cap) != 1 {
		g.refuse(conn, e, "the capability is not this session's")
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	if _, err := conn.Write([]byte("ok\n")); err != nil {
		return
	}
	if err := g.serve(ctx, srv, bufferedConn{Conn: conn, r: br}, e.scope); err != nil && ctx.Err() == nil {
		g.log.Debug("session connection ended", "session", e.scope.Session, "err", err)
	}
}

func (g *Gateway) refuse(conn net.Conn, e *entry, why string) {
	g.log.Warn("refused a connection to a session's socket", "session", e.scope.Session, "workItem", e.scope.WorkItem, "reason", why)
	_, _ = conn.Write([]byte("refused: " + why + "\n"))
}

func readLine(br *bufio.Reader, max int) (string, error) {
	var b []byte
	for len(b) <= max {
		c, err := br.ReadByte()
		if err != nil {
			return "", err
		}
		if c == '\n' {
			return strings.TrimSuffix(string(b), "\r"), nil
		}
		b = append(b, c)
	}
	return "", errors.New("hello too long")
}

// bufferedConn reads what the hello's reader already buffered first.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
