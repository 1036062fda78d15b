package mermaid

import (
	"strings"
)

// shape is one node shape: its opening bracket, the closers it accepts and
// the characters its unquoted label may not contain.
type shape struct {
	open   string
	close  []string
	forbid string
}

// textForbid are the characters mermaid's label text excludes; any of them
// in a label needs the label quoted.
const textForbid = "[](){}|\""

// shapes, longest opener first.
var shapes = []shape{
	{"(((", []string{")))"}, textForbid},
	{"((", []string{"))"}, textForbid},
	{"([", []string{"])"}, textForbid},
	{"(-", []string{"-)"}, textForbid},
	{"(", []string{")"}, textForbid},
	{"[[", []string{"]]"}, textForbid},
	{"[(", []string{")]"}, textForbid},
	{"[/", []string{"/]", "\\]"}, "[](){}\""},
	{"[\\", []string{"\\]", "/]"}, "[](){}\""},
	{"[", []string{"]"}, textForbid},
	{"{{", []string{"}}"}, textForbid},
	{"{", []string{"}"}, textForbid},
	{">", []string{"]"}, textForbid},
}

// vertexStatement reads `nodes (link nodes)*`, where nodes are joined by &.
func (f *flowchart) vertexStatement() bool {
	if !f.nodeGroup() {
		return false
	}
	for {
		pos, line := f.pos, f.line
		f.skipBlanks()
		if f.atStatementEnd() {
			return true
		}
		found, ok := f.link()
		if !found {
			f.pos, f.line = pos, line
			return true
		}
		if !ok {
			return false
		}
		f.skipBlanks()
		if f.atStatementEnd() {
			f.errorf(line, "a link needs a node after it")
			return false
		}
		if !f.nodeGroup() {
			return false
		}
	}
}

func (f *flowchart) nodeGroup() bool {
	if !f.node() {
		return false
	}
	for {
		pos := f.pos
		f.skipBlanks()
		if f.peek() != '&' {
			f.pos = pos
			return true
		}
		f.pos++
		f.skipBlanks()
		if !f.node() {
			return false
		}
	}
}

// node reads `id [shape label] [@{data}] [:::class]`.
func (f *flowchart) node() bool {
	line := f.line
	id := f.nodeID()
	if id == "" {
		f.errorf(line, "expected a node, found %s", f.show())
		return false
	}
	if id == "end" || strings.HasPrefix(id, "end") && !isWordByte(id[3]) {
		f.errorf(line, "node id %q starts with the keyword end, which closes a subgraph — rename the node", id)
		return false
	}
	what := "node " + id
	shaped := false
	for _, sh := range shapes {
		if f.has(sh.open) {
			f.pos += len(sh.open)
			if !f.labelUntil(what, sh.close, sh.forbid) {
				return false
			}
			shaped = true
			break
		}
	}
	if f.has("@{") {
		if !f.shapeData(what) {
			return false
		}
		shaped = true
	}
	if f.has(":::") {
		f.pos += 3
		if f.nodeID() == "" {
			f.errorf(line, "%s: ::: needs a class name", what)
			return false
		}
	}
	if !shaped {
		pos := f.pos
		f.skipBlanks()
		if c := f.peek(); f.pos > pos && (c == '[' || c == '(' || c == '{') {
			f.errorf(line, "%s: a space before its label bracket — write %s%c…", what, id, c)
			return false
		}
		f.pos = pos
	}
	return true
}

func isWordByte(c byte) bool { return isASCIILetter(c) || c >= '0' && c <= '9' || c == '_' }

// shapeData reads an `@{ ... }` block, which may span lines and hold
// quoted values.
func (f *flowchart) shapeData(what string) bool {
	line := f.line
	f.advance(2)
	for !f.eof() {
		switch f.peek() {
		case '"':
			if _, ok := f.quoted(what + " shape data"); !ok {
				return false
			}
			continue
		case '}':
			f.advance(1)
			return true
		}
		f.advance(1)
	}
	f.errorf(line, "%s: the shape data @{ opened here is never closed with }", what)
	f.fatal = true
	return false
}

// stringLabel reads a quoted or markdown-string label at the cursor.
func (f *flowchart) stringLabel(what string) (string, bool) {
	if f.has("\"`") {
		return f.markdownString(what)
	}
	return f.quoted(what)
}

// labelUntil reads a label (quoted, markdown string or plain text) and the
// closer that ends it. A plain label may not contain a forbid character;
// one that runs past its line without closing is reported as unclosed at
// the line it opened on.
func (f *flowchart) labelUntil(what string, closers []string, forbid string) bool {
	line := f.line
	if f.peek() == '"' {
		text, ok := f.stringLabel(what)
		if !ok {
			return false
		}
		if text == "" {
			f.errorf(line, "%s: the label is empty", what)
			return false
		}
		// Plain text may follow the quoted part (mermaid joins them); a
		// second quote may not.
		return f.plainLabel(what, line, closers, forbid, true)
	}
	return f.plainLabel(what, line, closers, forbid, false)
}

// plainLabel reads unquoted label text up to a closer. quoted says a quoted
// part came first, so the text may be empty.
func (f *flowchart) plainLabel(what string, line int, closers []string, forbid string, quoted bool) bool {
	want := strings.Join(closers, " or ")
	start := f.pos
	kind := want + "\x00" + forbid
	if from, ok := f.runsOut[kind]; ok && start >= from {
		f.skipLine()
		f.errorf(line, "%s: the label opened here is never closed with %s", what, want)
		return false
	}
	rewindPos, rewindLine := -1, 0
	for !f.eof() {
		for _, c := range closers {
			if f.has(c) {
				if !quoted && strings.TrimSpace(f.src[start:f.pos]) == "" {
					f.errorf(line, "%s: the label is empty", what)
					return false
				}
				f.advance(len(c))
				return true
			}
		}
		c := f.peek()
		if c == '\n' && rewindPos < 0 {
			rewindPos, rewindLine = f.pos, f.line
		}
		if strings.IndexByte(forbid, c) >= 0 {
			break
		}
		f.advance(1)
	}
	if f.eof() {
		if f.runsOut == nil {
			f.runsOut = map[string]int{}
		}
		f.runsOut[kind] = start
	}
	if rewindPos >= 0 || f.eof() {
		if rewindPos >= 0 {
			f.pos, f.line = rewindPos, rewindLine
		}
		f.errorf(line, "%s: the label opened here is never closed with %s", what, want)
		return false
	}
	if quoted && f.peek() == '"' {
		f.errorf(line, "%s: a label holds one quoted part — put the whole label inside one pair of quotes", what)
		return false
	}
	f.errorf(line, "%s: the label contains %q — put the whole label in quotes", what, string(f.peek()))
	return false
}
