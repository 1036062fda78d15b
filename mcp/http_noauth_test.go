package mcp

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/mcp/transport"
)

// Without OAuth a 401 names the header to send and where its value comes
// from, and advertises no OAuth: no resource_metadata, and every place an
// OAuth client looks next answers 404 with the same sentence.
func TestA401WithoutOAuthSaysWhichHeaderToSend(t *testing.T) {
	rig := startHTTP(t, transport.HTTPOptions{Token: testToken, TokenEnv: "LOOP_TOKEN"})
	resp := do(t, http.MethodPost, rig.url, legacyInit)
	body := readBody(t, resp)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, `Bearer realm="the-loop"`, resp.Header.Get("WWW-Authenticate"), "no resource_metadata, no scope: nothing points at OAuth")
	assert.Contains(t, body, `this server does not use OAuth; send the header \"Authorization: Bearer \u003ctoken\u003e\" with the token it reads from LOOP_TOKEN`)

	resp = do(t, http.MethodPost, rig.url, legacyInit, bearer("wrong-token-0123456789abcdef"))
	body = readBody(t, resp)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Contains(t, body, "the bearer token is not valid: this server does not use OAuth")
	assert.NotContains(t, resp.Header.Get("WWW-Authenticate"), "resource_metadata")

	base := strings.TrimSuffix(rig.url, transport.EndpointPath)
	for _, p := range []string{
		"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource",
		"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration", "/register", "/authorize", "/token",
	} {
		method := http.MethodGet
		if p == "/register" || p == "/token" {
			method = http.MethodPost
		}
		resp := do(t, method, base+p, `{"client_name":"x"}`)
		body := readBody(t, resp)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, p)
		assert.Equal(t, "text/plain; charset=utf-8", resp.Header.Get("Content-Type"), p)
		assert.Contains(t, body, `the-loop: this server does not use OAuth; send the header "Authorization: Bearer <token>" with the token it reads from LOOP_TOKEN`, p)
		assert.NotContains(t, body, "authorization_servers", p)
		assert.NotContains(t, body, testToken, p)
	}
}

// Claude Code, the real client, tells its user which header to send
// instead of "Dynamic Client Registration rejected (HTTP 404): 404 page
// not found", and connects once the header is given.
func TestClaudeCodeSeesWhichHeaderToSend(t *testing.T) {
	claude := claudeCLI(t)
	rig := startHTTP(t, transport.HTTPOptions{Token: testToken})
	home := t.TempDir()
	run := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, claude, args...)
		cmd.Dir, cmd.Env = home, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "DISABLE_AUTOUPDATER=1",
			"DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	run("mcp", "add", "--transport", "http", "noheader", rig.url)
	run("mcp", "add", "--transport", "http", "withheader", rig.url, "--header", "Authorization: Bearer "+testToken)
	out := run("mcp", "get", "noheader")
	assert.Contains(t, out, `this server does not use OAuth; send the header "Authorization: Bearer <token>" with the token it reads from THE_LOOP_MCP_TOKEN`)
	assert.NotContains(t, out, "404 page not found")
	out = run("mcp", "get", "withheader")
	assert.Contains(t, out, "Connected", out)
}

// claudeCLI finds the Claude Code testdata/e2e/install-claude.sh installs, else
// claude on PATH; the test skips without it.
func claudeCLI(t *testing.T) string {
	t.Helper()
	p := filepath.Join(moduleRoot(t), "testdata", "e2e", "claude", "node_modules", ".bin", "claude")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if p, err := exec.LookPath("claude"); err == nil {
		return p
	}
	t.Skip("claude is not installed; run testdata/e2e/install-claude.sh")
	return ""
}

// With OAuth configured, the challenge points at the metadata as before
// and the sentence names the authorization server, not a static token.
func TestA401UnderOAuthPointsAtTheMetadata(t *testing.T) {
	as := newFakeAS(t, true, true)
	rig := startHTTP(t, transport.HTTPOptions{OAuth: as.options()})
	resp := do(t, http.MethodPost, rig.url, legacyInit)
	body := readBody(t, resp)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("WWW-Authenticate"), "resource_metadata=")
	assert.Contains(t, body, "a token from the authorization server named in the resource_metadata")
	assert.NotContains(t, body, "does not use OAuth")
}
