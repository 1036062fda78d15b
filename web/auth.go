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
	"github.com/the-loop/the-loop/internal/lazyre"
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
// to who signed in and until when. Ids are stored hashed.
type sessions struct {
	mu   sync.Mutex
	byID map[[sha256.Size]byte]session
	ttl  time.Duration
	now  func() time.Time
}

// session is one signed-in browser.
type session struct {
	who Principal
	exp time.Time
}

func newSessions(ttl time.Duration, now func() time.Time) *sessions {
	return &sessions{byID: map[[sha256.Size]byte]session{}, ttl: ttl, now: now}
}

// open starts a session of who, ending after the TTL or at until (when
// not zero), whichever comes first, and returns its cookie value.
func (s *sessions) open(who Principal, until time.Time) (string, time.Time, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", time.Time{}, err
	}
	id := hex.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for k, v := range s.byID {
		if !v.exp.After(now) {
			delete(s.byID, k)
		}
	}
	if len(s.byID) >= maxSessions {
		dropOldest(s.byID, func(v session) time.Time { return v.exp })
	}
	exp := now.Add(s.ttl)
	if !until.IsZero() && until.Before(exp) {
		exp = until
	}
	s.byID[sha256.Sum256([]byte(id))] = session{who: who, exp: exp}
	return id, exp, nil
}

// lookup returns who holds the live session id.
func (s *sessions) lookup(id string) (Principal, bool) {
	if id == "" {
		return Principal{}, false
	}
	k := sha256.Sum256([]byte(id))
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.byID[k]
	if ok && !v.exp.After(s.now()) {
		delete(s.byID, k)
		return Principal{}, false
	}
	return v.who, ok
}

func (s *sessions) close(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, sha256.Sum256([]byte(id)))
}

// tokenCheck compares a presented token with the configured ones (every
// client's static token signs a browser in) in constant time.
type tokenCheck struct {
	sums  [][sha256.Size]byte
	names []string
	set   bool
}

// newTokenCheck holds tokens; names[i] names the client of tokens[i]
// ("bearer", the one unnamed token, where names has no entry).
func newTokenCheck(tokens, names []string) tokenCheck {
	var t tokenCheck
	for i, tok := range tokens {
		if tok != "" {
			name := "bearer"
			if i < len(names) && names[i] != "" {
				name = names[i]
			}
			t.sums = append(t.sums, sha256.Sum256([]byte(tok)))
			t.names = append(t.names, name)
		}
	}
	t.set = len(t.sums) > 0
	return t
}

func (t tokenCheck) ok(presented string) bool {
	_, ok := t.client(presented)
	return ok
}

// client is the principal whose token presented is. Every token is
// compared, whatever matches.
func (t tokenCheck) client(presented string) (Principal, bool) {
	if !t.set || presented == "" {
		return Principal{}, false
	}
	sum := sha256.Sum256([]byte(presented))
	found := -1
	for i, s := range t.sums {
		if subtle.ConstantTimeCompare(sum[:], s[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return Principal{}, false
	}
	return Principal{Subject: t.names[found], Method: "bearer"}, true
}

// tokenInQuery reports a query string that carries a credential: a
// parameter whose name looks secret, any value equal to a static token,
// or any value shaped like a JSON Web Token (an OAuth access or ID token)
// — but the code and state the issuer sends to the callback.
func (h *Handler) tokenInQuery(r *http.Request) bool {
	for name, vals := range r.URL.Query() {
		n := strings.ReplaceAll(strings.ToUpper(name), "-", "_")
		if envvar.LooksSecret(n) || strings.Contains(n, "BEARER") || n == "JWT" {
			return true
		}
		issuers := r.URL.Path == CallbackPath && (name == "code" || name == "state")
		for _, v := range vals {
			v = strings.TrimPrefix(v, "Bearer ")
			if h.token.ok(v) || (!issuers && jwtShape().MatchString(v)) {
				return true
			}
		}
	}
	return false
}

// jwtShape is a compact JWS or JWE: a base64url JSON header ("eyJ") and
// two or four more dot-separated base64url parts.
var jwtShape = lazyre.New(`^eyJ[A-Za-z0-9_-]*(\.[A-Za-z0-9_-]*){2}((\.[A-Za-z0-9_-]*){2})?$`)

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

// signedIn reports a request carrying a live session cookie or a bearer
// token in its Authorization header.
func (h *Handler) signedIn(r *http.Request) bool {
	_, ok := h.principal(r)
	return ok
}

// principal is who the request is signed in as: the session its cookie
// names, else the bearer token of its Authorization header (a static
// token, or under OAuth an access token the MCP endpoint would take).
func (h *Handler) principal(r *http.Request) (Principal, bool) {
	if c, err := r.Cookie(CookieName); err == nil {
		if who, ok := h.sessions.lookup(c.Value); ok {
			return who, true
		}
	}
	scheme, rest, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return Principal{}, false
	}
	raw := strings.TrimSpace(rest)
	if who, ok := h.token.client(raw); ok {
		return who, true
	}
	if h.oauth != nil && raw != "" {
		if who, _, err := h.oauth.o.Verify(r.Context(), raw); err == nil {
			return who, true
		}
	}
	return Principal{}, false
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
