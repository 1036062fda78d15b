package proc

import (
	"strings"

	"github.com/the-loop/the-loop/internal/envvar"
)

// Redacted replaces a secret in anything the-loop records.
const Redacted = "[redacted]"

// minSecretLen is the shortest secret replaced inside a longer argument;
// shorter values are redacted only where they are a whole argument, so a
// one-letter value cannot blank out every argv.
const minSecretLen = 6

// Redact returns a copy of argv for records and logs: every secret value
// is replaced by [redacted], and so is the value of a flag whose name
// looks secret (--token X, --api-key=X, -password X).
func Redact(argv []string, secrets []string) []string {
	out := make([]string, len(argv))
	hideNext := false
	for i, a := range argv {
		switch {
		case hideNext:
			out[i] = Redacted
			hideNext = false
			continue
		case strings.HasPrefix(a, "-"):
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if name != "" && envvar.LooksSecret(strings.ReplaceAll(name, "-", "_")) {
				if hasValue {
					out[i] = a[:strings.Index(a, "=")+1] + Redacted
				} else {
					out[i] = a
					hideNext = true
				}
				continue
			}
		}
		out[i] = redactValue(a, secrets)
	}
	return out
}

// RedactText replaces every secret value in s.
func RedactText(s string, secrets []string) string { return redactValue(s, secrets) }

func redactValue(s string, secrets []string) string {
	for _, sec := range secrets {
		switch {
		case sec == "":
		case s == sec:
			return Redacted
		case len(sec) >= minSecretLen && strings.Contains(s, sec):
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	return s
}
