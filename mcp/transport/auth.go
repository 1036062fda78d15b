package transport

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/the-loop/the-loop/internal/lazyre"
)

// DefaultTokenEnv is the variable that holds the HTTP bearer token unless
// mcp.http.tokenEnv names another.
const DefaultTokenEnv = "THE_LOOP_MCP_TOKEN"

// minTokenLength is the shortest static token accepted.
const minTokenLength = 16

// ErrNoAuth is returned (wrapped) when HTTP is asked for without any way to
// authenticate callers.
var ErrNoAuth = errors.New("no authentication configured")

// StaticToken is one static bearer token and the client it names: each
// token is a principal of its own ("bearer" for the one unnamed token).
type StaticToken struct {
	Name  string
	Token string
}

// unnamedToken is the name of the token given without one.
const unnamedToken = "bearer"

// tokenName is the grammar of a static token's client name.
var tokenName = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// ResolveToken finds the one unnamed static bearer token (see
// ResolveTokens); a token file naming several clients is refused here.
func ResolveToken(tokenFile, tokenEnv string, getenv func(string) string) (token, source string, err error) {
	tokens, source, err := ResolveTokens(tokenFile, tokenEnv, getenv)
	switch {
	case err != nil || len(tokens) == 0:
		return "", source, err
	case len(tokens) > 1 || tokens[0].Name != unnamedToken:
		return "", "", fmt.Errorf("%s names clients; read it with ResolveTokens", source)
	}
	return tokens[0].Token, source, nil
}

// ResolveTokens finds the static bearer tokens: the file named by tokenFile
// (--token-file) first, else the environment variable tokenEnv (from
// mcp.http.tokenEnv, default THE_LOOP_MCP_TOKEN), which holds one unnamed
// token. Each line of the file is a token, or a client's name and its
// token (`alice 3f9c…`), blank and # lines aside: every named token is a
// principal of its own, whose HTTP sessions no other can use. It returns
// none with a nil error when neither holds a token, and describes the
// source (never a value) for logs.
func ResolveTokens(tokenFile, tokenEnv string, getenv func(string) string) (tokens []StaticToken, source string, err error) {
	if tokenEnv == "" {
		tokenEnv = DefaultTokenEnv
	}
	switch {
	case tokenFile != "":
		data, err := os.ReadFile(tokenFile)
		if err != nil {
			return nil, "", fmt.Errorf("--token-file: %w", err)
		}
		source = "file " + tokenFile
		if tokens, err = parseTokenFile(string(data), tokenFile); err != nil {
			return nil, "", err
		}
	case getenv != nil:
		token := strings.TrimSpace(getenv(tokenEnv))
		if token == "" {
			return nil, "", nil
		}
		source = "environment variable " + tokenEnv
		tokens = []StaticToken{{Name: unnamedToken, Token: token}}
	}
	seen := map[string]bool{}
	for _, t := range tokens {
		if len(t.Token) < minTokenLength {
			return nil, "", fmt.Errorf("the bearer token of %s from %s is shorter than %d characters; use a random one (for example: openssl rand -hex 32)", t.Name, source, minTokenLength)
		}
		if seen[t.Token] {
			return nil, "", fmt.Errorf("%s gives two clients the same token; give each its own (for example: openssl rand -hex 32)", source)
		}
		seen[t.Token] = true
	}
	return tokens, source, nil
}

// parseTokenFile reads a token file: TOKEN, or NAME TOKEN, per line.
func parseTokenFile(text, file string) ([]StaticToken, error) {
	var out []StaticToken
	names := map[string]bool{}
	for i, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		t := StaticToken{Name: unnamedToken}
		switch len(f) {
		case 1:
			t.Token = f[0]
		case 2:
			t.Name, t.Token = f[0], f[1]
			if !tokenName().MatchString(t.Name) {
				return nil, fmt.Errorf("--token-file %s line %d: a client's name is letters, digits, '.', '_', '@' or '-' (at most 64)", file, i+1)
			}
		default:
			return nil, fmt.Errorf("--token-file %s line %d: each line is a token, or a client's name and its token", file, i+1)
		}
		if names[t.Name] {
			return nil, fmt.Errorf("--token-file %s line %d: %s is named twice (the unnamed token is %s); give each client one token", file, i+1, t.Name, unnamedToken)
		}
		names[t.Name] = true
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--token-file %s is empty; write the token into it (for example: openssl rand -hex 32 > %s)", file, file)
	}
	return out, nil
}

// noAuthError explains the three ways to give a token (and OAuth).
func noAuthError(addr, tokenEnv string) error {
	if tokenEnv == "" {
		tokenEnv = DefaultTokenEnv
	}
	ways := fmt.Sprintf("set %s, or pass --token-file FILE, or name another variable in mcp.http.tokenEnv in the config (OAuth for chat surfaces: set mcp.http.oauth.issuer and mcp.http.oauth.resourceUrl); generate a token with: openssl rand -hex 32", tokenEnv)
	if !isLoopback(addr) {
		return fmt.Errorf("%w: refusing to listen on %s, which is not a loopback address, without authentication: %s", ErrNoAuth, addr, ways)
	}
	return fmt.Errorf("%w: the HTTP transport needs a bearer token: %s", ErrNoAuth, ways)
}

// authenticator checks the Authorization header against the static tokens
// and, when configured, the OAuth verifier.
type authenticator struct {
	tokens   []tokenSum
	tokenEnv string // where the static token is read from, for messages
	oauth    *oauthVerifier
	logger   *slog.Logger
	// preflight answers CORS preflight requests (the CORS handler); they
	// carry no credentials, and no byte of their body is read.
	preflight http.Handler
}

// tokenSum is a static token's hash and its client's name.
type tokenSum struct {
	sum  [sha256.Size]byte
	name string
}

func newAuthenticator(tokens []StaticToken, tokenEnv string, oauth *oauthVerifier, logger *slog.Logger) *authenticator {
	a := &authenticator{tokenEnv: tokenEnv, oauth: oauth, logger: logger}
	for _, t := range tokens {
		a.tokens = append(a.tokens, tokenSum{sum: sha256.Sum256([]byte(t.Token)), name: t.Name})
	}
	return a
}

// staticClient is the client whose static token raw is ("" for none). Every
// token is compared, in constant time, whatever matches.
func (a *authenticator) staticClient(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	name := ""
	for _, t := range a.tokens {
		if subtle.ConstantTimeCompare(sum[:], t.sum[:]) == 1 {
			name = t.name
		}
	}
	return name
}

// middleware answers 401 with a WWW-Authenticate challenge when the bearer
// token is missing or wrong, 403 when an OAuth token lacks a scope, and
// otherwise records the Principal in the request context and marks the
// connection as one an authenticated client holds. A CORS preflight
// carries no credentials by design: it goes to the CORS handler without
// its body, which is never read.
func (a *authenticator) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			closeIfBody(w, r)
			r.Body, r.ContentLength = http.NoBody, 0
			a.preflight.ServeHTTP(w, r)
			return
		}
		raw, ok := bearerToken(r)
		if !ok {
			a.refuse(w, r, http.StatusUnauthorized, "", "", "authentication required: "+a.howToAuthenticate())
			return
		}
		if name := a.staticClient(raw); name != "" {
			a.admit(next, w, r, Principal{Subject: name, Method: "bearer"})
			return
		}
		if a.oauth != nil {
			p, fail := a.oauth.verify(r.Context(), raw)
			if fail == nil {
				a.admit(next, w, r, p)
				return
			}
			a.logger.Warn("mcp http: access token refused", "reason", fail.logReason, "remote", r.RemoteAddr)
			a.refuse(w, r, fail.status, fail.code, fail.description, fail.description)
			return
		}
		a.refuse(w, r, http.StatusUnauthorized, "invalid_token", "the bearer token is not valid", "the bearer token is not valid: "+a.howToAuthenticate())
	})
}

// admit serves an authenticated request, once its connection has a place
// among its client's authenticated connections.
func (a *authenticator) admit(next http.Handler, w http.ResponseWriter, r *http.Request, p Principal) {
	if c, ok := r.Context().Value(connKey{}).(*limitedConn); ok && !c.prove() {
		closeIfBody(w, r)
		w.Header().Set("Connection", "close")
		w.Header().Set("Retry-After", "5")
		a.logger.Warn("mcp http: authenticated connection limit reached", "client", c.client, "remote", r.RemoteAddr)
		writeRefusal(w, http.StatusServiceUnavailable, fmt.Sprintf("too many authenticated connections from %s (mcp.http.maxConnectionsPerClient); close one or retry shortly", c.client))
		return
	}
	next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), p)))
}

// howToAuthenticate names the header to send and where its value comes
// from. Without OAuth it says so, because a client that sees a 401 starts
// OAuth discovery unless told otherwise.
func (a *authenticator) howToAuthenticate() string {
	if a.oauth != nil {
		return "send the header Authorization: Bearer <access token> with a token from the authorization server named in the resource_metadata of the WWW-Authenticate challenge"
	}
	return staticTokenHint(a.tokenEnv)
}

// staticTokenHint tells a client without OAuth what to send.
func staticTokenHint(tokenEnv string) string {
	return fmt.Sprintf("this server does not use OAuth; send the header \"Authorization: Bearer <token>\" with the token it reads from %s (Claude Code: claude mcp add --transport http the-loop <url> --header \"Authorization: Bearer $%s\")", tokenEnv, tokenEnv)
}

// refuse writes the challenge. The token is never echoed.
func (a *authenticator) refuse(w http.ResponseWriter, r *http.Request, status int, code, description, message string) {
	w.Header().Set("WWW-Authenticate", a.challenge(code, description))
	closeIfBody(w, r)
	if origin := r.Header.Get("Origin"); origin != "" {
		// The Origin middleware already admitted it; let a browser client
		// read the challenge so it can start OAuth.
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Set("Access-Control-Expose-Headers", "WWW-Authenticate")
		w.Header().Add("Vary", "Origin")
	}
	if code == "" {
		a.logger.Info("mcp http: request without credentials", "path", r.URL.Path, "remote", r.RemoteAddr)
	} else if a.oauth == nil {
		a.logger.Warn("mcp http: wrong bearer token", "path", r.URL.Path, "remote", r.RemoteAddr)
	}
	writeRefusal(w, status, message)
}

func (a *authenticator) challenge(code, description string) string {
	parts := []string{`Bearer realm="the-loop"`}
	if code != "" {
		parts = append(parts, fmt.Sprintf("error=%q", code))
	}
	if description != "" {
		parts = append(parts, fmt.Sprintf("error_description=%q", description))
	}
	if a.oauth != nil {
		if len(a.oauth.scopes) > 0 {
			parts = append(parts, fmt.Sprintf("scope=%q", strings.Join(a.oauth.scopes, " ")))
		}
		parts = append(parts, fmt.Sprintf("resource_metadata=%q", a.oauth.metadataURL))
	}
	return strings.Join(parts, ", ")
}

// bearerToken extracts the token from "Authorization: Bearer <token>".
func bearerToken(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, rest, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	return rest, rest != ""
}
