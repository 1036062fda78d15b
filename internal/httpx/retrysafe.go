package httpx

import (
	"context"
	"net/http"
)

type retrySafeKey struct{}

// RetrySafe marks the requests made with the returned context as safe to
// resend after a 5xx or a network failure even when their method is POST:
// a GraphQL query (it reads), or a create keyed by the caller so the server
// updates instead of duplicating (a Jira remote link with a globalId). The
// caller asserts this; the transport cannot tell.
func RetrySafe(ctx context.Context) context.Context {
	return context.WithValue(ctx, retrySafeKey{}, true)
}

// idempotent reports whether req may be resent after a failure whose
// outcome on the server is unknown.
func idempotent(req *http.Request) bool {
	if req.Method != http.MethodPost {
		return true
	}
	safe, _ := req.Context().Value(retrySafeKey{}).(bool)
	return safe
}
