package mermaid

import (
	"strings"
)

// flowDirections are the directions a flowchart header may name.
var flowDirections = map[string]bool{"TB": true, "TD": true, "BT": true, "RL": true, "LR": true, "<": true, ">": true, "^": true, "v": true}

// subgraphDirections are the directions a `direction` statement may name.
var subgraphDirections = map[string]bool{"TB": true, "TD": true, "BT": true, "RL": true, "LR": true}

// flowchart holds the parse state of one flowchart.
type flowchart struct {
	*scanner
	// open are the lines of the subgraphs not yet closed by `end`.
	open []int
	// runsOut maps a label kind (its closers and forbidden characters) to
	// the earliest position from which a plain label of that kind was seen
	// to run to the end of the text: a later label of the kind starting at
	// or after it runs out too, so it is not scanned again.
	runsOut map[string]int
}

// checkFlowchart parses a flowchart body: the remainder of the header line
// (its direction), then statements separated by newlines or semicolons.
func checkFlowchart(body string, firstLine int) []Finding {
	f := &flowchart{scanner: newScanner(body, firstLine)}
	f.direction()
	for !f.fatal {
		f.skipSeparators()
		if f.eof() {
			break
		}
		if f.has("%%") {
			f.skipLine()
			continue
		}
		line := f.line
		if !f.statement() {
			f.skipLine()
			continue
		}
		f.skipBlanks()
		if !f.atStatementEnd() {
			f.errorf(line, "unexpected %s — a statement ends at a newline or ;", f.show())
			f.skipLine()
		}
	}
	if !f.fatal {
		for _, l := range f.open {
			f.errorf(l, "subgraph opened here is never closed with end")
		}
	}
	return f.findings
}

// direction reads the optional direction after the header keyword.
func (f *flowchart) direction() {
	f.skipBlanks()
	if f.atStatementEnd() {
		return
	}
	start := f.pos
	for !f.eof() && !strings.ContainsRune(" \t\r\n;", rune(f.peek())) {
		f.pos++
	}
	if dir := f.src[start:f.pos]; !flowDirections[dir] {
		f.errorf(f.line, "unknown flowchart direction %q — use TB, TD, BT, RL or LR", dir)
	}
	f.skipBlanks()
	if !f.atStatementEnd() {
		f.errorf(f.line, "unexpected %s after the diagram type and direction", f.show())
		f.skipLine()
	}
}

func (f *flowchart) skipSeparators() {
	for !f.eof() {
		switch f.peek() {
		case ' ', '\t', '\r', '\n', ';':
			f.advance(1)
		default:
			return
		}
	}
}

// statement parses one statement; false means it reported a fault and the
// rest of the line is to be skipped.
func (f *flowchart) statement() bool {
	switch {
	case f.keyword("subgraph"):
		return f.subgraph()
	case f.keyword("end"):
		f.pos += len("end")
		if len(f.open) == 0 {
			f.errorf(f.line, "end without an open subgraph")
			return false
		}
		f.open = f.open[:len(f.open)-1]
		return true
	case f.keyword("direction"):
		return f.subgraphDirection()
	case f.has("accTitle") || f.has("accDescr"):
		return f.accessibility()
	}
	for _, kw := range []string{"style", "classDef", "class", "linkStyle", "click"} {
		if f.keyword(kw) && (f.peekAt(len(kw)) == ' ' || f.peekAt(len(kw)) == '\t') {
			return f.styling(kw)
		}
	}
	return f.vertexStatement()
}

// subgraph reads `subgraph [id] [title | id[title] | "title"]`.
func (f *flowchart) subgraph() bool {
	line := f.line
	f.pos += len("subgraph")
	f.skipBlanks()
	for !f.atStatementEnd() && !f.fatal {
		switch f.peek() {
		case '"':
			if _, ok := f.stringLabel("subgraph title"); !ok {
				return false
			}
		case '[':
			f.pos++
			if !f.labelUntil("subgraph title", []string{"]"}, textForbid) {
				return false
			}
		default:
			f.pos++
		}
	}
	f.open = append(f.open, line)
	return !f.fatal
}

// subgraphDirection reads `direction TB|BT|RL|LR`.
func (f *flowchart) subgraphDirection() bool {
	line := f.line
	f.pos += len("direction")
	f.skipBlanks()
	dir := f.word()
	f.pos += len(dir)
	if !subgraphDirections[dir] {
		f.errorf(line, "direction must be TB, TD, BT, RL or LR (found %q)", dir)
		return false
	}
	return true
}

// accessibility reads `accTitle: text`, `accDescr: text` or a multi-line
// `accDescr { ... }`.
func (f *flowchart) accessibility() bool {
	line := f.line
	kw := "accTitle"
	if f.has("accDescr") {
		kw = "accDescr"
	}
	f.pos += len(kw)
	f.skipBlanks()
	switch {
	case f.peek() == ':':
		f.rest()
		return true
	case kw == "accDescr" && f.peek() == '{':
		end := strings.IndexByte(f.src[f.pos:], '}')
		if end < 0 {
			f.errorf(line, "accDescr { opened here is never closed with }")
			f.fatal = true
			return false
		}
		f.advance(end + 1)
		return true
	}
	f.errorf(line, "%s needs a ':' followed by its text", kw)
	return false
}

// styling reads style, classDef, class, linkStyle and click statements,
// which need at least their target and one argument (click: a target).
func (f *flowchart) styling(kw string) bool {
	line := f.line
	f.pos += len(kw)
	start := f.pos
	for !f.eof() && f.peek() != '\n' && f.peek() != ';' {
		if f.peek() == '"' {
			if _, ok := f.quoted(kw); !ok {
				return false
			}
			continue
		}
		f.pos++
	}
	args := strings.Fields(f.src[start:f.pos])
	need := 2
	if kw == "click" {
		need = 1
	}
	if len(args) < need {
		f.errorf(line, "%s needs a target and its arguments", kw)
		return false
	}
	return true
}
