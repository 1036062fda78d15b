package handoff

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/internal/lazyre"
)

// postedByRE is the line the loop adds to a record it posts on someone's
// behalf, naming that person.
var postedByRE = lazyre.New(`^<!-- the-loop:handoff-by ([A-Za-z0-9][A-Za-z0-9._@+-]{0,99}) -->$`)

// loginRE is a login the posted-by line may name.
var loginRE = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$`)

// PostedByLine returns the line naming login as the person the loop posted
// a record for, or an error when login cannot be written there.
func PostedByLine(login string) (string, error) {
	login = strings.TrimPrefix(strings.TrimSpace(login), "@")
	if !loginRE().MatchString(login) {
		return "", fmt.Errorf("%q is not a login the record can name (letters, digits and . _ @ + -, up to 100)", login)
	}
	return "<!-- the-loop:handoff-by " + login + " -->", nil
}

// PostedBy returns the person a record comment the loop posted names: the
// posted-by line, read only as the comment's last line before the loop's
// own trailer (never from inside the record or a carried file).
func PostedBy(body string) (string, bool) {
	lines := splitLines(body)
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || isSelfTrailer(l) {
			continue
		}
		m := postedByRE().FindStringSubmatch(l)
		if m == nil {
			return "", false
		}
		return m[1], true
	}
	return "", false
}

// isPostedBy reports a posted-by line (allowed after the record's blocks).
func isPostedBy(line string) bool { return postedByRE().MatchString(line) }
