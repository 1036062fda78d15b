// Package itemid is the one rule for a work item id. An id is the name of
// the item's spec folder (docs/specs/<id>/): the poller names a GitHub issue
// issue-<number> and a Jira ticket by its key, and a handoff draft is
// draft-<slug>. The same id names the item's working tree and branch, so
// the rule is also safe for both. Every surface — the CLI, the MCP tools,
// the poller, the working trees — checks ids with Check.
package itemid

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/the-loop/the-loop/internal/lazyre"
)

// MaxLen is the longest id, in bytes.
const MaxLen = 128

// Rule describes a valid id, for messages and docs.
const Rule = "an id is a spec folder name: a letter or digit, then letters, digits, '.', '_' or '-' " +
	"(at most 128 bytes, no '..', not ending in '.lock'), such as issue-12, PROJ-12 or draft-login"

var pattern = lazyre.New(`^[\p{L}\p{N}][\p{L}\p{N}._-]*$`)

// Check returns nil when id is a valid work item id, else an error that
// names what is wrong without ever carrying a raw control, invisible or
// bidirectional character.
func Check(id string) error {
	if plain(id) {
		return nil
	}
	return check(id)
}

// plain reports whether id is valid by the common case's bytes alone: an
// ASCII letter or digit, then ASCII letters, digits, '.', '_' or '-', no
// "..", not ending in ".lock", at most MaxLen bytes. Anything else, valid
// or not, is for check (TestPlainAgreesWithTheRule).
func plain(id string) bool {
	if id == "" || len(id) > MaxLen || !alnumASCII(id[0]) || strings.HasSuffix(id, ".lock") {
		return false
	}
	for i := 1; i < len(id); i++ {
		switch c := id[i]; {
		case alnumASCII(c), c == '_', c == '-':
		case c == '.':
			if id[i-1] == '.' {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func alnumASCII(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// check is the whole rule, with the error that names what is wrong.
func check(id string) error {
	if id == "" {
		return fmt.Errorf("work item id is empty; %s", Rule)
	}
	for _, r := range id {
		if !unicode.IsPrint(r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar {
			return fmt.Errorf("work item id %q contains the character %U, which is a control, invisible or bidirectional character; %s", id, r, Rule)
		}
	}
	if len(id) > MaxLen || !pattern().MatchString(id) || strings.Contains(id, "..") || strings.HasSuffix(id, ".lock") {
		return fmt.Errorf("work item id %q is not a plain folder name: %s", id, Rule)
	}
	return nil
}
