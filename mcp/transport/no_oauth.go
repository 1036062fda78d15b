package transport

import (
	"io"
	"net/http"
)

// oauthClientPaths are where an OAuth client goes after a 401: the
// protected-resource metadata (RFC 9728), the authorization-server metadata
// (RFC 8414, OpenID discovery), and the default registration, authorization
// and token endpoints it falls back to on the server's own origin.
var oauthClientPaths = []string{
	"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/",
	"/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server/",
	"/.well-known/openid-configuration", "/.well-known/openid-configuration/",
	"/register", "/authorize", "/token",
}

// handleNoOAuth answers those paths, when OAuth is not configured, with
// 404 and a sentence naming the header to send: a client that starts OAuth
// discovery on a 401 (Claude Code does) shows the body of the failed
// registration to its user, so the user reads the fix instead of an OAuth
// error. No body is read and nothing is advertised.
func handleNoOAuth(mux *http.ServeMux, tokenEnv string) {
	msg := "the-loop: " + staticTokenHint(tokenEnv) + "\n"
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		closeIfBody(w, r)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, msg)
	})
	for _, p := range oauthClientPaths {
		mux.Handle(p, h)
	}
}
