package continuity

import (
	"regexp"

	"github.com/the-loop/the-loop/internal/lazyre"
)

// secretPatterns match credential shapes that must never be packaged into a
// brief or a prompt, whatever an agent wrote into its notes.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{20,}`),
	regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`),
	regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`),
	regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`),
	regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{16,}`),
}

// assignedSecret matches a credential assigned to its name ("token: …",
// "password=…"); the name and the separator are kept.
var assignedSecret = lazyre.New(`(?i)\b(token|secret|password|passwd|api[_-]?key)(\s*[:=]\s*)\S{8,}`)

// credentialURL matches the user:password part of a URL.
var credentialURL = regexp.MustCompile(`(://)[^/\s:@]+:[^/\s@]+@`)

// redactSecrets replaces credential-shaped text with "[redacted]".
func redactSecrets(s string) string {
	s = credentialURL.ReplaceAllString(s, "${1}[redacted]@")
	for _, re := range secretPatterns {
		s = re.ReplaceAllString(s, "[redacted]")
	}
	return assignedSecret().ReplaceAllString(s, "${1}${2}[redacted]")
}
