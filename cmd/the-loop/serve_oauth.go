package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/mcp/transport"
	"github.com/the-loop/the-loop/web"
)

// webOAuth builds the web view's client of the authorization server when
// mcp.http.oauth.webClientId is set (nil otherwise): its tokens are
// checked by the MCP endpoint's own verifier, so a browser signs in as
// exactly the principals /mcp admits.
func webOAuth(ctx context.Context, f *Factory, a config.OAuth, logger *slog.Logger) (*web.OAuth, error) {
	if a.WebClientID == "" {
		return nil, nil
	}
	secret := ""
	if a.WebClientSecretEnv != "" {
		if secret = strings.TrimSpace(f.Getenv(a.WebClientSecretEnv)); secret == "" {
			return nil, fmt.Errorf("mcp.http.oauth.webClientSecretEnv names %s, which is empty: set it to the client secret the authorization server gave the web view's client, or remove webClientSecretEnv for a public client (PKCE alone)", a.WebClientSecretEnv)
		}
	}
	verifier, err := transport.NewAccessTokenVerifier(ctx, transport.OAuthOptions{Issuer: a.Issuer, ResourceURL: a.ResourceURL, JWKSURL: a.JWKSURL, Scopes: a.Scopes})
	if err != nil {
		return nil, err
	}
	client, err := web.NewOAuth(ctx, web.OAuthOptions{Issuer: a.Issuer, ClientID: a.WebClientID, ClientSecret: secret, ResourceURL: a.ResourceURL, Scopes: a.Scopes,
		Verify: func(ctx context.Context, raw string) (web.Principal, time.Time, error) {
			p, exp, err := verifier.Verify(ctx, raw)
			return web.Principal{Subject: p.Subject, Method: p.Method, Issuer: p.Issuer}, exp, err
		}})
	if err != nil {
		return nil, err
	}
	logger.Info("web: browsers sign in through the authorization server", "issuer", a.Issuer, "client", a.WebClientID, "redirectUri", client.RedirectURI())
	return client, nil
}
