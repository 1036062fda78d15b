package mcp

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/mcp/transport"
)

const testResource = "https://loop.example.com/mcp"

// fakeAS is an authorization server with its own signing keys. It serves
// OpenID discovery and/or RFC 8414 metadata and a JWKS, and counts JWKS
// fetches so caching is observable.
type fakeAS struct {
	srv      *httptest.Server
	mu       sync.Mutex
	keys     map[string]*rsa.PrivateKey
	jwksHits atomic.Int32
}

func newFakeAS(t *testing.T, oidcDiscovery, rfc8414 bool) *fakeAS {
	t.Helper()
	as := &fakeAS{keys: map[string]*rsa.PrivateKey{}}
	as.addKey(t, "k1")
	mux := http.NewServeMux()
	meta := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer":                   as.srv.URL,
			"jwks_uri":                 as.srv.URL + "/jwks",
			"authorization_endpoint":   as.srv.URL + "/authorize",
			"token_endpoint":           as.srv.URL + "/token",
			"response_types_supported": []string{"code"},
		})
	}
	if oidcDiscovery {
		mux.HandleFunc("/.well-known/openid-configuration", meta)
	}
	if rfc8414 {
		mux.HandleFunc("/.well-known/oauth-authorization-server", meta)
	}
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		as.jwksHits.Add(1)
		as.mu.Lock()
		set := jose.JSONWebKeySet{}
		for kid, k := range as.keys {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: &k.PublicKey, KeyID: kid, Algorithm: "RS256", Use: "sig"})
		}
		as.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(set)
	})
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	return as
}

// testKeys caches generated keys by name: RSA generation is slow.
var testKeys sync.Map

func testKey(t *testing.T, name string) *rsa.PrivateKey {
	t.Helper()
	if k, ok := testKeys.Load(name); ok {
		return k.(*rsa.PrivateKey)
	}
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	actual, _ := testKeys.LoadOrStore(name, k)
	return actual.(*rsa.PrivateKey)
}

func (as *fakeAS) addKey(t *testing.T, kid string) *rsa.PrivateKey {
	t.Helper()
	k := testKey(t, kid)
	as.mu.Lock()
	as.keys[kid] = k
	as.mu.Unlock()
	return k
}

// claims returns a valid claim set for subject.
func (as *fakeAS) claims(subject string) map[string]any {
	now := time.Now()
	return map[string]any{
		"iss": as.srv.URL, "sub": subject, "aud": testResource,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "scope": "loop:use openid",
	}
}

// sign signs claims with the key kid (or with key when given).
func (as *fakeAS) sign(t *testing.T, kid string, claims map[string]any, key ...*rsa.PrivateKey) string {
	t.Helper()
	as.mu.Lock()
	k := as.keys[kid]
	as.mu.Unlock()
	if len(key) > 0 {
		k = key[0]
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: k, KeyID: kid}}, (&jose.SignerOptions{}).WithType("at+jwt"))
	require.NoError(t, err)
	payload, err := json.Marshal(claims)
	require.NoError(t, err)
	obj, err := signer.Sign(payload)
	require.NoError(t, err)
	s, err := obj.CompactSerialize()
	require.NoError(t, err)
	return s
}

func (as *fakeAS) options() *transport.OAuthOptions {
	return &transport.OAuthOptions{Issuer: as.srv.URL, ResourceURL: testResource, Scopes: []string{"loop:use"}}
}

func TestOAuthAccessTokens(t *testing.T) {
	as := newFakeAS(t, true, false)
	rig := startHTTP(t, transport.HTTPOptions{OAuth: as.options()})
	stranger := testKey(t, "stranger")
	with := func(change func(map[string]any)) map[string]any {
		c := as.claims("alice")
		change(c)
		return c
	}
	unsigned := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." +
		base64.RawURLEncoding.EncodeToString(mustJSON(t, as.claims("alice"))) + "."

	tests := []struct {
		name   string
		token  string
		status int
		errTag string
		desc   string
	}{
		{"valid", as.sign(t, "k1", as.claims("alice")), http.StatusOK, "", ""},
		{"audience list containing the resource", as.sign(t, "k1", with(func(c map[string]any) { c["aud"] = []string{"other", testResource} })), http.StatusOK, "", ""},
		{"scp claim instead of scope", as.sign(t, "k1", with(func(c map[string]any) { delete(c, "scope"); c["scp"] = []string{"loop:use"} })), http.StatusOK, "", ""},
		{"expired", as.sign(t, "k1", with(func(c map[string]any) { c["exp"] = time.Now().Add(-time.Minute).Unix() })), http.StatusUnauthorized, "invalid_token", "expired"},
		{"no expiry", as.sign(t, "k1", with(func(c map[string]any) { delete(c, "exp") })), http.StatusUnauthorized, "invalid_token", ""},
		{"wrong audience", as.sign(t, "k1", with(func(c map[string]any) { c["aud"] = "https://api.github.com" })), http.StatusUnauthorized, "invalid_token", "not valid for this resource"},
		{"wrong issuer", as.sign(t, "k1", with(func(c map[string]any) { c["iss"] = "https://evil.example" })), http.StatusUnauthorized, "invalid_token", ""},
		{"signed by a stranger", as.sign(t, "k1", as.claims("alice"), stranger), http.StatusUnauthorized, "invalid_token", ""},
		{"unsigned", unsigned, http.StatusUnauthorized, "invalid_token", ""},
		{"not a JWT", "opaque-garbage-token-value", http.StatusUnauthorized, "invalid_token", ""},
		{"no subject", as.sign(t, "k1", with(func(c map[string]any) { delete(c, "sub") })), http.StatusUnauthorized, "invalid_token", "no subject"},
		{"missing scope", as.sign(t, "k1", with(func(c map[string]any) { c["scope"] = "openid" })), http.StatusForbidden, "insufficient_scope", "lacks scope loop:use"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := do(t, http.MethodPost, rig.url, legacyInit, bearer(tt.token))
			body := readBody(t, resp)
			require.Equal(t, tt.status, resp.StatusCode, body)
			challenge := resp.Header.Get("WWW-Authenticate")
			if tt.errTag == "" {
				assert.Empty(t, challenge)
				return
			}
			assert.Contains(t, challenge, `error="`+tt.errTag+`"`)
			assert.Contains(t, challenge, `resource_metadata="https://loop.example.com/.well-known/oauth-protected-resource/mcp"`)
			assert.Contains(t, challenge, tt.desc)
			assert.NotContains(t, body, tt.token)
		})
	}
	for _, tt := range tests {
		assert.NotContains(t, rig.logs.String(), tt.token, "no token in the logs")
	}
}

func TestOAuthChallengeAndMetadata(t *testing.T) {
	as := newFakeAS(t, true, false)
	rig := startHTTP(t, transport.HTTPOptions{OAuth: as.options()})

	resp := do(t, http.MethodPost, rig.url, legacyInit)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, `Bearer realm="the-loop", scope="loop:use", resource_metadata="https://loop.example.com/.well-known/oauth-protected-resource/mcp"`, resp.Header.Get("WWW-Authenticate"))

	// mcp-go's WithProtectedResourceMetadata, served without credentials.
	resp = do(t, http.MethodGet, rig.srv.URL+"/.well-known/oauth-protected-resource/mcp", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var meta map[string]any
	require.NoError(t, json.Unmarshal([]byte(readBody(t, resp)), &meta))
	assert.Equal(t, testResource, meta["resource"])
	assert.Equal(t, []any{as.srv.URL}, meta["authorization_servers"])
	assert.Equal(t, []any{"loop:use"}, meta["scopes_supported"])
	assert.Equal(t, []any{"header"}, meta["bearer_methods_supported"])
	assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
}

func TestOAuthPrincipalReachesTools(t *testing.T) {
	as := newFakeAS(t, true, false)
	rig := startHTTP(t, transport.HTTPOptions{OAuth: as.options()})
	c := httpClient(t, rig.url, as.sign(t, "k1", as.claims("alice@example.com")))
	res := callTool(t, c, "echo_item", map[string]any{"workItem": "a/b#3", "verbose": true})
	require.False(t, res.IsError, resultText(t, res))
	assert.Equal(t, "a/b#3 by alice@example.com in /repo", resultText(t, res))
	assert.Contains(t, rig.logs.String(), `"principal":"alice@example.com"`)
}

func TestOAuthKeysAreCachedAndRefreshed(t *testing.T) {
	as := newFakeAS(t, true, false)
	rig := startHTTP(t, transport.HTTPOptions{OAuth: as.options()})
	ok := func(token string) {
		t.Helper()
		resp := do(t, http.MethodPost, rig.url, legacyInit, bearer(token))
		require.Equal(t, http.StatusOK, resp.StatusCode, readBody(t, resp))
	}
	ok(as.sign(t, "k1", as.claims("alice")))
	first := as.jwksHits.Load()
	require.GreaterOrEqual(t, first, int32(1))
	ok(as.sign(t, "k1", as.claims("bob")))
	assert.Equal(t, first, as.jwksHits.Load(), "a known key is served from the cache")

	as.addKey(t, "k2") // rotation: the AS starts signing with a new key
	ok(as.sign(t, "k2", as.claims("carol")))
	assert.Greater(t, as.jwksHits.Load(), first, "an unknown key id triggers a refresh")
}

func TestOAuthDiscovery(t *testing.T) {
	t.Run("RFC 8414 metadata when OpenID discovery is absent", func(t *testing.T) {
		as := newFakeAS(t, false, true)
		rig := startHTTP(t, transport.HTTPOptions{OAuth: as.options()})
		resp := do(t, http.MethodPost, rig.url, legacyInit, bearer(as.sign(t, "k1", as.claims("alice"))))
		assert.Equal(t, http.StatusOK, resp.StatusCode)
	})
	t.Run("jwksUrl skips discovery", func(t *testing.T) {
		as := newFakeAS(t, false, false)
		opts := as.options()
		opts.JWKSURL = as.srv.URL + "/jwks"
		rig := startHTTP(t, transport.HTTPOptions{OAuth: opts})
		resp := do(t, http.MethodPost, rig.url, legacyInit, bearer(as.sign(t, "k1", as.claims("alice"))))
		assert.Equal(t, http.StatusOK, resp.StatusCode)
	})
	t.Run("failed discovery names the fix", func(t *testing.T) {
		as := newFakeAS(t, false, false)
		_, err := transport.NewHTTPHandler(context.Background(), NewServer(Deps{}, nil, "v"), transport.HTTPOptions{OAuth: as.options()})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "set mcp.http.oauth.jwksUrl")
	})
	t.Run("configuration is checked", func(t *testing.T) {
		for _, o := range []transport.OAuthOptions{
			{Issuer: "", ResourceURL: testResource},
			{Issuer: "https://as.example", ResourceURL: ""},
			{Issuer: "http://as.example", ResourceURL: testResource},
			{Issuer: "https://as.example", ResourceURL: "loop.example.com/mcp"},
		} {
			_, err := transport.NewHTTPHandler(context.Background(), NewServer(Deps{}, nil, "v"), transport.HTTPOptions{OAuth: &o})
			require.Error(t, err, "%+v", o)
			assert.Contains(t, err.Error(), "mcp.http.oauth.")
		}
	})
}

func TestOAuthWithStaticTokenToo(t *testing.T) {
	as := newFakeAS(t, true, false)
	rig := startHTTP(t, transport.HTTPOptions{OAuth: as.options(), Token: testToken})
	resp := do(t, http.MethodPost, rig.url, legacyInit, bearer(testToken))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the static token still works for Claude Code and CI")
	assert.Empty(t, resp.Header.Get("WWW-Authenticate"), "no OAuth challenge once a valid token is shown")
	resp = do(t, http.MethodPost, rig.url, legacyInit, bearer(as.sign(t, "k1", as.claims("alice"))))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestSessionsAreBoundToTheirPrincipal(t *testing.T) {
	as := newFakeAS(t, true, false)
	rig := startHTTP(t, transport.HTTPOptions{OAuth: as.options()})
	alice := bearer(as.sign(t, "k1", as.claims("alice")))
	bob := bearer(as.sign(t, "k1", as.claims("bob")))

	resp := do(t, http.MethodPost, rig.url, legacyInit, alice)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	id := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, id)

	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	hdr := []string{"Mcp-Session-Id: " + id, "Mcp-Protocol-Version: 2025-11-25"}
	resp = do(t, http.MethodPost, rig.url, ping, append(hdr, bob)...)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "holding a session id is not authentication")
	resp = do(t, http.MethodDelete, rig.url, "", append(hdr, bob)...)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "bob cannot end alice's session: for him it does not exist")
	resp = do(t, http.MethodPost, rig.url, ping, append(hdr, alice)...)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "alice's session survives")
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// Fault 3: an event stream (GET) is bound to its session's principal like
// every other request: another subject holding the id gets 404.
func TestAGetStreamIsBoundToItsSessionsPrincipal(t *testing.T) {
	as := newFakeAS(t, true, false)
	rig := startHTTP(t, transport.HTTPOptions{OAuth: as.options()})
	alice := bearer(as.sign(t, "k1", as.claims("alice")))
	bob := bearer(as.sign(t, "k1", as.claims("bob")))
	resp := do(t, http.MethodPost, rig.url, legacyInit, alice)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	id := resp.Header.Get("Mcp-Session-Id")

	get := func(who string) *http.Response {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, rig.url, nil)
		require.NoError(t, err)
		k, v, _ := strings.Cut(who, ": ")
		req.Header.Set(k, v)
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	assert.Equal(t, http.StatusNotFound, get(bob).StatusCode, "bob cannot listen on alice's session")
	stream := get(alice)
	assert.Equal(t, http.StatusOK, stream.StatusCode)
	assert.Equal(t, "text/event-stream", stream.Header.Get("Content-Type"))
}

// TestAccessTokenVerifierIsTheEndpointsCheck: the verifier another
// surface (the web view) shares admits and refuses what /mcp does, and
// says when the token ends.
func TestAccessTokenVerifierIsTheEndpointsCheck(t *testing.T) {
	as := newFakeAS(t, true, false)
	v, err := transport.NewAccessTokenVerifier(context.Background(), *as.options())
	require.NoError(t, err)
	c := as.claims("alice")
	exp := time.Now().Add(20 * time.Minute).Truncate(time.Second)
	c["exp"] = exp.Unix()
	p, until, err := v.Verify(context.Background(), as.sign(t, "k1", c))
	require.NoError(t, err)
	assert.Equal(t, transport.Principal{Subject: "alice", Method: "oauth", Issuer: as.srv.URL, Scopes: []string{"loop:use", "openid"}}, p)
	assert.True(t, exp.Equal(until), until)

	for name, edit := range map[string]func(map[string]any){
		"the access token is not valid for this resource: oidc: expected audience": func(c map[string]any) { c["aud"] = "https://other.example.com/mcp" },
		"the access token has expired":                                             func(c map[string]any) { c["exp"] = time.Now().Add(-time.Hour).Unix() },
		"the access token lacks scope loop:use":                                    func(c map[string]any) { c["scope"] = "openid" },
		"the access token has no subject":                                          func(c map[string]any) { delete(c, "sub") },
	} {
		c := as.claims("alice")
		edit(c)
		_, _, err := v.Verify(context.Background(), as.sign(t, "k1", c))
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), name)
	}
}
