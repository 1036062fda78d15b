package transport

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// sessionTable tracks legacy-era (2025-11-25 and earlier) MCP sessions,
// binds each id to the principal that created it, and caps concurrent
// sessions. A slot is either a live Mcp-Session-Id session or one in-flight
// request that belongs to none (every 2026-07-28 request is one). A GET
// without a session id never gets a slot: it is refused before mcp-go
// would mint an id nobody can use. At the cap, the least recently active
// idle session (no request or stream in flight) is evicted to make room;
// only when every session is busy is a newcomer refused with 503. Idle
// sessions are also expired by mcp-go's idle TTL sweeper, which calls
// Terminate.
type sessionTable struct {
	mu       sync.Mutex
	max      int
	sessions map[string]*session
	pending  int // in-flight requests outside a known session
	logger   *slog.Logger
	now      func() time.Time
	// evict ends an evicted session inside mcp-go too (set by the handler).
	evict func(id string)
}

// session is one live session: its owner, when it was last active, and how
// many of its requests (event streams included) are in flight.
type session struct {
	subject  string
	active   time.Time
	inflight int
}

func newSessionTable(max int, logger *slog.Logger) *sessionTable {
	return &sessionTable{max: max, sessions: map[string]*session{}, logger: logger, now: time.Now}
}

// enter admits a request of session id for subject; false when there is no
// such session for that subject.
func (t *sessionTable) enter(id, subject string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.sessions[id]
	if !ok || s.subject != subject {
		return false
	}
	s.inflight++
	s.active = t.now()
	return true
}

// leave ends a request entered with enter.
func (t *sessionTable) leave(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.sessions[id]; ok {
		s.inflight--
		s.active = t.now()
	}
}

// reserve holds a slot for a request outside any session, evicting the
// least recently active idle session when the table is full. It returns
// false when every slot is busy.
func (t *sessionTable) reserve() bool {
	t.mu.Lock()
	var victim string
	if len(t.sessions)+t.pending >= t.max {
		var oldest time.Time
		for id, s := range t.sessions {
			if s.inflight == 0 && (victim == "" || s.active.Before(oldest)) {
				victim, oldest = id, s.active
			}
		}
		if victim == "" {
			t.mu.Unlock()
			return false
		}
		delete(t.sessions, victim)
	}
	t.pending++
	t.mu.Unlock()
	if victim != "" {
		t.logger.Info("mcp http: session limit reached; evicted the least recently active idle session", "max", t.max)
		if t.evict != nil {
			t.evict(victim)
		}
	}
	return true
}

func (t *sessionTable) release() {
	t.mu.Lock()
	t.pending--
	t.mu.Unlock()
}

func (t *sessionTable) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.sessions)
}

// middleware admits a request that belongs to a known session of the same
// caller (404 for any other id), refuses a legacy GET or DELETE without a
// session id (400), and otherwise holds a slot for the request's lifetime.
func (t *sessionTable) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := PrincipalFromContext(r.Context())
		modern := mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion))
		id := r.Header.Get(server.HeaderKeySessionID)
		switch {
		case modern && (r.Method == http.MethodGet || r.Method == http.MethodDelete):
			next.ServeHTTP(w, r) // mcp-go answers 405: sessions are gone in this era
			return
		case id != "" && !modern:
			if !t.enter(id, p.Subject) {
				writeRefusal(w, http.StatusNotFound, errUnknownSession.Error())
				return
			}
			defer t.leave(id)
			next.ServeHTTP(w, r)
			return
		case r.Method == http.MethodGet || r.Method == http.MethodDelete:
			writeRefusal(w, http.StatusBadRequest, "send the Mcp-Session-Id header that initialize returned; a "+r.Method+" without a session has nothing to act on")
			return
		}
		if !t.reserve() {
			t.logger.Warn("mcp http: session limit reached and every session is busy", "max", t.max, "remote", r.RemoteAddr)
			w.Header().Set("Retry-After", "5")
			writeRefusal(w, http.StatusServiceUnavailable, fmt.Sprintf("the server is at its limit of %d concurrent sessions (mcp.http.maxSessions), all of them busy; retry shortly", t.max))
			return
		}
		defer t.release()
		next.ServeHTTP(w, r)
	})
}

// evictKey marks the internal request that ends an evicted session in
// mcp-go: the resolver hands it an unbound manager.
type evictKey struct{}

// ResolveSessionIdManager implements server.SessionIdManagerResolver: the
// manager it returns is bound to the request's principal. A nil request
// (mcp-go's idle sweeper, shutdown) or an eviction gets an unbound manager.
func (t *sessionTable) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	if r == nil || r.Context().Value(evictKey{}) != nil {
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
	b.t.sessions[id] = &session{subject: b.subject, active: b.t.now()}
	b.t.mu.Unlock()
	return id
}

// Validate accepts only a live id created by the same caller.
func (b *boundSessions) Validate(id string) (bool, error) {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	s, ok := b.t.sessions[id]
	if !ok || (b.bound && s.subject != b.subject) {
		return false, errUnknownSession
	}
	return false, nil
}

// Terminate ends a session; a caller may end only its own.
func (b *boundSessions) Terminate(id string) (bool, error) {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	s, ok := b.t.sessions[id]
	if !ok {
		return false, nil
	}
	if b.bound && s.subject != b.subject {
		return true, nil
	}
	delete(b.t.sessions, id)
	return false, nil
}

// evictInto returns the function that ends an evicted session inside
// mcp-go, by the one public path that cleans up all of its per-session
// state: a DELETE for the id, marked so the resolver lets it through.
func evictInto(h http.Handler) func(id string) {
	return func(id string) {
		ctx := context.WithValue(context.Background(), evictKey{}, true)
		req, err := http.NewRequestWithContext(ctx, http.MethodDelete, EndpointPath, nil)
		if err != nil {
			return
		}
		req.Host = "localhost"
		req.Header.Set(server.HeaderKeySessionID, id)
		req.Header.Set(mcp.HeaderProtocolVersion, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
		h.ServeHTTP(discardResponse{header: http.Header{}}, req)
	}
}

// discardResponse is a ResponseWriter that keeps nothing.
type discardResponse struct{ header http.Header }

func (d discardResponse) Header() http.Header         { return d.header }
func (d discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (d discardResponse) WriteHeader(int)             {}
