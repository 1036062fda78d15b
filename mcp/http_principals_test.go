package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/mcp/transport"
)

const (
	aliceToken = "alice-token-0123456789abcdef"
	bobToken   = "bob-token-0123456789abcdef00"
	carolToken = "carol-token-0123456789abcdef"
	ping       = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
)

// openSession initializes a legacy session as auth and returns its id.
func openSession(t *testing.T, url, auth string) string {
	t.Helper()
	resp := do(t, http.MethodPost, url, legacyInit, auth)
	require.Equal(t, http.StatusOK, resp.StatusCode, readBody(t, resp))
	id := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, id)
	return id
}

// pingStatus pings session id as auth.
func pingStatus(t *testing.T, url, id, auth string) int {
	t.Helper()
	resp := do(t, http.MethodPost, url, ping, auth, "Mcp-Session-Id: "+id, legacyVersion)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// A token file names its clients; each token is a principal of its own,
// whose sessions no other token can use or end.
func TestStaticTokenClientsAreDistinctPrincipals(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	require.NoError(t, os.WriteFile(file, []byte("# the MCP clients\nalice "+aliceToken+"\n\nbob "+bobToken+"\n"), 0o600))
	tokens, source, err := transport.ResolveTokens(file, "", nil)
	require.NoError(t, err)
	assert.Equal(t, "file "+file, source)
	assert.Equal(t, []transport.StaticToken{{Name: "alice", Token: aliceToken}, {Name: "bob", Token: bobToken}}, tokens)

	rig := startHTTP(t, transport.HTTPOptions{Tokens: tokens})
	id := openSession(t, rig.url, bearer(aliceToken))
	assert.Equal(t, http.StatusNotFound, pingStatus(t, rig.url, id, bearer(bobToken)), "another client's token does not reach alice's session")
	resp := do(t, http.MethodDelete, rig.url, "", bearer(bobToken), "Mcp-Session-Id: "+id, legacyVersion)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "nor end it")
	assert.Equal(t, http.StatusOK, pingStatus(t, rig.url, id, bearer(aliceToken)))
}

func TestTokenFilesAreCheckedLineByLine(t *testing.T) {
	dir := t.TempDir()
	for name, tt := range map[string]struct{ text, err string }{
		"a name twice":        {"alice " + aliceToken + "\nalice " + bobToken + "\n", "line 2: alice is named twice"},
		"two unnamed tokens":  {aliceToken + "\n" + bobToken + "\n", "line 2: bearer is named twice"},
		"one token, two uses": {"alice " + aliceToken + "\nbob " + aliceToken + "\n", "gives two clients the same token"},
		"a bad name":          {"al/ice " + aliceToken + "\n", "line 1: a client's name is letters"},
		"three words":         {"alice x " + aliceToken + "\n", "line 1: each line is a token, or a client's name and its token"},
		"a short token":       {"alice abc123\n", "the bearer token of alice from file"},
		"only comments":       {"# nothing\n", "is empty"},
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
			require.NoError(t, os.WriteFile(file, []byte(tt.text), 0o600))
			_, _, err := transport.ResolveTokens(file, "", nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
			for _, tok := range []string{aliceToken, bobToken, "abc123"} {
				assert.NotContains(t, err.Error(), tok, "a token value never appears in an error")
			}
		})
	}
}

// Sessions are bound to the principal, not to a subject name: an OAuth
// subject named like a static token's client is another principal.
func TestAnOAuthSubjectNamedLikeAStaticClientCannotReachItsSessions(t *testing.T) {
	as := newFakeAS(t, true, false)
	rig := startHTTP(t, transport.HTTPOptions{OAuth: as.options(), Token: testToken, Tokens: []transport.StaticToken{{Name: "alice", Token: aliceToken}}})
	oauth := func(sub string) string { return bearer(as.sign(t, "k1", as.claims(sub))) }
	for _, tt := range []struct{ name, owner, other string }{
		{"the unnamed static token's session, an OAuth subject \"bearer\"", bearer(testToken), oauth("bearer")},
		{"a named static client's session, an OAuth subject of its name", bearer(aliceToken), oauth("alice")},
		{"an OAuth subject's session, the static client of its name", oauth("alice"), bearer(aliceToken)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			id := openSession(t, rig.url, tt.owner)
			assert.Equal(t, http.StatusNotFound, pingStatus(t, rig.url, id, tt.other))
			assert.Equal(t, http.StatusOK, pingStatus(t, rig.url, id, tt.owner))
		})
	}
	a := transport.Principal{Subject: "alice", Method: "oauth", Issuer: "https://a.example.com"}
	b := transport.Principal{Subject: "alice", Method: "oauth", Issuer: "https://b.example.com"}
	assert.NotEqual(t, a.ID(), b.ID(), "one subject at two issuers is two principals")
}

// One principal opening many sessions recycles its own: at its own cap it
// evicts its least recently active idle session, and at the server's cap
// it never evicts one of a principal that holds as many sessions or fewer.
func TestOnePrincipalCannotEvictAnothersSessionsByOpeningMany(t *testing.T) {
	rig := startHTTP(t, transport.HTTPOptions{MaxSessions: 4, MaxSessionsPerPrincipal: 3,
		Tokens: []transport.StaticToken{{Name: "alice", Token: aliceToken}, {Name: "bob", Token: bobToken}, {Name: "carol", Token: carolToken}}})
	bobs := []string{openSession(t, rig.url, bearer(bobToken)), openSession(t, rig.url, bearer(bobToken))}
	var alices []string
	for range 20 {
		alices = append(alices, openSession(t, rig.url, bearer(aliceToken)))
	}
	for _, id := range bobs {
		assert.Equal(t, http.StatusOK, pingStatus(t, rig.url, id, bearer(bobToken)), "bob's idle sessions survive alice's twenty")
	}
	assert.Equal(t, http.StatusOK, pingStatus(t, rig.url, alices[19], bearer(aliceToken)), "alice's newest session lives")
	assert.Equal(t, http.StatusNotFound, pingStatus(t, rig.url, alices[0], bearer(aliceToken)), "alice's oldest made room for her newer ones")
	assert.LessOrEqual(t, rig.handler.Sessions(), 4)

	// A newcomer at the server's cap is not locked out: it evicts an idle
	// session of a principal that holds more than it does.
	carol := openSession(t, rig.url, bearer(carolToken))
	assert.Equal(t, http.StatusOK, pingStatus(t, rig.url, carol, bearer(carolToken)))
}

// A principal at its own cap, every session busy, is refused with 429; the
// others are not affected.
func TestAPrincipalWhoseSessionsAreAllBusyIsRefused(t *testing.T) {
	rig := startHTTP(t, transport.HTTPOptions{MaxSessionsPerPrincipal: 1,
		Tokens: []transport.StaticToken{{Name: "alice", Token: aliceToken}, {Name: "bob", Token: bobToken}}})
	id := openSession(t, rig.url, bearer(aliceToken))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rig.url, nil)
	require.NoError(t, err)
	for k, v := range map[string]string{"Authorization": "Bearer " + aliceToken, "Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25", "Accept": "text/event-stream"} {
		req.Header.Set(k, v)
	}
	stream, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer stream.Body.Close()
	require.Equal(t, http.StatusOK, stream.StatusCode)

	resp := do(t, http.MethodPost, rig.url, legacyInit, bearer(aliceToken))
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "5", resp.Header.Get("Retry-After"))
	assert.Contains(t, readBody(t, resp), "the limit of one caller (mcp.http.maxSessionsPerPrincipal), all of them busy")
	openSession(t, rig.url, bearer(bobToken))
}

// A CORS preflight carries no credentials: it is answered without a byte of
// its body read and without a session slot.
func TestACORSPreflightReadsNoBody(t *testing.T) {
	rig := startHTTP(t, transport.HTTPOptions{Token: testToken, MaxSessions: 1, AllowedOrigins: []string{"https://app.example.com"}})
	body := &countingReader{r: strings.NewReader(strings.Repeat("x", 1<<20))}
	req := httptest.NewRequest(http.MethodOptions, transport.EndpointPath, body)
	req.ContentLength = 1 << 20
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
	rec := httptest.NewRecorder()
	rig.handler.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusNoContent, rec.Code)
	assert.Equal(t, "https://app.example.com", rec.Header().Get("Access-Control-Allow-Origin"))
	assert.Zero(t, body.n.Load(), "no byte of a preflight's body is read")
	assert.Equal(t, "close", rec.Header().Get("Connection"), "the connection is not kept to drain the body")
	assert.Zero(t, rig.handler.Sessions())
	openSession(t, rig.url, bearer(testToken)) // the one slot is still free
}
