package mermaid

import (
	"strings"
)

// stroke is one link family: the character its line is drawn with.
type stroke struct {
	char byte
	name string
}

var (
	solid = stroke{'-', "--"}
	thick = stroke{'=', "=="}
)

// link reads a link at the cursor: an optional `id@` link id, then one of
// `-->`, `---`, `--x`, `--o`, `<-->`, `==>`, `-.->`, `~~~` (any length),
// or a link with text in the middle (`-- text -->`, `== text ==>`,
// `-. text .->`), then an optional `|text|`. found is false when no link
// starts here (the cursor is left where it was).
func (f *flowchart) link() (found, ok bool) {
	start, line := f.pos, f.line
	f.linkID()
	if f.peek() == '<' || (f.peek() == 'x' || f.peek() == 'o') && strings.ContainsRune("-=.", rune(f.peekAt(1))) {
		f.pos++
	}
	switch {
	case f.has("--"):
		ok = f.strokeLink(solid, line)
	case f.has("=="):
		ok = f.strokeLink(thick, line)
	case f.has("-.") || f.has("."):
		ok = f.dottedLink(line)
	case f.has("~~~"):
		for f.peek() == '~' {
			f.pos++
		}
		ok = true
	default:
		f.pos, f.line = start, line
		return false, false
	}
	if !ok {
		return true, false
	}
	pos := f.pos
	f.skipBlanks()
	if f.peek() != '|' {
		f.pos = pos
		return true, true
	}
	f.pos++
	return true, f.labelUntil("link text", []string{"|"}, textForbid)
}

// linkID consumes an `id@` prefix when a link follows it.
func (f *flowchart) linkID() {
	i := f.pos
	for i < len(f.src) && !strings.ContainsRune(" \t\r\n\"@", rune(f.src[i])) {
		i++
	}
	if i > f.pos && i+1 < len(f.src) && f.src[i] == '@' && strings.ContainsRune("-=.~<xo", rune(f.src[i+1])) {
		f.pos = i + 1
	}
}

// strokeLink reads a solid or thick link; the cursor is on its first two
// stroke characters.
func (f *flowchart) strokeLink(st stroke, line int) bool {
	n := f.run(st.char)
	if c := f.peek(); c == '>' || c == 'x' || c == 'o' {
		f.pos++
		return true
	}
	if n >= 3 {
		return true
	}
	// `-- text -->`: text, then a closing stroke of two or more.
	if quoted, ok := f.quotedLinkText(); !ok {
		return false
	} else if !quoted {
		end := strings.Index(f.src[f.pos:], st.name)
		if nl := strings.IndexByte(f.src[f.pos:], '\n'); end < 0 || nl >= 0 && nl < end {
			f.errorf(line, "the text of the link opened here is never closed with %s>", st.name)
			return false
		}
		if strings.TrimSpace(f.src[f.pos:f.pos+end]) == "" {
			f.errorf(line, "the link text is empty")
			return false
		}
		f.pos += end
	}
	if c := f.peek(); c == 'x' || c == 'o' || c == '<' {
		f.pos++
	}
	if !f.has(st.name) {
		f.errorf(line, "the link text must end with %s> or %s%c", st.name, st.name, st.char)
		return false
	}
	n = f.run(st.char)
	if c := f.peek(); c == '>' || c == 'x' || c == 'o' {
		f.pos++
		return true
	}
	if n < 3 {
		f.errorf(line, "the link text must end with %s> or %s%c", st.name, st.name, st.char)
		return false
	}
	return true
}

// dottedLink reads `-.-`, `-.->`, `-..->`, `.->` or `-. text .->`.
func (f *flowchart) dottedLink(line int) bool {
	lead := f.peek() == '-'
	if lead {
		f.pos++
	}
	dots := f.run('.')
	if f.peek() == '-' {
		f.pos++
		if c := f.peek(); c == '>' || c == 'x' || c == 'o' {
			f.pos++
		}
		return true
	}
	if !lead || dots != 1 {
		f.errorf(line, "a dotted link is written -.- or -.->")
		return false
	}
	// `-. text .->`: text up to a run of dots followed by '-'.
	if quoted, ok := f.quotedLinkText(); !ok {
		return false
	} else if !quoted {
		start := f.pos
		for !f.eof() && f.peek() != '\n' && !(f.peek() == '.' && f.closesDotted()) {
			f.pos++
		}
		if strings.TrimSpace(f.src[start:f.pos]) == "" {
			f.errorf(line, "the link text is empty")
			return false
		}
	}
	if f.peek() != '.' || !f.closesDotted() {
		f.errorf(line, "the text of the dotted link opened here is never closed with .->")
		return false
	}
	f.run('.')
	f.pos++ // the '-'
	if c := f.peek(); c == '>' || c == 'x' || c == 'o' {
		f.pos++
	}
	return true
}

// quotedLinkText reads a link's text when it is a quoted string, with the
// blanks around it: quoted says it was one, ok that it closed.
func (f *flowchart) quotedLinkText() (quoted, ok bool) {
	f.skipBlanks()
	if f.peek() != '"' {
		return false, true
	}
	if _, ok := f.stringLabel("link text"); !ok {
		return true, false
	}
	f.skipBlanks()
	return true, true
}

// closesDotted reports a run of dots at the cursor followed by '-'.
func (f *flowchart) closesDotted() bool {
	i := f.pos
	for i < len(f.src) && f.src[i] == '.' {
		i++
	}
	return i > f.pos && i < len(f.src) && f.src[i] == '-'
}

// run consumes a run of c and returns its length.
func (f *flowchart) run(c byte) int {
	n := 0
	for f.peek() == c {
		f.pos++
		n++
	}
	return n
}
