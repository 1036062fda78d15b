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
// binds each id to the principal that created it (Principal.ID: a
// static-token client, an OAuth issuer and subject), and caps concurrent
// sessions overall and per principal. A slot is either a live
// Mcp-Session-Id session or one in-flight request that belongs to none
// (every 2026-07-28 request is one); both count against the principal that
// holds them. A GET without a session id never gets a slot: it is refused
// before mcp-go would mint an id nobody can use. A principal at its own cap
// makes room by evicting its own least recently active idle session (no
// request or stream in flight); at the overall cap a newcomer evicts its
// own idle session first, else the least recently active idle session of a
// principal holding more slots than it — never one of a principal holding
// as many or fewer, so one principal opening many sessions recycles only
// its own. Only when nothing may be evicted is a newcomer refused. Idle
// sessions are also expired by mcp-go's idle TTL sweeper, which calls
// Terminate.
type sessionTable struct {
	mu           sync.Mutex
	max, perUser int
	sessions     map[string]*session
	pending      map[string]int // in-flight requests outside a known session, by principal
	logger       *slog.Logger
	now          func() time.Time
	// evict ends an evicted session inside mcp-go too (set by the handler).
	evict func(id string)
	// shared, when set, holds every replica's sessions: a session another
	// replica created is adopted here on its first request.
	shared SharedSessions
	idle   time.Duration
}

// SharedSessions keeps the legacy-era MCP sessions of every replica of
// `serve --http` on one store (the store implements it), so a client's
// session survives its requests landing on another replica.
type SharedSessions interface {
	PutMCPSession(ctx context.Context, id, owner string) error
	MCPSessionOwnedBy(ctx context.Context, id, owner string, idle time.Duration) (bool, error)
	TouchMCPSession(ctx context.Context, id string) error
	DeleteMCPSession(ctx context.Context, id string, idle time.Duration) error
}

// sharedTimeout bounds one call to the shared session table.
const sharedTimeout = 5 * time.Second

// touchEvery is how often a session's use is written to the shared table.
const touchEvery = time.Minute

// session is one live session: its owner (a Principal.ID), when it was
// last active, and how many of its requests (event streams included) are
// in flight.
type session struct {
	owner    string
	active   time.Time
	inflight int
	touched  time.Time // last written to the shared table
}

func newSessionTable(max, perPrincipal int, logger *slog.Logger) *sessionTable {
	return &sessionTable{max: max, perUser: perPrincipal, sessions: map[string]*session{}, pending: map[string]int{}, logger: logger, now: time.Now}
}

// enter admits a request of session id for owner; false when there is no
// such session for that owner.
func (t *sessionTable) enter(id, owner string) bool {
	if !t.adopt(id, owner) {
		return false
	}
	t.mu.Lock()
	s, ok := t.sessions[id]
	if !ok || s.owner != owner {
		t.mu.Unlock()
		return false
	}
	s.inflight++
	s.active = t.now()
	touch := t.shared != nil && s.active.Sub(s.touched) > touchEvery
	if touch {
		s.touched = s.active
	}
	t.mu.Unlock()
	if touch {
		ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
		defer cancel()
		if err := t.shared.TouchMCPSession(ctx, id); err != nil {
			t.logger.Warn("mcp http: could not record a session's use in the store", "err", err)
		}
	}
	return true
}

// adopt consults the shared table, when there is one, for session id of
// owner: a session another replica created becomes known here, and one
// a client ended on another replica (or that expired there) is forgotten
// here too. It returns whether the session is known locally now. When the
// table cannot be read, what this replica knows stands.
func (t *sessionTable) adopt(id, owner string) bool {
	t.mu.Lock()
	_, known := t.sessions[id]
	t.mu.Unlock()
	if t.shared == nil {
		return known
	}
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	owned, err := t.shared.MCPSessionOwnedBy(ctx, id, owner, t.idle)
	if err != nil {
		t.logger.Warn("mcp http: could not read the shared session table; going by this replica's sessions", "err", err)
		return known
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s, known := t.sessions[id]
	switch {
	case !owned && known && s.owner == owner && s.inflight == 0:
		delete(t.sessions, id) // ended elsewhere
		return false
	case !owned:
		return known
	case !known:
		now := t.now()
		t.sessions[id] = &session{owner: owner, active: now, touched: now}
		t.logger.Info("mcp http: took up a session another replica started")
	}
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

// usage is how many slots owner holds (under mu): its sessions and its
// in-flight requests outside them.
func (t *sessionTable) usage() map[string]int {
	u := make(map[string]int, len(t.pending))
	for o, n := range t.pending {
		u[o] += n
	}
	for _, s := range t.sessions {
		u[s.owner]++
	}
	return u
}

// Refusals of reserve.
type refusal int

const (
	admitted refusal = iota
	principalFull
	tableFull
)

// reserve holds a slot for a request of owner outside any session,
// evicting the idle session the rules allow (see sessionTable).
func (t *sessionTable) reserve(owner string) refusal {
	t.mu.Lock()
	u := t.usage()
	pending := 0
	for _, n := range t.pending {
		pending += n
	}
	var victim string
	switch {
	case u[owner] >= t.perUser:
		if victim = t.idlest(func(s *session) bool { return s.owner == owner }); victim == "" {
			t.mu.Unlock()
			if len(t.sessions)+pending >= t.max {
				return tableFull
			}
			return principalFull
		}
	case len(t.sessions)+pending >= t.max:
		if victim = t.idlest(func(s *session) bool { return s.owner == owner }); victim == "" {
			victim = t.idlest(func(s *session) bool { return u[s.owner] > u[owner] })
		}
		if victim == "" {
			t.mu.Unlock()
			return tableFull
		}
	}
	if victim != "" {
		delete(t.sessions, victim)
	}
	t.pending[owner]++
	t.mu.Unlock()
	if victim != "" {
		t.logger.Info("mcp http: session limit reached; evicted the least recently active idle session the rules allow", "max", t.max, "maxPerPrincipal", t.perUser)
		if t.evict != nil {
			t.evict(victim)
		}
	}
	return admitted
}

// idlest is the least recently active idle session that ok accepts ("" for
// none), under mu.
func (t *sessionTable) idlest(ok func(*session) bool) string {
	var victim string
	var oldest time.Time
	for id, s := range t.sessions {
		if s.inflight == 0 && ok(s) && (victim == "" || s.active.Before(oldest)) {
			victim, oldest = id, s.active
		}
	}
	return victim
}

func (t *sessionTable) release(owner string) {
	t.mu.Lock()
	if t.pending[owner]--; t.pending[owner] <= 0 {
		delete(t.pending, owner)
	}
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
		owner := p.ID()
		modern := mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion))
		id := r.Header.Get(server.HeaderKeySessionID)
		switch {
		case modern && (r.Method == http.MethodGet || r.Method == http.MethodDelete):
			next.ServeHTTP(w, r) // mcp-go answers 405: sessions are gone in this era
			return
		case id != "" && !modern:
			if !t.enter(id, owner) {
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
		switch t.reserve(owner) {
		case principalFull:
			t.logger.Warn("mcp http: a principal's session limit reached and every one of its sessions is busy", "principal", p.Subject, "maxPerPrincipal", t.perUser, "remote", r.RemoteAddr)
			w.Header().Set("Retry-After", "5")
			writeRefusal(w, http.StatusTooManyRequests, fmt.Sprintf("you hold %d sessions or requests, the limit of one caller (mcp.http.maxSessionsPerPrincipal), all of them busy; end one (DELETE) or retry shortly", t.perUser))
			return
		case tableFull:
			t.logger.Warn("mcp http: session limit reached and every session is busy", "max", t.max, "remote", r.RemoteAddr)
			w.Header().Set("Retry-After", "5")
			writeRefusal(w, http.StatusServiceUnavailable, fmt.Sprintf("the server is at its limit of %d concurrent sessions (mcp.http.maxSessions), all of them busy; retry shortly", t.max))
			return
		}
		defer t.release(owner)
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
	return &boundSessions{t: t, owner: p.ID(), bound: true}
}

// boundSessions is the per-request view of the table.
type boundSessions struct {
	t     *sessionTable
	owner string
	bound bool
}

var errUnknownSession = errors.New("unknown or expired session; start a new one with initialize")

// Generate mints a random session id owned by the caller.
func (b *boundSessions) Generate() string {
	id := "mcp-session-" + rand.Text()
	now := b.t.now()
	b.t.mu.Lock()
	b.t.sessions[id] = &session{owner: b.owner, active: now, touched: now}
	b.t.mu.Unlock()
	if b.t.shared != nil {
		ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
		defer cancel()
		if err := b.t.shared.PutMCPSession(ctx, id, b.owner); err != nil {
			b.t.logger.Warn("mcp http: could not record a session in the store; it lives on this replica only", "err", err)
		}
	}
	return id
}

// Validate accepts only a live id created by the same caller.
func (b *boundSessions) Validate(id string) (bool, error) {
	if b.bound {
		b.t.adopt(id, b.owner)
	}
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	s, ok := b.t.sessions[id]
	if !ok || (b.bound && s.owner != b.owner) {
		return false, errUnknownSession
	}
	return false, nil
}

// Terminate ends a session; a caller may end only its own.
func (b *boundSessions) Terminate(id string) (bool, error) {
	b.t.mu.Lock()
	s, ok := b.t.sessions[id]
	if !ok {
		b.t.mu.Unlock()
		return false, nil
	}
	if b.bound && s.owner != b.owner {
		b.t.mu.Unlock()
		return true, nil
	}
	delete(b.t.sessions, id)
	b.t.mu.Unlock()
	if b.bound && b.t.shared != nil {
		// The client ended it: every replica forgets it. (An eviction or
		// the idle sweeper of one replica ends it here only.)
		ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
		defer cancel()
		if err := b.t.shared.DeleteMCPSession(ctx, id, b.t.idle); err != nil {
			b.t.logger.Warn("mcp http: could not end a session in the store", "err", err)
		}
	}
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
