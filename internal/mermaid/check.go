// Package mermaid checks mermaid diagrams by parsing them. Flowcharts
// (`flowchart`, `graph`, `flowchart-elk`) and sequence diagrams are parsed
// statement by statement, following mermaid's own grammar: node shapes,
// quoted and markdown-string labels, links with and without text,
// subgraphs, participants, messages and blocks. Every other diagram type
// mermaid knows is reported as not checked rather than guessed at.
package mermaid

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Finding is one fault in a diagram.
type Finding struct {
	// Line is the 1-based line of the diagram text the fault is on; 0 when
	// it is about the diagram as a whole.
	Line int
	Text string
}

// Result is what Check found in one diagram.
type Result struct {
	// Type is the diagram type keyword as written ("flowchart", "graph",
	// "sequenceDiagram", "pie", ...), or "" when the text names none.
	Type string
	// Checked is true when the type was parsed; false for a known type this
	// package has no parser for (and for a text that names no type).
	Checked bool
	// Empty is true when the text holds nothing but blanks and comments.
	Empty    bool
	Findings []Finding
}

// UncheckedNote is what to tell a reader about a diagram whose type is not
// parsed ("" when r was checked or names no type).
func (r Result) UncheckedNote() string {
	if r.Checked || r.Type == "" {
		return ""
	}
	return "mermaid diagram type " + r.Type + " is not checked"
}

// parsers are the diagram types this package parses.
var parsers = map[string]func(body string, firstLine int) []Finding{
	"flowchart":       checkFlowchart,
	"graph":           checkFlowchart,
	"flowchart-elk":   checkFlowchart,
	"sequenceDiagram": checkSequence,
}

// knownTypes are the other diagram types mermaid renders; they are
// recognised, reported as not checked, and never faulted.
var knownTypes = []string{
	"stateDiagram", "stateDiagram-v2", "classDiagram", "classDiagram-v2", "erDiagram", "journey", "gantt",
	"pie", "mindmap", "timeline", "gitGraph", "quadrantChart", "requirementDiagram", "C4Context",
	"C4Container", "C4Component", "C4Dynamic", "C4Deployment", "block-beta", "block", "sankey-beta",
	"sankey", "xychart-beta", "xychart", "packet-beta", "packet", "architecture-beta", "kanban",
	"radar-beta", "treemap-beta", "zenuml", "info",
}

// Check parses one diagram (the text between a ```mermaid fence and its
// closing fence). Line numbers in findings count from the first line of src.
func Check(src string) Result {
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	header, findings, ok := skipPreamble(lines)
	if !ok {
		return Result{Findings: findings}
	}
	if header == len(lines) {
		return Result{Empty: true, Findings: findings}
	}
	first := strings.TrimSpace(lines[header])
	word, rest := splitHeader(first)
	parse, parsed := parsers[word]
	if !parsed && !isKnownType(word) {
		return Result{Findings: append(findings, Finding{Text: fmt.Sprintf(
			"does not start with a diagram type (found %s)", strconv.Quote(truncateRunes(first, 40)))})}
	}
	res := Result{Type: word, Checked: parsed, Findings: findings}
	if !parsed {
		return res
	}
	body := strings.Join(lines[header:], "\n")
	// The body handed to the parser starts with the header's own remainder,
	// so statements after `graph TD;` on the same line are parsed too.
	body = rest + body[len(lines[header]):]
	res.Findings = append(res.Findings, parse(body, header+1)...)
	return res
}

// skipPreamble steps over blank lines, %% comments and directives, and a
// leading YAML front-matter block; it returns the index of the header line
// (len(lines) when there is none). ok is false when the preamble itself is
// broken.
func skipPreamble(lines []string) (int, []Finding, bool) {
	i := 0
	seenContent := false
	for i < len(lines) {
		t := strings.TrimSpace(lines[i])
		switch {
		case t == "":
			i++
		case t == "---" && !seenContent:
			end := closingLine(lines, i+1, func(s string) bool { return strings.TrimSpace(s) == "---" })
			if end < 0 {
				return i, []Finding{{Line: i + 1, Text: "front matter opened here is never closed with ---"}}, false
			}
			seenContent = true
			i = end + 1
		case strings.HasPrefix(t, "%%{"):
			end := closingLine(lines, i, func(s string) bool { return strings.Contains(s, "}%%") })
			if end < 0 {
				return i, []Finding{{Line: i + 1, Text: "directive %%{ opened here is never closed with }%%"}}, false
			}
			seenContent = true
			i = end + 1
		case strings.HasPrefix(t, "%%"):
			seenContent = true
			i++
		default:
			return i, nil, true
		}
	}
	return i, nil, true
}

func closingLine(lines []string, from int, closes func(string) bool) int {
	for j := from; j < len(lines); j++ {
		if closes(lines[j]) {
			return j
		}
	}
	return -1
}

// splitHeader splits the header line into its type keyword and the rest.
func splitHeader(first string) (word, rest string) {
	end := strings.IndexAny(first, " \t;")
	if end < 0 {
		return first, ""
	}
	return first[:end], first[end:]
}

func isKnownType(word string) bool {
	for _, t := range knownTypes {
		if word == t {
			return true
		}
	}
	return false
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}
