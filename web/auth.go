package web

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/the-loop/the-loop/internal/envvar"
)

// CookieName is the view's session cookie.
const CookieName = "the_loop_ui"

// DefaultSessionTTL is how long a browser stays signed in.
const DefaultSessionTTL = 12 * time.Hour

// maxSessions bounds the signed-in browsers held; the oldest is dropped
// past it.
const maxSessions = 1024

// Messages the view answers with.
const (
	MsgTokenInURL   = "a token in a URL is refused: URLs are kept in browser history, proxy logs and Referer headers; sign in at /ui/signin, which takes the token once in a form"
	MsgWrongToken   = "that token is not valid; paste the bearer token the server reads from "
	MsgCrossOrigin  = "cross-origin requests are refused; open the view from its own address"
	MsgNoTokenSetUp = "this server has no bearer token configured, so a browser cannot sign in: set "
)

// sessions holds the signed-in browsers: a random id (the cookie's value)
// to its expiry. Ids are stored hashed.
type sessions struct {
	mu   sync.Mutex
	byID map[[sha256.Size]byte]time.Time
	ttl  time.Duration
	now  func() time.Time
}

func newSessions(ttl time.Duration, now func() time.Time) *sessions {
	return &sessions{byID: map[[sha256.Size]byte]time.Time{}, ttl: ttl, now: now}
}

// open starts a session and returns its cookie value.
func (s *sessions) open() (string, time.Time, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", time.Time{}, err
	}
	id := hex.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for k, exp := range s.byID {
		if !exp.After(now) {
			delete(s.byID, k)
		}
	}
	if len(s.byID) >= maxSessions {
		var oldest [sha256.Size]byte
		var at time.Time
		for k, exp := range s.byID {
			if at.IsZero() || exp.Before(at) {
				oldest, at = k, exp
			}
		}
		delete(s.byID, oldest)
	}
	exp := now.Add(s.ttl)
	s.byID[sha256.Sum256([]byte(id))] = exp
	return id, exp, nil
}

// valid reports whether id names a live session.
func (s *sessions) valid(id string) bool {
	if id == "" {
		return false
	}
	k := sha256.Sum256([]byte(id))
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.byID[k]
	if ok && !exp.After(s.now()) {
		delete(s.byID, k)
		return false
	}
	return ok
}

func (s *sessions) close(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, sha256.Sum256([]byte(id)))
}

// tokenCheck compares a presented token with the configured ones (every
// client's static token signs a browser in) in constant time.
type tokenCheck struct {
	sums [][sha256.Size]byte
	set  bool
}

func newTokenCheck(tokens []string) tokenCheck {
	var t tokenCheck
	for _, tok := range tokens {
		if tok != "" {
			t.sums = append(t.sums, sha256.Sum256([]byte(tok)))
		}
	}
	t.set = len(t.sums) > 0
	return t
}

func (t tokenCheck) ok(presented string) bool {
	if !t.set || presented == "" {
		return false
	}
	sum := sha256.Sum256([]byte(presented))
	match := 0
	for _, s := range t.sums {
		match |= subtle.ConstantTimeCompare(sum[:], s[:])
	}
	return match == 1
}

// tokenInQuery reports a query string that carries a credential: a
// parameter whose name looks secret, or any value equal to the token.
func (h *Handler) tokenInQuery(q url.Values) bool {
	for name, vals := range q {
		n := strings.ReplaceAll(strings.ToUpper(name), "-", "_")
		if envvar.LooksSecret(n) || strings.Contains(n, "BEARER") || n == "JWT" {
			return true
		}
		for _, v := range vals {
			if h.token.ok(v) || h.token.ok(strings.TrimPrefix(v, "Bearer ")) {
				return true
			}
		}
	}
	return false
}

// sameOrigin says whether a request comes from the view's own pages: an
// Origin header, when sent, must be the request's own origin or one the
// operator allowed; Sec-Fetch-Site, when sent, must not name another site
// except for a top-level navigation (a link from a ticket), which carries
// no SameSite=Strict cookie and so reaches nothing but the sign-in page.
func (h *Handler) sameOrigin(r *http.Request) bool {
	if origin := r.Header.Get("Origin"); origin != "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		o := strings.ToLower(origin)
		if o != scheme+"://"+strings.ToLower(r.Host) && !h.origins[o] {
			return false
		}
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return true
	}
	if h.origins[strings.ToLower(r.Header.Get("Origin"))] {
		return true
	}
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.Header.Get("Sec-Fetch-Mode") == "navigate"
}

// signedIn reports a request carrying a live session cookie or the bearer
// token in its Authorization header.
func (h *Handler) signedIn(r *http.Request) bool {
	if c, err := r.Cookie(CookieName); err == nil && h.sessions.valid(c.Value) {
		return true
	}
	scheme, rest, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && h.token.ok(strings.TrimSpace(rest))
}

// safeNext keeps a post-sign-in destination inside the view.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || !strings.HasPrefix(u.Path, Prefix) ||
		strings.Contains(next, "\\") || strings.HasPrefix(next, "//") || u.Path == Prefix+"signin" {
		return Prefix + "items"
	}
	return u.RequestURI()
}
