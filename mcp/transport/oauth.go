package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/mark3labs/mcp-go/server"
)

// OAuthOptions configures OAuth 2.1 resource-server mode: the server
// accepts access tokens issued by Issuer for the audience ResourceURL, and
// publishes RFC 9728 protected-resource metadata pointing at Issuer.
type OAuthOptions struct {
	// Issuer is the authorization server's issuer identifier (mcp.http.oauth.issuer).
	Issuer string
	// ResourceURL is this server's public MCP URL, e.g.
	// https://loop.example.com/mcp; tokens must name it in "aud".
	ResourceURL string
	// JWKSURL skips discovery and fetches signing keys from this URL.
	JWKSURL string
	// Scopes must all be present in a token's "scope" (or "scp") claim.
	Scopes []string
	// HTTPClient fetches discovery documents and keys; nil uses a client
	// with a 10 s timeout.
	HTTPClient *http.Client
}

// signingAlgs are the JWS algorithms accepted on access tokens.
var signingAlgs = []string{
	oidc.RS256, oidc.RS384, oidc.RS512, oidc.ES256, oidc.ES384, oidc.ES512,
	oidc.PS256, oidc.PS384, oidc.PS512, oidc.EdDSA,
}

// oauthVerifier validates access tokens: signature against the issuer's
// JWKS (go-oidc's RemoteKeySet caches keys and refetches on an unknown key
// id), issuer, audience equal to the resource URL, expiry and not-before.
type oauthVerifier struct {
	verifier    *oidc.IDTokenVerifier
	resource    string
	scopes      []string
	metadataURL string
	metadata    server.ProtectedResourceMetadataConfig
}

// authFailure is a refused token: what the client is told and what is
// logged (neither carries the token).
type authFailure struct {
	status      int
	code        string
	description string
	logReason   string
}

func newOAuthVerifier(ctx context.Context, o OAuthOptions) (*oauthVerifier, error) {
	if err := checkURL("mcp.http.oauth.issuer", o.Issuer); err != nil {
		return nil, err
	}
	if err := checkURL("mcp.http.oauth.resourceUrl", o.ResourceURL); err != nil {
		return nil, err
	}
	if o.JWKSURL != "" {
		if err := checkURL("mcp.http.oauth.jwksUrl", o.JWKSURL); err != nil {
			return nil, err
		}
	}
	client := o.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	// Key fetches outlive start-up, so their context is not cancelled with it.
	keyCtx := oidc.ClientContext(context.WithoutCancel(ctx), client)
	jwksURL := o.JWKSURL
	if jwksURL == "" {
		found, err := discoverJWKS(oidc.ClientContext(ctx, client), client, o.Issuer)
		if err != nil {
			return nil, err
		}
		jwksURL = found
	}
	keys := oidc.NewRemoteKeySet(keyCtx, jwksURL)
	verifier := oidc.NewVerifier(o.Issuer, keys, &oidc.Config{
		ClientID:             o.ResourceURL,
		SupportedSigningAlgs: signingAlgs,
	})
	meta := server.ProtectedResourceMetadataConfig{
		Resource:               o.ResourceURL,
		AuthorizationServers:   []string{o.Issuer},
		ScopesSupported:        o.Scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "the-loop",
	}
	return &oauthVerifier{
		verifier:    verifier,
		resource:    o.ResourceURL,
		scopes:      o.Scopes,
		metadataURL: metadataURL(o.ResourceURL),
		metadata:    meta,
	}, nil
}

// discoverJWKS finds the issuer's key set URL: OpenID Connect discovery
// through go-oidc first (which also checks the issuer), then RFC 8414
// authorization-server metadata.
func discoverJWKS(ctx context.Context, client *http.Client, issuer string) (string, error) {
	provider, oidcErr := oidc.NewProvider(ctx, issuer)
	if oidcErr == nil {
		var claims struct {
			JWKSURL string `json:"jwks_uri"`
		}
		if err := provider.Claims(&claims); err == nil && claims.JWKSURL != "" {
			return claims.JWKSURL, nil
		}
	}
	jwks, err := oauthServerMetadata(ctx, client, issuer)
	if err != nil {
		return "", fmt.Errorf("mcp.http.oauth.issuer %s: discovery failed (OpenID: %v; RFC 8414: %v); check the issuer URL or set mcp.http.oauth.jwksUrl", issuer, oidcErr, err)
	}
	return jwks, nil
}

// oauthServerMetadata reads /.well-known/oauth-authorization-server for
// issuer (RFC 8414 §3: the well-known segment goes before the issuer path).
func oauthServerMetadata(ctx context.Context, client *http.Client, issuer string) (string, error) {
	u, err := url.Parse(issuer)
	if err != nil {
		return "", fmt.Errorf("parse issuer: %w", err)
	}
	wellKnown := u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server" + strings.TrimSuffix(u.Path, "/")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, wellKnown, nil)
	if err != nil {
		return "", fmt.Errorf("build metadata request: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("fetch %s: %w", wellKnown, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("fetch %s: status %d", wellKnown, resp.StatusCode)
	}
	var meta struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&meta); err != nil {
		return "", fmt.Errorf("decode %s: %w", wellKnown, err)
	}
	if meta.Issuer != issuer {
		return "", fmt.Errorf("%s names issuer %q, not %q", wellKnown, meta.Issuer, issuer)
	}
	if meta.JWKSURI == "" {
		return "", fmt.Errorf("%s has no jwks_uri", wellKnown)
	}
	return meta.JWKSURI, nil
}

// AccessTokenVerifier checks OAuth access tokens exactly as the MCP
// endpoint does (signature, issuer, audience equal to the resource URL,
// expiry, a subject, every required scope), for another surface of the
// same server that must admit the same principals (the web view's
// browser sign-in).
type AccessTokenVerifier struct{ v *oauthVerifier }

// NewAccessTokenVerifier discovers the issuer's keys (or uses o.JWKSURL)
// as the MCP endpoint's verifier does.
func NewAccessTokenVerifier(ctx context.Context, o OAuthOptions) (*AccessTokenVerifier, error) {
	v, err := newOAuthVerifier(ctx, o)
	if err != nil {
		return nil, err
	}
	return &AccessTokenVerifier{v: v}, nil
}

// Verify returns the token's principal and expiry, or an error saying why
// it is refused (never the token).
func (a *AccessTokenVerifier) Verify(ctx context.Context, raw string) (Principal, time.Time, error) {
	p, exp, fail := a.v.verifyToken(ctx, raw)
	switch {
	case fail == nil:
	case fail.logReason == "expired" || fail.logReason == "no sub claim" || strings.HasPrefix(fail.logReason, "missing scope"):
		return Principal{}, time.Time{}, errors.New(fail.description)
	default: // the verifier's own words say which check failed
		return Principal{}, time.Time{}, fmt.Errorf("%s: %s", fail.description, fail.logReason)
	}
	return p, exp, nil
}

// verify checks one access token and returns the caller.
func (v *oauthVerifier) verify(ctx context.Context, raw string) (Principal, *authFailure) {
	p, _, fail := v.verifyToken(ctx, raw)
	return p, fail
}

// verifyToken checks one access token and returns the caller and when
// the token expires.
func (v *oauthVerifier) verifyToken(ctx context.Context, raw string) (Principal, time.Time, *authFailure) {
	tok, err := v.verifier.Verify(ctx, raw)
	if err != nil {
		var expired *oidc.TokenExpiredError
		if errors.As(err, &expired) {
			return Principal{}, time.Time{}, &authFailure{http.StatusUnauthorized, "invalid_token", "the access token has expired", "expired"}
		}
		return Principal{}, time.Time{}, &authFailure{http.StatusUnauthorized, "invalid_token", "the access token is not valid for this resource", err.Error()}
	}
	if tok.Subject == "" {
		return Principal{}, time.Time{}, &authFailure{http.StatusUnauthorized, "invalid_token", "the access token has no subject", "no sub claim"}
	}
	var claims struct {
		Scope string          `json:"scope"`
		Scp   json.RawMessage `json:"scp"`
	}
	if err := tok.Claims(&claims); err != nil {
		return Principal{}, time.Time{}, &authFailure{http.StatusUnauthorized, "invalid_token", "the access token claims are malformed", err.Error()}
	}
	have := tokenScopes(claims.Scope, claims.Scp)
	for _, want := range v.scopes {
		if !slices.Contains(have, want) {
			return Principal{}, time.Time{}, &authFailure{http.StatusForbidden, "insufficient_scope", "the access token lacks scope " + want, "missing scope " + want}
		}
	}
	return Principal{Subject: tok.Subject, Method: "oauth", Issuer: tok.Issuer, Scopes: have}, tok.Expiry, nil
}

// tokenScopes reads "scope" (space-separated, RFC 9068) or "scp" (a list
// or a string, as some servers issue).
func tokenScopes(scope string, scp json.RawMessage) []string {
	out := strings.Fields(scope)
	if len(scp) > 0 {
		var list []string
		if json.Unmarshal(scp, &list) == nil {
			out = append(out, list...)
		} else {
			var s string
			if json.Unmarshal(scp, &s) == nil {
				out = append(out, strings.Fields(s)...)
			}
		}
	}
	return out
}

// metadataURL is where RFC 9728 metadata for resource is served.
func metadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return resource
	}
	return u.Scheme + "://" + u.Host + server.ProtectedResourceMetadataPath(resource)
}

// checkURL requires an absolute https URL, or http on a loopback host.
func checkURL(key, raw string) error {
	if raw == "" {
		return fmt.Errorf("%s is required for OAuth mode", key)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("%s %q: give an absolute https URL", key, raw)
	}
	if u.Scheme == "http" && !isLoopback(u.Host) {
		return fmt.Errorf("%s %q: must use https (plain http is allowed only on loopback)", key, raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%s %q: must not carry a query or fragment", key, raw)
	}
	return nil
}
