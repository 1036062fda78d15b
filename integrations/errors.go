package integrations

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Error kinds every provider maps its failures onto, so callers (and the
// shared contract suite) can test with errors.Is regardless of the system.
var (
	// ErrUnauthorized: the credentials were missing or refused (HTTP 401).
	ErrUnauthorized = errors.New("unauthorized")
	// ErrForbidden: the credentials lack permission (HTTP 403, not a rate limit).
	ErrForbidden = errors.New("forbidden")
	// ErrInvalid: the system refused the request's content (GitHub 422, Jira 400),
	// or the loop refused it before sending.
	ErrInvalid = errors.New("invalid request")
	// ErrRateLimited: a rate limit outlasted the retry budget.
	ErrRateLimited = errors.New("rate limited")
	// ErrUnavailable: the system kept failing (5xx, network) past the retries.
	ErrUnavailable = errors.New("service unavailable")
	// ErrMalformed: the system answered, but its answer could not be read
	// (a truncated or invalid body, a shape the loop does not know). It is
	// not an outage: the error says "malformed response from GitHub (…)".
	ErrMalformed = errors.New("malformed response")
)

// APIError is a failed provider call. Its message never contains a
// credential: providers redact their secrets before building it.
type APIError struct {
	// System is the provider name ("github", "jira", "slack").
	System string
	// Op is the operation that failed.
	Op Op
	// Target names what the call was about (a ref, OWNER/REPO, a project).
	Target string
	// Status is the HTTP status (0 when no response arrived).
	Status int
	// Message is the system's own explanation, redacted.
	Message string
	// Fields maps a request field to its validation problem.
	Fields map[string]string
	// RetryAt is when a rate limit ends (zero when unknown).
	RetryAt time.Time
	// Kind is one of ErrNotFound, ErrUnauthorized, ErrForbidden, ErrInvalid,
	// ErrRateLimited, ErrUnavailable (nil for anything else).
	Kind error
}

// Error renders "system op target: status: message (field: problem; ...)",
// and a malformed answer as "system op target: malformed response from
// System (status: message)".
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.System)
	if e.Op != "" {
		b.WriteString(" " + string(e.Op))
	}
	if e.Target != "" {
		b.WriteString(" " + e.Target)
	}
	b.WriteString(": ")
	if e.Kind == ErrMalformed {
		fmt.Fprintf(&b, "%s from %s", ErrMalformed, SystemName(e.System))
		detail := e.Message
		if e.Status != 0 {
			detail = strings.TrimSuffix(fmt.Sprintf("HTTP %d: %s", e.Status, e.Message), ": ")
		}
		if detail != "" {
			b.WriteString(" (" + detail + ")")
		}
		return b.String()
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, "HTTP %d", e.Status)
	}
	if e.Kind != nil {
		if e.Status != 0 {
			b.WriteString(" ")
		}
		b.WriteString(e.Kind.Error())
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if len(e.Fields) > 0 {
		keys := make([]string, 0, len(e.Fields))
		for k := range e.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, k+": "+e.Fields[k])
		}
		b.WriteString(" (" + strings.Join(parts, "; ") + ")")
	}
	if !e.RetryAt.IsZero() {
		b.WriteString("; retry after " + e.RetryAt.UTC().Format(time.RFC3339))
	}
	return b.String()
}

// SystemName is how a message names a ticket system: GitHub, Jira, Slack.
func SystemName(system string) string {
	switch system {
	case "github":
		return "GitHub"
	case "jira":
		return "Jira"
	case "slack":
		return "Slack"
	}
	return system
}

// Unwrap exposes Kind to errors.Is.
func (e *APIError) Unwrap() error { return e.Kind }

// KindForStatus maps an HTTP status onto an error kind (nil when none fits).
func KindForStatus(status int) error {
	switch {
	case status == 401:
		return ErrUnauthorized
	case status == 403:
		return ErrForbidden
	case status == 404 || status == 410:
		return ErrNotFound
	case status == 400 || status == 409 || status == 422:
		return ErrInvalid
	case status == 429:
		return ErrRateLimited
	case status >= 500:
		return ErrUnavailable
	}
	return nil
}

// Invalidf is a refusal made before any request: the field and the fix are in
// the message.
func Invalidf(system string, op Op, format string, args ...any) error {
	return &APIError{System: system, Op: op, Kind: ErrInvalid, Message: fmt.Sprintf(format, args...)}
}
