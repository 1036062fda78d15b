package mcp

import (
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/server"
)

// sessionTable tracks legacy-era (2025-11-25 and earlier) MCP sessions,
// binds each id to the principal that created it, and caps concurrent
// sessions. A "session" is either a live Mcp-Session-Id session or a single
// in-flight request that belongs to none (every 2026-07-28 request is one).
// Idle sessions are expired by mcp-go's session idle TTL sweeper, which
// calls Terminate.
type sessionTable struct {
	mu       sync.Mutex
	max      int
	sessions map[string]string // id -> principal subject
	pending  int               // in-flight requests outside a known session
	logger   *slog.Logger
}

func newSessionTable(max int, logger *slog.Logger) *sessionTable {
	return &sessionTable{max: max, sessions: map[string]string{}, logger: logger}
}

func (t *sessionTable) tryReserve() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.sessions)+t.pending >= t.max {
		return false
	}
	t.pending++
	return true
}

func (t *sessionTable) release() {
	t.mu.Lock()
	t.pending--
	t.mu.Unlock()
}

func (t *sessionTable) known(id, subject string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	owner, ok := t.sessions[id]
	return ok && owner == subject
}

func (t *sessionTable) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.sessions)
}

// middleware admits a request that belongs to a known session of the same
// caller, and otherwise holds a slot for the request's lifetime, answering
// 503 when every slot is taken.
func (t *sessionTable) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := PrincipalFromContext(r.Context())
		if id := r.Header.Get(server.HeaderKeySessionID); id != "" && t.known(id, p.Subject) {
			next.ServeHTTP(w, r)
			return
		}
		if !t.tryReserve() {
			t.logger.Warn("mcp http: session limit reached", "max", t.max, "remote", r.RemoteAddr)
			w.Header().Set("Retry-After", "5")
			writeRefusal(w, http.StatusServiceUnavailable, fmt.Sprintf("the server is at its limit of %d concurrent sessions (mcp.http.maxSessions); close an idle session or retry shortly", t.max))
			return
		}
		defer t.release()
		next.ServeHTTP(w, r)
	})
}

// ResolveSessionIdManager implements server.SessionIdManagerResolver: the
// manager it returns is bound to the request's principal. A nil request
// (mcp-go's idle sweeper, shutdown) gets an unbound manager.
func (t *sessionTable) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	if r == nil {
		return &boundSessions{t: t}
	}
	p, _ := PrincipalFromContext(r.Context())
	return &boundSessions{t: t, subject: p.Subject, bound: true}
}

// boundSessions is the per-request view of the table.
type boundSessions struct {
	t       *sessionTable
	subject string
	bound   bool
}

var errUnknownSession = errors.New("unknown or expired session; start a new one with initialize")

// Generate mints a random session id owned by the caller.
func (b *boundSessions) Generate() string {
	id := "mcp-session-" + rand.Text()
	b.t.mu.Lock()
	b.t.sessions[id] = b.subject
	b.t.mu.Unlock()
	return id
}

// Validate accepts only a live id created by the same caller.
func (b *boundSessions) Validate(id string) (bool, error) {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	owner, ok := b.t.sessions[id]
	if !ok || (b.bound && owner != b.subject) {
		return false, errUnknownSession
	}
	return false, nil
}

// Terminate ends a session; a caller may end only its own.
func (b *boundSessions) Terminate(id string) (bool, error) {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	owner, ok := b.t.sessions[id]
	if !ok {
		return false, nil
	}
	if b.bound && owner != b.subject {
		return true, nil
	}
	delete(b.t.sessions, id)
	return false, nil
}
