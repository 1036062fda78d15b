package markdown

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Block is one mermaid diagram found in a markdown text.
type Block struct {
	// Index is the block's 1-based position among the text's mermaid blocks.
	Index int
	// Line is the 1-based line number of the opening ```mermaid fence.
	Line int
	// Lines are the raw lines between the opening and the closing fence.
	Lines []string
}

// diagramTypes are the first words a mermaid diagram may start with
// (matched as prefixes of the first non-blank line).
var diagramTypes = []string{
	"flowchart", "graph", "sequenceDiagram", "stateDiagram", "stateDiagram-v2",
	"classDiagram", "erDiagram", "journey", "gantt", "pie", "mindmap",
	"timeline", "gitGraph", "quadrantChart", "C4Context", "block-beta",
}

// MermaidBlocks returns the mermaid blocks of text. A line whose trimmed form
// starts with "```mermaid" opens a block; the next line whose trimmed form
// starts with "```" closes it. A block that is never closed is ignored.
func MermaidBlocks(text string) []Block {
	text = normalizeNewlines(text)
	var out []Block
	var cur *Block
	lineNo := 0
	for pos := 0; pos < len(text); {
		end := strings.IndexByte(text[pos:], '\n')
		next := len(text)
		if end >= 0 {
			end += pos
			next = end + 1
		} else {
			end = len(text)
		}
		lineNo++
		line := text[pos:end]
		trimmed := strings.TrimSpace(line)
		switch {
		case cur != nil && strings.HasPrefix(trimmed, "```"):
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.Lines = append(cur.Lines, line)
		case strings.HasPrefix(trimmed, "```mermaid"):
			cur = &Block{Index: len(out) + 1, Line: lineNo}
		}
		pos = next
	}
	return out
}

// LintMermaid checks each block for the faults that break rendering: an
// empty block, a first line that names no diagram type, and a backtick
// inside a quoted node label. Line numbers count within the block after
// its surrounding blank lines are trimmed.
func LintMermaid(blocks []Block) []string {
	var out []string
	for _, b := range blocks {
		content := strings.TrimSpace(strings.Join(b.Lines, "\n"))
		if content == "" {
			out = append(out, fmt.Sprintf("mermaid block %d is empty", b.Index))
			continue
		}
		lines := strings.Split(content, "\n")
		if first := strings.TrimSpace(lines[0]); !startsWithDiagramType(first) {
			out = append(out, fmt.Sprintf("mermaid block %d does not start with a diagram type (found %s)",
				b.Index, strconv.Quote(truncateRunes(first, 40))))
		}
		for i, l := range lines {
			if backtickInLabel(l) {
				out = append(out, fmt.Sprintf("mermaid block %d line %d: a backtick inside a node label breaks rendering — use plain text", b.Index, i+1))
			}
		}
	}
	return out
}

// LongLines returns the 1-based numbers of the lines outside code fences
// that are longer than limit characters and contain a space (a single long
// token such as a URL cannot be wrapped, so it is not reported).
func LongLines(text string, limit int) []int {
	if limit <= 0 {
		return nil
	}
	text = normalizeNewlines(text)
	var out []int
	inFence := false
	lineNo := 0
	for pos := 0; pos < len(text); {
		end := strings.IndexByte(text[pos:], '\n')
		next := len(text)
		if end >= 0 {
			end += pos
			next = end + 1
		} else {
			end = len(text)
		}
		lineNo++
		line := text[pos:end]
		switch {
		case isFence(line):
			inFence = !inFence
		case !inFence && len(line) > limit && utf8.RuneCountInString(line) > limit && strings.IndexByte(line, ' ') >= 0:
			out = append(out, lineNo)
		}
		pos = next
	}
	return out
}

func startsWithDiagramType(first string) bool {
	for _, t := range diagramTypes {
		if strings.HasPrefix(first, t) {
			return true
		}
	}
	return false
}

// backtickInLabel reports `[`, optional whitespace, `"`, then a backtick
// before the closing quote.
func backtickInLabel(line string) bool {
	for i := 0; i < len(line); i++ {
		if line[i] != '[' {
			continue
		}
		j := i + 1
		for j < len(line) && isSpace(line[j]) {
			j++
		}
		if j >= len(line) || line[j] != '"' {
			continue
		}
		for k := j + 1; k < len(line) && line[k] != '"'; k++ {
			if line[k] == '`' {
				return true
			}
		}
	}
	return false
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'
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

// LowerASCII lowercases the ASCII letters of s and keeps every other byte:
// for matching ASCII words it equals strings.ToLower, at a fraction of the
// cost on text with non-ASCII punctuation.
func LowerASCII(s string) string {
	i := 0
	for i < len(s) && !('A' <= s[i] && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// ContainsFoldASCII reports whether s contains the lowercase ASCII needle,
// matching ASCII letters of s in either case, without copying s.
func ContainsFoldASCII(s, needle string) bool {
	if needle == "" {
		return true
	}
	first := needle[0]
	upper := first
	if 'a' <= first && first <= 'z' {
		upper = first - 'a' + 'A'
	}
	for i := 0; i+len(needle) <= len(s); i++ {
		if c := s[i]; c != first && c != upper {
			continue
		}
		match := true
		for j := 1; j < len(needle); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != needle[j] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}
