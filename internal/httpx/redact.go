package httpx

import (
	"encoding/base64"
	"strings"
)

// minSecretLen is the shortest value the redactor treats as a secret; a
// shorter one would blank out ordinary words.
const minSecretLen = 4

// Redacted replaces a secret in redacted text.
const Redacted = "[REDACTED]"

// Redactor removes known secrets from text before it reaches an error, a
// log line or an event.
type Redactor struct {
	secrets []string
}

// NewRedactor returns a redactor for the given secrets (empty and very short
// values are ignored).
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	for _, s := range secrets {
		r.Add(s)
	}
	return r
}

// Add registers another secret.
func (r *Redactor) Add(secret string) {
	if len(secret) < minSecretLen {
		return
	}
	r.secrets = append(r.secrets, secret)
}

// AddBasic registers the base64 credential of HTTP basic auth for user and
// password (what an echoing server would reflect from the header).
func (r *Redactor) AddBasic(user, password string) {
	if password == "" {
		return
	}
	r.Add(base64.StdEncoding.EncodeToString([]byte(user + ":" + password)))
}

// String returns s with every secret replaced by [REDACTED].
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, secret := range r.secrets {
		s = strings.ReplaceAll(s, secret, Redacted)
	}
	return s
}

// Error wraps err so that its message is redacted; errors.Is and errors.As
// still see err.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := r.String(err.Error())
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
