package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/web"
	"github.com/the-loop/the-loop/web/oauthtest"
)

// oauthServe configures the real `serve --http` for browser sign-in
// through a fake issuer (at localhost, another site than the view at
// 127.0.0.1) and returns the view's base URL.
func oauthServe(t *testing.T, db string) (*oauthtest.Issuer, string) {
	t.Helper()
	is := oauthtest.New(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	origin := "http://" + addr
	const secret = "ui-client-secret-0123456789"
	is.Set(func(is *oauthtest.Issuer) {
		is.ClientSecret, is.RedirectURI, is.Resource = secret, origin+web.CallbackPath, origin+"/mcp"
		is.Scopes = []string{"openid", "loop:use"}
	})
	env, _, _, _ := serveEnv(t, "", nil)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`mcp:
  http:
    oauth:
      issuer: %s
      resourceUrl: %s/mcp
      scopes: [loop:use]
      webClientId: the-loop-ui
      webClientSecretEnv: UI_CLIENT_SECRET
`, is.URL, origin)), 0o600))
	base := startServeWebWith(t, env, map[string]string{"UI_CLIENT_SECRET": secret}, "--config", cfg, "--db", db, "--http", addr)
	require.Equal(t, origin+web.Prefix, base)
	return is, base
}

// TestWebViewOAuthInChromium: with mcp.http.oauth.webClientId set, a real
// Chromium opening the items page goes through the issuer's sign-in and
// back, and reaches the items page signed in as the OAuth subject (the
// cookie out of any script's reach); signed out, the page offers the
// issuer again; an issuer's refusal is said on the page.
func TestWebViewOAuthInChromium(t *testing.T) {
	b := newBrowser(t)
	db, _ := seedWebStore(t)
	is, base := oauthServe(t, db)

	b.do(chromedp.Navigate(base+"items"), chromedp.WaitVisible(chromedp.CSS("table.items")))
	assert.Equal(t, base+"items", b.location(), "back on the page it asked for")
	assert.Equal(t, "alice (OAuth, "+is.URL+")", b.text("#who"))
	assert.Equal(t, "issue-8", b.attr("table.items tbody tr", "data-item"))
	cookie, err := chromedp.Run(b.ctx, chromedp.Evaluate[string]("document.cookie"))
	require.NoError(t, err)
	assert.Empty(t, cookie, "the session cookie is HttpOnly")
	is.Set(func(is *oauthtest.Issuer) {
		require.Len(t, is.Authorizations, 1)
		assert.Equal(t, "S256", is.Authorizations[0].Get("code_challenge_method"))
	})

	b.do(chromedp.Click(chromedp.CSS(`tr[data-item="issue-7"] td:first-child a`)), chromedp.WaitVisible(chromedp.CSS("svg.graph")))
	assert.Equal(t, "implementation", b.attr("g.node.current", "data-node"))

	// Signed out: the page offers the issuer instead of going straight back.
	b.do(chromedp.Click(chromedp.CSS(".signout button")), chromedp.WaitVisible(chromedp.CSS("#oauth-signin")))
	assert.Equal(t, base+"signin?signedout=1", b.location())
	assert.Equal(t, "Sign in through "+is.URL, b.text("#oauth-signin"))
	b.shoot("signin-oauth.png")

	// The issuer refuses: the page says what it said.
	is.Set(func(is *oauthtest.Issuer) { is.AuthorizeError = "access_denied" })
	b.do(chromedp.Click(chromedp.CSS("#oauth-signin")), chromedp.WaitVisible(chromedp.CSS("#signin-again")))
	assert.True(t, strings.HasPrefix(b.location(), base+"oauth/callback?"), b.location())
	assert.Equal(t, web.MsgOAuthRefused+"access_denied: the user declined; start again at /ui/signin", b.text(".message"))

	// And lets the browser in once it agrees.
	is.Set(func(is *oauthtest.Issuer) { is.AuthorizeError = "" })
	b.do(chromedp.Click(chromedp.CSS("#signin-again")), chromedp.WaitVisible(chromedp.CSS("#oauth-signin")))
	b.do(chromedp.Click(chromedp.CSS("#oauth-signin")), chromedp.WaitVisible(chromedp.CSS("table.items")))
	assert.Equal(t, base+"items", b.location())
	b.noConsoleErrors("401 (Unauthorized)")
}

// TestServeRefusesHalfConfiguredWebOAuth: serve does not start when the
// view's client secret variable is empty or the issuer offers no OpenID
// discovery, and says which key to fix; the secret never appears.
func TestServeRefusesHalfConfiguredWebOAuth(t *testing.T) {
	is := oauthtest.New(t)
	tests := []struct {
		name, issuer string
		vars         map[string]string
		want         string
	}{
		{"empty secret variable", is.URL, map[string]string{"UI_CLIENT_SECRET": " "},
			"mcp.http.oauth.webClientSecretEnv names UI_CLIENT_SECRET, which is empty"},
		{"issuer without discovery", is.URL + "/none", map[string]string{"UI_CLIENT_SECRET": "ui-client-secret-0123456789"},
			"mcp.http.oauth.issuer " + is.URL + "/none: discovery failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := map[string]string{"THE_LOOP_MCP_TOKEN": webTestToken}
			for k, v := range tt.vars {
				vars[k] = v
			}
			env, _, errb, _ := serveEnv(t, "", vars)
			cfg := filepath.Join(t.TempDir(), "config.yaml")
			require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf("mcp:\n  http:\n    oauth:\n      issuer: %s\n      resourceUrl: http://127.0.0.1:1/mcp\n      webClientId: ui\n      webClientSecretEnv: UI_CLIENT_SECRET\n", tt.issuer)), 0o600))
			code := Main(t.Context(), env, []string{"serve", "--config", cfg, "--db", filepath.Join(t.TempDir(), "s.db"), "--http", "127.0.0.1:0"})
			assert.NotEqual(t, 0, code)
			assert.Contains(t, errb.String(), tt.want)
			assert.NotContains(t, errb.String(), "ui-client-secret-0123456789")
		})
	}
}
