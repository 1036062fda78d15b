package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/syncbuf"
	"github.com/the-loop/the-loop/mcp/transport"
	"github.com/the-loop/the-loop/web/oauthtest"
)

// oauthRig is the view served on a loopback port, signing browsers in
// through a fake issuer, with the MCP endpoint's own access-token check.
type oauthRig struct {
	t      *testing.T
	is     *oauthtest.Issuer
	view   *httptest.Server
	h      *Handler
	client *http.Client
	logs   *syncBuffer
	mu     sync.Mutex
	now    time.Time
}

// syncBuffer is a log or stderr several goroutines write and the test reads.
type syncBuffer = syncbuf.Buffer

const oauthSecret = "view-client-secret-0123456789"

// newOAuthRig starts the issuer and the view; edit changes the view's
// options before it is built.
func newOAuthRig(t *testing.T, edit ...func(*Options, *OAuthOptions)) *oauthRig {
	t.Helper()
	rig := &oauthRig{t: t, is: oauthtest.New(t), logs: &syncBuffer{}, now: time.Now()}
	var inner http.Handler
	rig.view = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { inner.ServeHTTP(w, r) }))
	t.Cleanup(rig.view.Close)
	resource := rig.view.URL + "/mcp"
	rig.is.Set(func(is *oauthtest.Issuer) {
		is.ClientSecret = oauthSecret
		is.RedirectURI = rig.view.URL + CallbackPath
		is.Resource = resource
		is.Scopes = []string{"loop:use", "openid"}
	})
	ctx := context.Background()
	verifier, err := transport.NewAccessTokenVerifier(ctx, transport.OAuthOptions{Issuer: rig.is.URL, ResourceURL: resource, Scopes: []string{"loop:use"}})
	require.NoError(t, err)
	oo := OAuthOptions{Issuer: rig.is.URL, ClientID: "the-loop-ui", ClientSecret: oauthSecret, ResourceURL: resource, Scopes: []string{"loop:use"},
		Verify: func(ctx context.Context, raw string) (Principal, time.Time, error) {
			p, exp, err := verifier.Verify(ctx, raw)
			return Principal{Subject: p.Subject, Method: p.Method, Issuer: p.Issuer}, exp, err
		}}
	o := Options{Backend: &fakeBackend{board: boardOf(2, "an item")}, Tokens: []string{testToken}, Logger: slog.New(slog.NewTextHandler(rig.logs, nil)),
		Now: rig.clock}
	for _, e := range edit {
		e(&o, &oo)
	}
	a, err := NewOAuth(ctx, oo)
	require.NoError(t, err)
	o.OAuth = a
	rig.h, err = New(o)
	require.NoError(t, err)
	inner = rig.h
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	rig.client = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return rig
}

func (r *oauthRig) clock() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.now
}

func (r *oauthRig) advance(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.now = r.now.Add(d)
}

// get requests target (absolute, or a path of the view) without following.
func (r *oauthRig) get(target string) (*http.Response, string) {
	r.t.Helper()
	if strings.HasPrefix(target, "/") {
		target = r.view.URL + target
	}
	resp, err := r.client.Get(target)
	require.NoError(r.t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(r.t, err)
	return resp, string(body)
}

// toIssuer opens target in the view and follows it to the issuer's
// authorization endpoint; it returns that URL.
func (r *oauthRig) toIssuer(target string) *url.URL {
	r.t.Helper()
	resp, _ := r.get(target)
	if resp.StatusCode == http.StatusSeeOther && strings.HasPrefix(resp.Header.Get("Location"), "/ui/signin") {
		resp, _ = r.get(resp.Header.Get("Location"))
	}
	require.Equal(r.t, http.StatusSeeOther, resp.StatusCode)
	u, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(r.t, err)
	require.Equal(r.t, r.is.URL+"/authorize", u.Scheme+"://"+u.Host+u.Path, "sent to the issuer's authorization endpoint")
	return u
}

// callbackURL is where the issuer sends the browser back (not followed).
func (r *oauthRig) callbackURL(authorize *url.URL) *url.URL {
	r.t.Helper()
	resp, _ := r.get(authorize.String())
	require.Equal(r.t, http.StatusFound, resp.StatusCode)
	u, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(r.t, err)
	require.Equal(r.t, CallbackPath, u.Path)
	return u
}

func (r *oauthRig) sessionCookie(resp *http.Response) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == CookieName && c.Value != "" {
			return c
		}
	}
	return nil
}

// TestOAuthSignInThroughTheIssuer: not signed in, the items page sends
// the browser to the issuer with the code flow, PKCE S256, state, nonce
// and the resource; the callback exchanges the code with the client's
// secret in the Authorization header, checks both tokens and sets the
// same session cookie as the token form, bound to the OAuth principal and
// ending with the access token.
func TestOAuthSignInThroughTheIssuer(t *testing.T) {
	rig := newOAuthRig(t)
	rig.is.Set(func(is *oauthtest.Issuer) { is.AccessTTL = 2 * time.Minute })

	resp, _ := rig.get("/ui/items")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, "/ui/signin?next=%2Fui%2Fitems", resp.Header.Get("Location"))
	auth := rig.toIssuer("/ui/signin?next=%2Fui%2Fitems")
	q := auth.Query()
	assert.Equal(t, "code", q.Get("response_type"))
	assert.Equal(t, "the-loop-ui", q.Get("client_id"))
	assert.Equal(t, rig.view.URL+CallbackPath, q.Get("redirect_uri"))
	assert.Equal(t, "S256", q.Get("code_challenge_method"))
	assert.Len(t, q.Get("code_challenge"), 43)
	assert.Len(t, q.Get("state"), 43)
	assert.Len(t, q.Get("nonce"), 43)
	assert.Equal(t, "openid loop:use", q.Get("scope"))
	assert.Equal(t, rig.view.URL+"/mcp", q.Get("resource"))
	assert.NotContains(t, auth.String(), oauthSecret, "no secret in the URL the view produces")
	assert.NotContains(t, auth.RawQuery, "token")

	cb := rig.callbackURL(auth)
	resp, body := rig.get(cb.String())
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Equal(t, "no-referrer", resp.Header.Get("Referrer-Policy"))
	assert.Contains(t, body, `<meta http-equiv="refresh" content="0; url=/ui/items">`, "loads the page it was asked for from its own origin")
	assert.Contains(t, body, "Signed in as alice (OAuth, "+rig.is.URL+")")
	c := rig.sessionCookie(resp)
	require.NotNil(t, c, "the session cookie is set")
	assert.True(t, c.HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, c.SameSite)
	assert.Equal(t, "/ui/", c.Path)
	assert.InDelta(t, 120, c.MaxAge, 2, "the session ends with the access token, before the 12-hour TTL")

	rig.is.Set(func(is *oauthtest.Issuer) {
		require.Len(t, is.TokenRequests, 1)
		tr := is.TokenRequests[0]
		assert.Equal(t, oauthSecret, tr.Get("client_secret"), "the secret went in the Authorization header (the fake reads it back)")
		assert.NotEmpty(t, tr.Get("code_verifier"))
		assert.Equal(t, rig.view.URL+"/mcp", tr.Get("resource"))
	})

	resp, body = rig.get("/ui/items")
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, `<span class="who" id="who">alice (OAuth, `+rig.is.URL+`)</span>`)
	assert.NotContains(t, rig.logs.String(), cb.Query().Get("code"), "the code is never logged")

	rig.advance(3 * time.Minute)
	resp, _ = rig.get("/ui/items")
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode, "the session ended with the access token")

	// The same answer again: its sign-in was answered once.
	resp, body = rig.get(cb.String())
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Contains(t, body, MsgOAuthNoFlow)
	assert.Nil(t, rig.sessionCookie(resp))
}

// TestOAuthSignInRefusals: each way an answer can be wrong gets its own
// page, no session and a log line without the code.
func TestOAuthSignInRefusals(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(*oauthtest.Issuer)
		tamper func(rig *oauthRig, cb *url.URL) *url.URL
		status int
		want   string
	}{
		{name: "no sign-in started in this browser", status: http.StatusBadRequest, want: MsgOAuthNoFlow,
			tamper: func(rig *oauthRig, cb *url.URL) *url.URL { rig.client.Jar, _ = cookiejar.New(nil); return cb }},
		{name: "state of another sign-in", status: http.StatusBadRequest, want: MsgOAuthState,
			tamper: func(_ *oauthRig, cb *url.URL) *url.URL { return withQuery(cb, "state", "forged-state") }},
		{name: "state missing", status: http.StatusBadRequest, want: MsgOAuthState,
			tamper: func(_ *oauthRig, cb *url.URL) *url.URL { return withQuery(cb, "state", "") }},
		{name: "the issuer said no", setup: func(is *oauthtest.Issuer) { is.AuthorizeError = "access_denied" }, status: http.StatusUnauthorized,
			want: MsgOAuthRefused + "access_denied: the user declined; start again at /ui/signin"},
		{name: "no code", status: http.StatusBadRequest, want: MsgOAuthNoCode,
			tamper: func(_ *oauthRig, cb *url.URL) *url.URL { return withQuery(cb, "code", "") }},
		{name: "a code the issuer never gave", status: http.StatusBadGateway, want: MsgOAuthExchange,
			tamper: func(_ *oauthRig, cb *url.URL) *url.URL { return withQuery(cb, "code", "made-up") }},
		{name: "wrong client secret", setup: func(is *oauthtest.Issuer) { is.ClientSecret = "another-secret-0123456789" }, status: http.StatusBadGateway,
			want: MsgOAuthExchange + "POST "},
		{name: "no ID token", setup: func(is *oauthtest.Issuer) { is.OmitIDToken = true }, status: http.StatusBadGateway,
			want: "the answer carries no ID token"},
		{name: "ID token of another issuer", setup: func(is *oauthtest.Issuer) {
			is.IDTokenEdit = func(c map[string]any) { c["iss"] = "https://evil.example.com" }
		}, status: http.StatusUnauthorized, want: MsgOAuthIDToken + "oidc: id token issued by a different provider"},
		{name: "ID token for another client", setup: func(is *oauthtest.Issuer) {
			is.IDTokenEdit = func(c map[string]any) { c["aud"] = "another-client" }
		}, status: http.StatusUnauthorized, want: MsgOAuthIDToken + "oidc: expected audience"},
		{name: "expired ID token", setup: func(is *oauthtest.Issuer) {
			is.IDTokenEdit = func(c map[string]any) { c["exp"] = time.Now().Add(-time.Hour).Unix() }
		}, status: http.StatusUnauthorized, want: MsgOAuthIDToken + "it has expired"},
		{name: "nonce of another sign-in", setup: func(is *oauthtest.Issuer) {
			is.IDTokenEdit = func(c map[string]any) { c["nonce"] = "replayed" }
		}, status: http.StatusUnauthorized, want: MsgOAuthNonce},
		{name: "access token for another resource", setup: func(is *oauthtest.Issuer) { is.Resource = "https://other.example.com/mcp" },
			status: http.StatusUnauthorized, want: MsgOAuthAccessToken + "the access token is not valid for this resource"},
		{name: "expired access token", setup: func(is *oauthtest.Issuer) {
			is.AccessTokenEdit = func(c map[string]any) { c["exp"] = time.Now().Add(-time.Minute).Unix() }
		}, status: http.StatusUnauthorized, want: MsgOAuthAccessToken + "the access token has expired"},
		{name: "access token of another issuer", setup: func(is *oauthtest.Issuer) {
			is.AccessTokenEdit = func(c map[string]any) { c["iss"] = "https://evil.example.com" }
		}, status: http.StatusUnauthorized, want: MsgOAuthAccessToken},
		{name: "access token without the required scope", setup: func(is *oauthtest.Issuer) { is.Scopes = []string{"openid"} },
			status: http.StatusUnauthorized, want: MsgOAuthAccessToken + "the access token lacks scope loop:use"},
		{name: "tokens of two users", setup: func(is *oauthtest.Issuer) {
			is.IDTokenEdit = func(c map[string]any) { c["sub"] = "mallory" }
		}, status: http.StatusUnauthorized, want: MsgOAuthSubject},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := newOAuthRig(t)
			if tt.setup != nil {
				rig.is.Set(tt.setup)
			}
			cb := rig.callbackURL(rig.toIssuer("/ui/signin"))
			if tt.tamper != nil {
				cb = tt.tamper(rig, cb)
			}
			resp, body := rig.get(cb.String())
			assert.Equal(t, tt.status, resp.StatusCode, body)
			assert.Contains(t, body, htmlEscaped(tt.want))
			assert.Equal(t, "no-referrer", resp.Header.Get("Referrer-Policy"))
			assert.Nil(t, rig.sessionCookie(resp), "no session")
			assert.Contains(t, body, `href="/ui/signin?signedout=1"`, "offers to sign in again")
			assert.Contains(t, rig.logs.String(), "web: OAuth sign-in refused")
			if code := cb.Query().Get("code"); code != "" {
				assert.NotContains(t, rig.logs.String(), code)
			}
			resp, _ = rig.get("/ui/items")
			assert.Equal(t, http.StatusSeeOther, resp.StatusCode, "still signed out")
		})
	}
}

// TestOAuthReplayedCode: a code already exchanged is refused by the view
// itself, even where the issuer would take it twice and the browser that
// sends it has a sign-in of its own in progress.
func TestOAuthReplayedCode(t *testing.T) {
	rig := newOAuthRig(t)
	rig.is.Set(func(is *oauthtest.Issuer) { is.AllowCodeReuse = true })
	first := rig.callbackURL(rig.toIssuer("/ui/signin"))
	resp, body := rig.get(first.String())
	require.Equal(t, http.StatusOK, resp.StatusCode, body)

	// Another browser starts its own sign-in and sends the used code with
	// its own state.
	rig.client.Jar, _ = cookiejar.New(nil)
	auth := rig.toIssuer("/ui/signin")
	replay := withQuery(first, "state", auth.Query().Get("state"))
	resp, body = rig.get(replay.String())
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Contains(t, body, MsgOAuthReplay)
	assert.Nil(t, rig.sessionCookie(resp))
	rig.is.Set(func(is *oauthtest.Issuer) {
		assert.Len(t, is.TokenRequests, 1, "the replayed code never reached the issuer")
	})
}

// TestOAuthSigninPage: signed out, the page offers the issuer instead of
// sending the browser back at once; ?with=token shows the token form,
// which still signs in as the token's client; a script may send an
// access token the MCP endpoint takes in the Authorization header.
func TestOAuthSigninPage(t *testing.T) {
	rig := newOAuthRig(t, func(o *Options, _ *OAuthOptions) { o.TokenNames = []string{"ci"} })
	resp, body := rig.get("/ui/signin?signedout=1")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, `<a id="oauth-signin" class="button" href="/ui/signin?next=%2fui%2fitems">Sign in through `+rig.is.URL+`</a>`)
	assert.NotContains(t, body, `id="token"`)
	assert.Contains(t, body, "Signed out.")
	assert.Contains(t, body, `<a id="token-signin" href="/ui/signin?with=token&amp;next=%2fui%2fitems">`)

	resp, body = rig.get("/ui/signin?with=token")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, `id="token"`)
	resp, err := rig.client.PostForm(rig.view.URL+"/ui/signin", url.Values{"token": {testToken}, "next": {"/ui/items"}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	resp, body = rig.get("/ui/items")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, `id="who">ci (token)</span>`)

	access := rig.is.Sign(map[string]any{"iss": rig.is.URL, "sub": "bob", "aud": rig.view.URL + "/mcp", "exp": time.Now().Add(time.Hour).Unix(), "scope": "loop:use"})
	w := get(t, rig.h, "/ui/items", nil, "Authorization", "Bearer "+access)
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Contains(t, w.Body.String(), `id="who">bob (OAuth, `)
	wrong := rig.is.Sign(map[string]any{"iss": rig.is.URL, "sub": "bob", "aud": "https://elsewhere.example.com/mcp", "exp": time.Now().Add(time.Hour).Unix(), "scope": "loop:use"})
	w = get(t, rig.h, "/ui/items", nil, "Authorization", "Bearer "+wrong)
	assert.Equal(t, http.StatusSeeOther, w.Code, "a token the MCP endpoint refuses signs nothing in")
}

// TestOAuthCallbackWithoutOAuth: a server without browser OAuth says so
// at the callback.
func TestOAuthCallbackWithoutOAuth(t *testing.T) {
	h := newTestHandler(t, &fakeBackend{})
	w := get(t, h, CallbackPath+"?code=eyJhbGciOiJSUzI1NiJ9.eyJjIjoxfQ.c2ln&state=y", nil)
	assert.Equal(t, http.StatusNotFound, w.Code, "an issuer's code shaped like a JWT is its code, not a token in a URL")
	assert.Contains(t, w.Body.String(), "mcp.http.oauth.webClientId is not set")
	assert.Equal(t, "no-referrer", w.Header().Get("Referrer-Policy"))
	w = get(t, h, CallbackPath+"?code=x&access_token=y", nil)
	assert.Equal(t, http.StatusBadRequest, w.Code)
	assert.Equal(t, "no-referrer", w.Header().Get("Referrer-Policy"), "even refused, the callback's URL is sent to no one")
}

// TestNewOAuthRefusesWhatItCannotUse: no client, an issuer without
// discovery, a resource URL that is not absolute.
func TestNewOAuthRefusesWhatItCannotUse(t *testing.T) {
	is := oauthtest.New(t)
	verify := func(context.Context, string) (Principal, time.Time, error) { return Principal{}, time.Time{}, nil }
	tests := []struct {
		name string
		o    OAuthOptions
		want string
	}{
		{"no client", OAuthOptions{Issuer: is.URL, ResourceURL: "https://loop.example.com/mcp", Verify: verify}, "mcp.http.oauth.webClientId is empty"},
		{"relative resource", OAuthOptions{Issuer: is.URL, ClientID: "ui", ResourceURL: "/mcp", Verify: verify}, `mcp.http.oauth.resourceUrl "/mcp": give this server's absolute public URL`},
		{"no discovery", OAuthOptions{Issuer: is.URL + "/nowhere", ClientID: "ui", ResourceURL: "https://loop.example.com/mcp", Verify: verify},
			"the web view's sign-in reads the issuer's OpenID discovery document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewOAuth(context.Background(), tt.o)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	a, err := NewOAuth(context.Background(), OAuthOptions{Issuer: is.URL, ClientID: "ui", ResourceURL: "https://loop.example.com/mcp", Verify: verify})
	require.NoError(t, err)
	assert.Equal(t, "https://loop.example.com/ui/oauth/callback", a.RedirectURI())
}

func withQuery(u *url.URL, key, value string) *url.URL {
	c := *u
	q := c.Query()
	if value == "" {
		q.Del(key)
	} else {
		q.Set(key, value)
	}
	c.RawQuery = q.Encode()
	return &c
}

func htmlEscaped(s string) string {
	return strings.NewReplacer("&", "&amp;", "'", "&#39;", `"`, "&#34;", "<", "&lt;", ">", "&gt;").Replace(s)
}
