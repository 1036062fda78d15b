package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
)

// CallbackPath is where the authorization server sends the browser back:
// the redirect URI to register for the view's client is the public origin
// of mcp.http.oauth.resourceUrl followed by it.
const CallbackPath = Prefix + "oauth/callback"

// flowCookie carries a browser's sign-in in progress from /ui/signin to
// the callback. It is SameSite=Lax: the issuer's redirect back is a
// top-level navigation from another site, which carries no Strict cookie.
const flowCookie = "the_loop_oauth"

// flowTTL is how long a sign-in may take at the authorization server.
const flowTTL = 10 * time.Minute

// maxFlows bounds the sign-ins in progress (and the used codes kept);
// the oldest is dropped past it.
const maxFlows = 1024

// Messages of the browser's OAuth sign-in.
const (
	MsgOAuthNoFlow      = "no sign-in is in progress in this browser, or it took longer than 10 minutes: start again at /ui/signin"
	MsgOAuthState       = "the answer's state does not match the sign-in this browser started, so it may not be yours: start again at /ui/signin"
	MsgOAuthRefused     = "the authorization server refused the sign-in: "
	MsgOAuthNoCode      = "the authorization server's answer carries no code: start again at /ui/signin"
	MsgOAuthReplay      = "this authorization code was already used, and a code signs a browser in once: start again at /ui/signin"
	MsgOAuthExchange    = "the authorization server did not exchange the code for tokens: "
	MsgOAuthIDToken     = "the ID token is refused: "
	MsgOAuthNonce       = "the ID token's nonce is not this sign-in's, so it may be replayed from another: start again at /ui/signin"
	MsgOAuthAccessToken = "the access token is refused as the MCP endpoint refuses it: "
	MsgOAuthSubject     = "the ID token and the access token name different users: start again at /ui/signin"
)

// Principal is who a browser signed in as: a static token's client, or
// an OAuth subject of its issuer (as the MCP endpoint names callers).
type Principal struct {
	Subject string
	// Method is "bearer" or "oauth".
	Method string
	Issuer string
}

// AccessTokenVerifier checks an OAuth access token as the MCP endpoint
// does and returns its principal and expiry (mcp/transport's).
type AccessTokenVerifier func(ctx context.Context, raw string) (Principal, time.Time, error)

// OAuthOptions configure browser sign-in through the authorization server.
type OAuthOptions struct {
	// Issuer is mcp.http.oauth.issuer; its OpenID discovery document names
	// the authorization and token endpoints and the ID tokens' keys.
	Issuer string
	// ClientID and ClientSecret are the view's client
	// (mcp.http.oauth.webClientId, the variable webClientSecretEnv names);
	// without a secret it is a public client and PKCE alone binds the code.
	ClientID, ClientSecret string
	// ResourceURL is mcp.http.oauth.resourceUrl: asked for as the access
	// token's audience (RFC 8707), and its origin is the redirect URI's.
	ResourceURL string
	// Scopes are asked for beside openid (mcp.http.oauth.scopes).
	Scopes []string
	// Verify checks the access token as the MCP endpoint does.
	Verify AccessTokenVerifier
	// HTTPClient talks to the issuer (nil: a 10 s timeout).
	HTTPClient *http.Client
}

// OAuth is the view's client of the authorization server, discovered.
type OAuth struct {
	o           OAuthOptions
	authURL     string
	tokenURL    string
	redirectURI string
	basicAuth   bool
	idTokens    *oidc.IDTokenVerifier
	client      *http.Client

	mu    sync.Mutex
	flows map[[sha256.Size]byte]*flow
	used  map[[sha256.Size]byte]time.Time
}

// flow is one sign-in in progress.
type flow struct {
	state, nonce, verifier, next string
	expires                      time.Time
}

// NewOAuth reads the issuer's discovery document and checks that it
// offers what the view needs: the authorization-code flow with PKCE S256.
func NewOAuth(ctx context.Context, o OAuthOptions) (*OAuth, error) {
	switch {
	case o.ClientID == "":
		return nil, errors.New("mcp.http.oauth.webClientId is empty")
	case o.Verify == nil:
		return nil, errors.New("web: OAuth sign-in needs the MCP endpoint's access-token verifier")
	}
	client := o.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	redirect, err := redirectURI(o.ResourceURL)
	if err != nil {
		return nil, err
	}
	provider, err := oidc.NewProvider(oidc.ClientContext(ctx, client), o.Issuer)
	if err != nil {
		return nil, fmt.Errorf("mcp.http.oauth.issuer %s: the web view's sign-in reads the issuer's OpenID discovery document (/.well-known/openid-configuration): %w; check the issuer, or remove mcp.http.oauth.webClientId to sign browsers in with the token form", o.Issuer, err)
	}
	var meta struct {
		AuthURL    string   `json:"authorization_endpoint"`
		TokenURL   string   `json:"token_endpoint"`
		Challenges []string `json:"code_challenge_methods_supported"`
		AuthMethod []string `json:"token_endpoint_auth_methods_supported"`
	}
	if err := provider.Claims(&meta); err != nil {
		return nil, fmt.Errorf("mcp.http.oauth.issuer %s: read the discovery document: %w", o.Issuer, err)
	}
	for _, e := range []struct{ name, url string }{{"authorization_endpoint", meta.AuthURL}, {"token_endpoint", meta.TokenURL}} {
		if err := endpointOK(o.Issuer, e.url); err != nil {
			return nil, fmt.Errorf("mcp.http.oauth.issuer %s: its discovery document's %s %w", o.Issuer, e.name, err)
		}
	}
	if len(meta.Challenges) > 0 && !slices.Contains(meta.Challenges, "S256") {
		return nil, fmt.Errorf("mcp.http.oauth.issuer %s does not offer PKCE with S256 (code_challenge_methods_supported: %s), which the web view's sign-in requires", o.Issuer, strings.Join(meta.Challenges, ", "))
	}
	// RFC 8414: client_secret_basic is the default when none is listed.
	basic := slices.Contains(meta.AuthMethod, "client_secret_basic") || !slices.Contains(meta.AuthMethod, "client_secret_post")
	keys := oidc.ClientContext(context.WithoutCancel(ctx), client)
	return &OAuth{
		o: o, authURL: meta.AuthURL, tokenURL: meta.TokenURL, redirectURI: redirect, basicAuth: basic, client: client,
		idTokens: oidc.NewVerifier(o.Issuer, oidc.NewRemoteKeySet(keys, providerJWKS(provider)), &oidc.Config{ClientID: o.ClientID, SupportedSigningAlgs: providerAlgs(provider)}),
		flows:    map[[sha256.Size]byte]*flow{}, used: map[[sha256.Size]byte]time.Time{},
	}, nil
}

// RedirectURI is what the view's client must have registered.
func (a *OAuth) RedirectURI() string { return a.redirectURI }

// redirectURI is the public origin of the resource URL plus CallbackPath.
func redirectURI(resource string) (string, error) {
	u, err := url.Parse(resource)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("mcp.http.oauth.resourceUrl %q: give this server's absolute public URL; the web view's redirect URI is its origin followed by %s", resource, CallbackPath)
	}
	return u.Scheme + "://" + u.Host + CallbackPath, nil
}

// endpointOK requires an absolute https URL (http only where the issuer
// itself is http, which the MCP verifier allows on loopback alone).
func endpointOK(issuer, raw string) error {
	u, err := url.Parse(raw)
	if raw == "" || err != nil || u.Host == "" {
		return fmt.Errorf("%q is not an absolute URL", raw)
	}
	is, _ := url.Parse(issuer)
	if u.Scheme != "https" && (u.Scheme != "http" || is == nil || is.Scheme != "http" || u.Hostname() != is.Hostname()) {
		return fmt.Errorf("%q must use https", raw)
	}
	return nil
}

func providerJWKS(p *oidc.Provider) string {
	var c struct {
		JWKS string `json:"jwks_uri"`
	}
	_ = p.Claims(&c)
	return c.JWKS
}

func providerAlgs(p *oidc.Provider) []string {
	var c struct {
		Algs []string `json:"id_token_signing_alg_values_supported"`
	}
	_ = p.Claims(&c)
	var out []string
	for _, a := range c.Algs {
		if a != "none" && !strings.HasPrefix(a, "HS") {
			out = append(out, a)
		}
	}
	return out // empty: go-oidc's default, RS256
}

// start begins a sign-in: it remembers the state, nonce and PKCE verifier
// under a random id the browser holds in flowCookie, and returns the
// authorization endpoint's URL to send the browser to.
func (a *OAuth) start(now time.Time, next string) (id, authURL string, err error) {
	f := &flow{next: next, expires: now.Add(flowTTL)}
	for _, p := range []*string{&id, &f.state, &f.nonce, &f.verifier} {
		if *p, err = randomString(); err != nil {
			return "", "", err
		}
	}
	challenge := sha256.Sum256([]byte(f.verifier))
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {a.o.ClientID},
		"redirect_uri":          {a.redirectURI},
		"scope":                 {strings.Join(append([]string{oidc.ScopeOpenID}, a.o.Scopes...), " ")},
		"state":                 {f.state},
		"nonce":                 {f.nonce},
		"code_challenge":        {base64.RawURLEncoding.EncodeToString(challenge[:])},
		"code_challenge_method": {"S256"},
		"resource":              {a.o.ResourceURL},
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sweep(now)
	if len(a.flows) >= maxFlows {
		dropOldest(a.flows, func(f *flow) time.Time { return f.expires })
	}
	a.flows[sha256.Sum256([]byte(id))] = f
	sep := "?"
	if strings.Contains(a.authURL, "?") {
		sep = "&"
	}
	return id, a.authURL + sep + q.Encode(), nil
}

// take removes and returns the browser's sign-in in progress: each is
// answered once, whatever the answer.
func (a *OAuth) take(now time.Time, id string) *flow {
	if id == "" {
		return nil
	}
	k := sha256.Sum256([]byte(id))
	a.mu.Lock()
	defer a.mu.Unlock()
	f := a.flows[k]
	delete(a.flows, k)
	if f == nil || !f.expires.After(now) {
		return nil
	}
	return f
}

// spend records a code as used; false when it already was.
func (a *OAuth) spend(now time.Time, code string) bool {
	k := sha256.Sum256([]byte(code))
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sweep(now)
	if _, ok := a.used[k]; ok {
		return false
	}
	if len(a.used) >= maxFlows {
		dropOldest(a.used, func(t time.Time) time.Time { return t })
	}
	a.used[k] = now.Add(flowTTL)
	return true
}

func (a *OAuth) sweep(now time.Time) {
	for k, f := range a.flows {
		if !f.expires.After(now) {
			delete(a.flows, k)
		}
	}
	for k, exp := range a.used {
		if !exp.After(now) {
			delete(a.used, k)
		}
	}
}

func dropOldest[V any](m map[[sha256.Size]byte]V, at func(V) time.Time) {
	var oldest [sha256.Size]byte
	var first time.Time
	for k, v := range m {
		if t := at(v); first.IsZero() || t.Before(first) {
			oldest, first = k, t
		}
	}
	delete(m, oldest)
}

// tokens is the token endpoint's answer.
type tokens struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	IDToken     string `json:"id_token"`
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// exchange trades the code for tokens at the token endpoint. The client
// secret goes in the Authorization header (or the body, where the issuer
// takes only that), never in a URL; errors carry no token.
func (a *OAuth) exchange(ctx context.Context, code, verifier string) (tokens, error) {
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {a.redirectURI},
		"code_verifier": {verifier}, "resource": {a.o.ResourceURL}}
	if a.o.ClientSecret == "" || !a.basicAuth {
		form.Set("client_id", a.o.ClientID)
	}
	if a.o.ClientSecret != "" && !a.basicAuth {
		form.Set("client_secret", a.o.ClientSecret)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return tokens{}, fmt.Errorf("build the token request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if a.o.ClientSecret != "" && a.basicAuth {
		req.SetBasicAuth(url.QueryEscape(a.o.ClientID), url.QueryEscape(a.o.ClientSecret)) // RFC 6749 §2.3.1
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return tokens{}, fmt.Errorf("POST %s: %w", a.tokenURL, err)
	}
	defer resp.Body.Close()
	var t tokens
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&t); err != nil {
		return tokens{}, fmt.Errorf("POST %s: status %d, and its body is not a token response: %w", a.tokenURL, resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusOK || t.Error != "" {
		said := t.Error
		if t.Description != "" {
			said += ": " + t.Description
		}
		return tokens{}, fmt.Errorf("POST %s: status %d: %s", a.tokenURL, resp.StatusCode, printable(said))
	}
	if t.AccessToken == "" || (t.TokenType != "" && !strings.EqualFold(t.TokenType, "Bearer")) {
		return tokens{}, fmt.Errorf("POST %s: the answer carries no bearer access token", a.tokenURL)
	}
	if t.IDToken == "" {
		return tokens{}, fmt.Errorf("POST %s: the answer carries no ID token, though the sign-in asked for scope openid", a.tokenURL)
	}
	return t, nil
}

// printable keeps an issuer's words short and free of control characters.
func printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

func randomString() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("read random bytes: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}
