package transport

import "context"

// Principal is the authenticated caller of a tool. On stdio it is the local
// user who started the process; over HTTP it is the bearer-token holder or
// the OAuth subject; an in-process test client has none. Tools key
// per-caller state on Subject, never on a session id.
type Principal struct {
	// Subject identifies the caller: "local" on stdio, "bearer" for the
	// static token, the token's "sub" claim under OAuth.
	Subject string
	// Method is how the caller was authenticated: "stdio", "bearer" or
	// "oauth".
	Method string
	// Scopes are the OAuth scopes the token carried (OAuth only).
	Scopes []string
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
