package mermaid

import (
	"regexp"
	"strings"
)

// seqBlocks are the block keywords of a sequence diagram (closed by end).
var seqBlocks = map[string]bool{"loop": true, "rect": true, "opt": true, "alt": true, "par": true,
	"par_over": true, "critical": true, "break": true, "box": true}

// seqDividers are the keywords that divide a block, by the block they belong to.
var seqDividers = map[string][]string{"else": {"alt"}, "and": {"par", "par_over"}, "option": {"critical"}}

// seqArrow matches a message arrow: ->>, -->>, ->, -->, -x, --x, -), --),
// and the two-headed <<->> and <<-->>.
var seqArrow = regexp.MustCompile(`<<--?>>|--?>>|--?>|--?[x)]`)

// entity is a mermaid entity code (#59; #quot;), which a '#' comment or a
// ';' separator must not cut.
var entity = regexp.MustCompile(`#\w+;`)

// seqBlock is an open block and the line it opened on.
type seqBlock struct {
	kind string
	line int
}

// sequence holds the parse state of one sequence diagram.
type sequence struct {
	findings []Finding
	open     []seqBlock
	// multiline is the closing token of a multi-line construct in progress
	// ("}" for accDescr {), else "".
	multiline     string
	multilineFrom int
	// created and destroyed name a participant whose create or destroy
	// line must be followed by a message to it (created) or with it
	// (destroyed); the line is where it was declared.
	created, destroyed         string
	createdLine, destroyedLine int
}

// checkSequence parses a sequence diagram body line by line: statements
// end at a newline or a ';'; '#' and '%%' start comments.
func checkSequence(body string, firstLine int) []Finding {
	q := &sequence{}
	for i, raw := range strings.Split(body, "\n") {
		line := firstLine + i
		if q.continueMultiline(raw) {
			continue
		}
		for _, stmt := range splitStatements(stripSeqComment(raw)) {
			q.statement(strings.TrimSpace(stmt), line)
		}
	}
	if q.multiline != "" {
		q.errorf(q.multilineFrom, "this is never closed with %s", q.multiline)
	}
	for _, b := range q.open {
		q.errorf(b.line, "%s opened here is never closed with end", b.kind)
	}
	return q.findings
}

func (q *sequence) errorf(line int, format string, args ...any) {
	q.findings = append(q.findings, Finding{Line: line, Text: sprintf(format, args...)})
}

func (q *sequence) continueMultiline(raw string) bool {
	switch {
	case q.multiline == "":
		return false
	case strings.Contains(raw, q.multiline):
		q.multiline = ""
	}
	return true
}

// stripSeqComment drops a %% comment and a '#' comment (but not an entity
// code such as #59;).
func stripSeqComment(raw string) string {
	if i := strings.Index(raw, "%%"); i >= 0 {
		raw = raw[:i]
	}
	masked := entity.ReplaceAllStringFunc(raw, func(m string) string { return strings.Repeat("_", len(m)) })
	if i := strings.IndexByte(masked, '#'); i >= 0 {
		raw = raw[:i]
	}
	return raw
}

// splitStatements splits a line at the semicolons that are not part of an
// entity code.
func splitStatements(line string) []string {
	masked := entity.ReplaceAllStringFunc(line, func(m string) string { return strings.Repeat("_", len(m)) })
	var out []string
	start := 0
	for i := 0; i < len(masked); i++ {
		if masked[i] == ';' {
			out = append(out, line[start:i])
			start = i + 1
		}
	}
	return append(out, line[start:])
}

// statement checks one statement (already trimmed).
func (q *sequence) statement(s string, line int) {
	if s == "" {
		return
	}
	word, rest := firstWord(s)
	kw := strings.ToLower(word)
	switch {
	case seqBlocks[kw]:
		q.open = append(q.open, seqBlock{kind: kw, line: line})
	case seqDividers[kw] != nil:
		q.divider(kw, line)
	case kw == "end":
		q.end(rest, line)
	case kw == "participant" || kw == "actor":
		q.participant(kw, rest, line)
	case kw == "create":
		w, r := firstWord(rest)
		if lw := strings.ToLower(w); lw != "participant" && lw != "actor" {
			q.errorf(line, "create must be followed by participant or actor")
			return
		}
		q.created, q.createdLine = q.participant(strings.ToLower(w), r, line), line
	default:
		q.inBoxCheck(kw, line)
		q.other(kw, s, rest, line)
	}
}

// inBoxCheck reports a statement other than a participant inside a box.
func (q *sequence) inBoxCheck(kw string, line int) {
	if n := len(q.open); n > 0 && q.open[n-1].kind == "box" && kw != "destroy" {
		q.errorf(line, "a box holds only participant and actor lines")
	}
}

func (q *sequence) divider(kw string, line int) {
	want := seqDividers[kw]
	if n := len(q.open); n > 0 {
		for _, w := range want {
			if q.open[n-1].kind == w {
				return
			}
		}
	}
	q.errorf(line, "%s belongs inside %s … end", kw, strings.Join(want, " or "))
}

func (q *sequence) end(rest string, line int) {
	if rest != "" {
		q.errorf(line, "end takes nothing after it")
	}
	if len(q.open) == 0 {
		q.errorf(line, "end without an open block")
		return
	}
	q.open = q.open[:len(q.open)-1]
}

// participant checks `participant|actor NAME [as ALIAS]` and returns NAME.
func (q *sequence) participant(kw, rest string, line int) string {
	name := rest
	if i := strings.Index(strings.ToLower(rest+" "), " as "); i >= 0 {
		name = rest[:i]
	}
	if j := strings.Index(name, "@{"); j >= 0 {
		name = name[:j]
	}
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		q.errorf(line, "%s needs a name", kw)
	case strings.ContainsAny(name, ":,>"):
		q.errorf(line, "%s %q: a name cannot contain ':', ',' or '>'", kw, name)
	}
	return name
}

// lifecycle checks a message against a pending create or destroy: the
// message after `create participant C` must go to C, the one after
// `destroy C` must be sent by or to C.
func (q *sequence) lifecycle(from, to string) {
	if q.created != "" && to != q.created {
		q.errorf(q.createdLine, "%s is created here, so the next message must go to it", q.created)
	}
	if q.destroyed != "" && from != q.destroyed && to != q.destroyed {
		q.errorf(q.destroyedLine, "%s is destroyed here, so the next message must be sent by or to it", q.destroyed)
	}
	q.created, q.destroyed = "", ""
}
