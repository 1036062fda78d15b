// Package envvar holds the rules for an environment variable's name: its
// shape, and whether the name says the variable holds a secret. Process
// environments (internal/proc) and the config's checks of the variables it
// names both read them here.
package envvar

import (
	"regexp"
	"strings"
)

// Invalid is why a malformed name is refused, for messages.
const Invalid = "not a valid variable name (letters, digits and _; not starting with a digit)"

var nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Valid reports whether name is a variable name: letters, digits and _,
// not starting with a digit.
func Valid(name string) bool { return nameRE.MatchString(name) }

// secretWords are substrings of a name that mark it as holding a secret.
var secretWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "PRIVATE",
	"APIKEY", "AUTH", "COOKIE", "SIGNING", "WEBHOOK", "DSN"}

// secretParts are underscore-separated parts of a name that mark it.
var secretParts = map[string]bool{"KEY": true, "KEYS": true, "PAT": true, "PASS": true, "PW": true}

// LooksSecret reports whether a variable name suggests it holds a secret:
// it contains TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL,
// PRIVATE, APIKEY, AUTH, COOKIE, SIGNING, WEBHOOK or DSN, or one of its
// underscore-separated parts is KEY, KEYS, PAT, PASS or PW
// (case-insensitive). The rule errs towards refusing; an operator who
// means to pass such a variable names it as a secret.
func LooksSecret(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	for _, p := range strings.Split(up, "_") {
		if secretParts[p] {
			return true
		}
	}
	return false
}
