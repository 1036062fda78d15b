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
