package transport

import "context"

// Principal is the authenticated caller of a tool. On stdio it is the local
// user who started the process; over HTTP it is a static-token client (one
// per token) or an OAuth subject of an issuer; an in-process test client
// has none. Tools key per-caller state on ID, never on a session id.
type Principal struct {
	// Subject names the caller: "local" on stdio, the static token's name
	// ("bearer" for the one unnamed token), the token's "sub" claim under
	// OAuth.
	Subject string
	// Method is how the caller was authenticated: "stdio", "bearer" or
	// "oauth".
	Method string
	// Issuer is the OAuth token's issuer (OAuth only).
	Issuer string
	// Scopes are the OAuth scopes the token carried (OAuth only).
	Scopes []string
}

// ID identifies the principal HTTP sessions are bound to: one per
// static-token client, one per OAuth issuer and subject, the local user on
// stdio. Two principals of different kinds never share one — an OAuth
// subject named like a static token's client is another principal.
func (p Principal) ID() string {
	switch p.Method {
	case "oauth":
		return "oauth:" + p.Issuer + "\x00" + p.Subject
	case "bearer":
		return "token:" + p.Subject
	case "stdio":
		return "stdio:" + p.Subject
	}
	return "none:" + p.Subject
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFromContext returns the caller recorded by the transport.
func PrincipalFromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// Person returns the ticket-system login the caller acts as, to attribute
// what it posts (a handoff record): the host's operator (routing.operator)
// on stdio, and for the static bearer token the operator configured; the
// token's subject under OAuth. "" when no person is known (an in-process
// caller with no transport): nothing is then posted in anyone's name.
func (p Principal) Person(operator string) string {
	switch p.Method {
	case "stdio", "bearer":
		return operator
	case "oauth":
		return p.Subject
	}
	return ""
}
