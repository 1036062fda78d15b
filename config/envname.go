package config

import (
	"strings"

	"github.com/the-loop/the-loop/internal/lazyre"
)

// envNameRE is the shape of an environment variable name.
var envNameRE = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// tokenPrefixes open well-known credentials (GitHub, GitLab, Slack, Atlassian).
var tokenPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "atatt", "eyj"}

// IsEnvName reports whether v can be the name of an environment variable
// rather than a credential pasted in its place: a variable-name shape, no
// well-known token prefix, and not a long mixed-case run with digits. A
// key that names a variable (tokenEnv, emailEnv, webhookUrlEnv) is checked
// with it, and its value is never printed when the check fails.
func IsEnvName(v string) bool {
	if !envNameRE().MatchString(v) {
		return false
	}
	lower := strings.ToLower(v)
	for _, p := range tokenPrefixes {
		if strings.HasPrefix(lower, p) {
			return false
		}
	}
	hasLower, hasUpper, hasDigit := false, false, false
	for _, r := range v {
		hasLower = hasLower || r >= 'a' && r <= 'z'
		hasUpper = hasUpper || r >= 'A' && r <= 'Z'
		hasDigit = hasDigit || r >= '0' && r <= '9'
	}
	return !(len(v) >= 20 && hasLower && hasUpper && hasDigit)
}

// notAnEnvName is the refusal of a variable-naming key whose value is not a
// name. It never quotes the value: it may be the credential itself.
const notAnEnvName = "does not look like an environment variable name (the value is not shown, in case it is the credential itself); put the credential in a variable and name that variable here, e.g. GITHUB_TOKEN"
