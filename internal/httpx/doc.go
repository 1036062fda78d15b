// Package httpx holds the HTTP plumbing the ticket-system providers share: a
// retrying, rate-limit-aware http.RoundTripper with an ETag cache for
// conditional listings, and a redactor that keeps credentials out of error
// text.
package httpx
