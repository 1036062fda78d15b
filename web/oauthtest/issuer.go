// Package oauthtest is a fake OpenID Connect issuer for tests of the web
// view's browser sign-in: discovery, a key set, an authorization endpoint
// that signs its one user in at once and redirects back with a code, and
// a token endpoint that checks the code, its PKCE verifier, the client and
// the redirect URI before it issues an ID token and an access token. Knobs
// make it misbehave the ways a real issuer (or an attacker between) can.
package oauthtest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Issuer is the fake authorization server.
type Issuer struct {
	// URL is the issuer identifier and base URL.
	URL string
	srv *httptest.Server
	key *rsa.PrivateKey

	mu sync.Mutex
	// Subject is the user the authorization endpoint signs in.
	Subject string
	// Scopes go in the access token's scope claim.
	Scopes []string
	// ClientID and ClientSecret are the registered client (secret "":
	// a public client).
	ClientID, ClientSecret string
	// RedirectURI is the one registered redirect URI ("" accepts any).
	RedirectURI string
	// Resource is the audience of the access tokens.
	Resource string
	// AuthorizeError, when set, is the error= the authorization endpoint
	// redirects back with.
	AuthorizeError string
	// AllowCodeReuse lets a code be exchanged twice (a careless issuer),
	// so the client's own replay check is what refuses.
	AllowCodeReuse bool
	// IDTokenEdit and AccessTokenEdit change the claims before signing.
	IDTokenEdit, AccessTokenEdit func(map[string]any)
	// OmitIDToken leaves the ID token out of the token response.
	OmitIDToken bool
	// AccessTTL is the access token's lifetime (0: one hour).
	AccessTTL time.Duration

	codes map[string]*grant
	// Authorizations are the authorization requests' query parameters,
	// in order; TokenRequests the token requests' forms (with the basic
	// credentials as client_id/client_secret).
	Authorizations []url.Values
	TokenRequests  []url.Values
}

// grant is an issued code and what it was issued for.
type grant struct {
	clientID, redirectURI, challenge, nonce, subject string
	used                                             bool
}

// The issuers of one test binary share a key: generating one takes long.
var (
	keyOnce    sync.Once
	signingKey *rsa.PrivateKey
	keyErr     error
)

// New starts an issuer on a loopback port, at http://localhost:PORT (not
// 127.0.0.1, so that a browser treats it as another site than a view
// served on 127.0.0.1), until the test ends.
func New(t interface {
	Helper()
	Cleanup(func())
	Fatalf(string, ...any)
}) *Issuer {
	t.Helper()
	keyOnce.Do(func() { signingKey, keyErr = rsa.GenerateKey(rand.Reader, 2048) })
	if keyErr != nil {
		t.Fatalf("oauthtest: generate key: %v", keyErr)
	}
	is := &Issuer{key: signingKey, Subject: "alice", ClientID: "the-loop-ui", codes: map[string]*grant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", is.discovery)
	mux.HandleFunc("GET /jwks", is.jwks)
	mux.HandleFunc("GET /authorize", is.authorize)
	mux.HandleFunc("POST /token", is.token)
	is.srv = httptest.NewUnstartedServer(mux)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("oauthtest: listen: %v", err)
	}
	is.srv.Listener = l
	is.srv.Start()
	t.Cleanup(is.srv.Close)
	is.URL = "http://localhost:" + fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	return is
}

// Set changes the issuer's knobs under its lock.
func (is *Issuer) Set(f func(*Issuer)) {
	is.mu.Lock()
	defer is.mu.Unlock()
	f(is)
}

func (is *Issuer) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                is.URL,
		"authorization_endpoint":                is.URL + "/authorize",
		"token_endpoint":                        is.URL + "/token",
		"jwks_uri":                              is.URL + "/jwks",
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "none"},
	})
}

func (is *Issuer) jwks(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &is.key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
}

// authorize signs the user in at once and redirects back with a code (or
// with AuthorizeError).
func (is *Issuer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	is.mu.Lock()
	defer is.mu.Unlock()
	is.Authorizations = append(is.Authorizations, q)
	redirect := q.Get("redirect_uri")
	if q.Get("client_id") != is.ClientID || (is.RedirectURI != "" && redirect != is.RedirectURI) {
		http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	}
	back, err := url.Parse(redirect)
	if err != nil {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	v := url.Values{"state": {q.Get("state")}}
	switch {
	case is.AuthorizeError != "":
		v.Set("error", is.AuthorizeError)
		v.Set("error_description", "the user declined")
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		v.Set("error", "invalid_request")
		v.Set("error_description", "the authorization-code flow with PKCE (S256) is required")
	default:
		code := randomString()
		is.codes[code] = &grant{clientID: q.Get("client_id"), redirectURI: redirect, challenge: q.Get("code_challenge"), nonce: q.Get("nonce"), subject: is.Subject}
		v.Set("code", code)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// token exchanges a code for an ID token and an access token.
func (is *Issuer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		tokenError(w, "invalid_request", err.Error())
		return
	}
	form := r.PostForm
	if id, secret, ok := r.BasicAuth(); ok {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		form.Set("client_id", id)
		form.Set("client_secret", secret)
	}
	is.mu.Lock()
	defer is.mu.Unlock()
	is.TokenRequests = append(is.TokenRequests, form)
	g := is.codes[form.Get("code")]
	sum := sha256.Sum256([]byte(form.Get("code_verifier")))
	switch {
	case form.Get("grant_type") != "authorization_code":
		tokenError(w, "unsupported_grant_type", "only authorization_code")
		return
	case form.Get("client_id") != is.ClientID || form.Get("client_secret") != is.ClientSecret:
		w.Header().Set("WWW-Authenticate", `Basic realm="fake"`)
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	case g == nil || (g.used && !is.AllowCodeReuse):
		tokenError(w, "invalid_grant", "unknown or used code")
		return
	case g.redirectURI != form.Get("redirect_uri"):
		tokenError(w, "invalid_grant", "redirect_uri differs")
		return
	case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
		tokenError(w, "invalid_grant", "PKCE verification failed")
		return
	}
	g.used = true
	now := time.Now()
	ttl := is.AccessTTL
	if ttl == 0 {
		ttl = time.Hour
	}
	access := map[string]any{"iss": is.URL, "sub": g.subject, "aud": is.Resource, "iat": now.Unix(), "exp": now.Add(ttl).Unix(),
		"scope": strings.Join(is.Scopes, " "), "client_id": is.ClientID}
	if is.AccessTokenEdit != nil {
		is.AccessTokenEdit(access)
	}
	out := map[string]any{"access_token": is.sign(access, "at+jwt"), "token_type": "Bearer", "expires_in": int(ttl.Seconds())}
	if !is.OmitIDToken {
		id := map[string]any{"iss": is.URL, "sub": g.subject, "aud": is.ClientID, "iat": now.Unix(), "exp": now.Add(10 * time.Minute).Unix(), "nonce": g.nonce}
		if is.IDTokenEdit != nil {
			is.IDTokenEdit(id)
		}
		out["id_token"] = is.sign(id, "JWT")
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, out)
}

// Sign signs claims with the issuer's key, as it signs its tokens.
func (is *Issuer) Sign(claims map[string]any) string { return is.sign(claims, "at+jwt") }

func (is *Issuer) sign(claims map[string]any, typ string) string {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: is.key, KeyID: "k1"}}, (&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
	if err != nil {
		panic(err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		panic(err)
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		panic(err)
	}
	s, err := obj.CompactSerialize()
	if err != nil {
		panic(err)
	}
	return s
}

func tokenError(w http.ResponseWriter, code, desc string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func randomString() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
