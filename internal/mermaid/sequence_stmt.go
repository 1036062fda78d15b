package mermaid

import (
	"fmt"
	"strings"
)

var sprintf = fmt.Sprintf

// other checks the statements that are not blocks or participants: notes,
// activations, autonumber, titles, accessibility lines, actor menus and
// messages.
func (q *sequence) other(kw, s, rest string, line int) {
	switch kw {
	case "note":
		q.note(rest, line)
	case "activate", "deactivate", "destroy":
		if strings.TrimSpace(rest) == "" {
			q.errorf(line, "%s needs a participant", kw)
		}
		if kw == "destroy" {
			q.destroyed, q.destroyedLine = strings.TrimSpace(rest), line
		}
	case "autonumber":
		q.autonumber(rest, line)
	case "title", "title:":
		if strings.TrimSpace(rest) == "" {
			q.errorf(line, "title needs its text")
		}
	case "links", "link", "properties", "details":
		actor, text, ok := strings.Cut(rest, ":")
		if !ok || strings.TrimSpace(actor) == "" || text == "" {
			q.errorf(line, "%s needs a participant, ':' and its text", kw)
		}
	default:
		switch {
		case strings.HasPrefix(kw, "acctitle") || strings.HasPrefix(kw, "accdescr"):
			q.accessibility(s, line)
		default:
			q.message(s, line)
		}
	}
}

// note checks `Note left of|right of A: text` and `Note over A[,B]: text`.
func (q *sequence) note(rest string, line int) {
	lower := strings.ToLower(rest)
	var actors string
	switch {
	case strings.HasPrefix(lower, "left of "), strings.HasPrefix(lower, "right of "):
		_, actors, _ = strings.Cut(rest, " of ")
	case strings.HasPrefix(lower, "over "):
		actors = rest[len("over "):]
	default:
		q.errorf(line, "a note is placed left of, right of or over a participant")
		return
	}
	who, _, ok := strings.Cut(actors, ":")
	switch {
	case !ok:
		q.errorf(line, "a note needs ': text' after its participant")
	case strings.TrimSpace(who) == "":
		q.errorf(line, "a note needs a participant")
	case strings.Count(who, ",") > 1:
		q.errorf(line, "a note spans at most two participants (A,B)")
	}
}

func (q *sequence) autonumber(rest string, line int) {
	f := strings.Fields(rest)
	if len(f) == 1 && strings.EqualFold(f[0], "off") {
		return
	}
	if len(f) > 2 {
		q.errorf(line, "autonumber takes at most a start and a step")
		return
	}
	for _, n := range f {
		if strings.Trim(n, "0123456789") != "" {
			q.errorf(line, "autonumber takes numbers or off (found %q)", n)
			return
		}
	}
}

func (q *sequence) accessibility(s string, line int) {
	i := strings.IndexAny(s, ":{")
	switch {
	case i < 0:
		q.errorf(line, "accTitle and accDescr need ':' followed by their text")
	case s[i] == '{':
		if !strings.Contains(s[i:], "}") {
			q.multiline, q.multilineFrom = "}", line
		}
	}
}

// message checks `A->>B: text`, with an optional + or - after the arrow.
func (q *sequence) message(s string, line int) {
	loc := seqArrow.FindStringIndex(s)
	if loc == nil {
		q.errorf(line, "%q is not a sequence statement (a message needs an arrow such as ->>; a ';' ends a statement)", truncateRunes(s, 40))
		return
	}
	from := strings.TrimSpace(s[:loc[0]])
	rest := strings.TrimLeft(s[loc[1]:], " \t")
	if rest != "" && (rest[0] == '+' || rest[0] == '-') {
		rest = rest[1:]
	}
	to, _, ok := strings.Cut(rest, ":")
	to = strings.TrimSpace(to)
	switch {
	case from == "":
		q.errorf(line, "the message has no sender before its arrow")
	case to == "":
		q.errorf(line, "the message from %s has no receiver after its arrow", from)
	case !ok:
		q.errorf(line, "the message from %s to %s needs ': text'", from, to)
	case strings.ContainsAny(to, ",>"):
		q.errorf(line, "the message receiver %q is not a participant name", to)
	default:
		q.lifecycle(from, to)
	}
}

// firstWord splits s at its first blank; a trailing ':' stays on the word
// (title:, accTitle:).
func firstWord(s string) (string, string) {
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i+1:])
}
