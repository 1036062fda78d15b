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
)

// DefaultTokenEnv is the variable that holds the HTTP bearer token unless
// mcp.http.tokenEnv names another.
const DefaultTokenEnv = "THE_LOOP_MCP_TOKEN"

// minTokenLength is the shortest static token accepted.
const minTokenLength = 16

// ErrNoAuth is returned (wrapped) when HTTP is asked for without any way to
// authenticate callers.
var ErrNoAuth = errors.New("no authentication configured")

// ResolveToken finds the static bearer token: the file named by tokenFile
// (--token-file) first, else the environment variable tokenEnv (from
// mcp.http.tokenEnv, default THE_LOOP_MCP_TOKEN). It returns "" with a nil
// error when neither holds a token, and describes the source (never the
// value) for logs.
func ResolveToken(tokenFile, tokenEnv string, getenv func(string) string) (token, source string, err error) {
	if tokenEnv == "" {
		tokenEnv = DefaultTokenEnv
	}
	if tokenFile != "" {
		data, err := os.ReadFile(tokenFile)
		if err != nil {
			return "", "", fmt.Errorf("--token-file: %w", err)
		}
		token = strings.TrimSpace(string(data))
		if token == "" {
			return "", "", fmt.Errorf("--token-file %s is empty; write the token into it (for example: openssl rand -hex 32 > %s)", tokenFile, tokenFile)
		}
		source = "file " + tokenFile
	} else if getenv != nil {
		token = strings.TrimSpace(getenv(tokenEnv))
		if token == "" {
			return "", "", nil
		}
		source = "environment variable " + tokenEnv
	}
	if token != "" && len(token) < minTokenLength {
		return "", "", fmt.Errorf("the bearer token from %s is shorter than %d characters; use a random one (for example: openssl rand -hex 32)", source, minTokenLength)
	}
	return token, source, nil
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

// authenticator checks the Authorization header. Exactly one of a static
// token or an OAuth verifier (or both) is configured.
type authenticator struct {
	tokenSum [sha256.Size]byte
	hasToken bool
	tokenEnv string // where the static token is read from, for messages
	oauth    *oauthVerifier
	logger   *slog.Logger
}

func newAuthenticator(token, tokenEnv string, oauth *oauthVerifier, logger *slog.Logger) *authenticator {
	a := &authenticator{tokenEnv: tokenEnv, oauth: oauth, logger: logger}
	if token != "" {
		a.tokenSum = sha256.Sum256([]byte(token))
		a.hasToken = true
	}
	return a
}

// middleware answers 401 with a WWW-Authenticate challenge when the bearer
// token is missing or wrong, 403 when an OAuth token lacks a scope, and
// otherwise records the Principal in the request context. CORS preflight
// requests carry no credentials by design and pass through.
func (a *authenticator) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			next.ServeHTTP(w, r)
			return
		}
		raw, ok := bearerToken(r)
		if !ok {
			a.refuse(w, r, http.StatusUnauthorized, "", "", "authentication required: "+a.howToAuthenticate())
			return
		}
		if a.hasToken {
			sum := sha256.Sum256([]byte(raw))
			if subtle.ConstantTimeCompare(sum[:], a.tokenSum[:]) == 1 {
				next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), Principal{Subject: "bearer", Method: "bearer"})))
				return
			}
		}
		if a.oauth != nil {
			p, fail := a.oauth.verify(r.Context(), raw)
			if fail == nil {
				next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), p)))
				return
			}
			a.logger.Warn("mcp http: access token refused", "reason", fail.logReason, "remote", r.RemoteAddr)
			a.refuse(w, r, fail.status, fail.code, fail.description, fail.description)
			return
		}
		a.refuse(w, r, http.StatusUnauthorized, "invalid_token", "the bearer token is not valid", "the bearer token is not valid: "+a.howToAuthenticate())
	})
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
