package markdown

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/the-loop/the-loop/internal/mermaid"
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

// MermaidBlocks returns the mermaid blocks of text. A line whose trimmed form
// starts with "```mermaid" opens a block; the next line whose trimmed form
// starts with "```" closes it. A block that is never closed is ignored.
func MermaidBlocks(text string) []Block {
	text = normalizeNewlines(text)
	var out []Block
	var cur *Block
	lineNo := 0
	for raw := range strings.Lines(text) {
		lineNo++
		line := strings.TrimSuffix(raw, "\n")
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
	}
	return out
}

// LintMermaid parses each block with the mermaid package and returns the
// faults that break rendering: an empty block, a first line that names no
// diagram type, and every parse error of a flowchart or sequence diagram.
// Line numbers count within the block after its surrounding blank lines are
// trimmed. A block whose diagram type is not parsed is no fault; see
// CheckMermaid for the note that says so.
func LintMermaid(blocks []Block) []string {
	faults, _ := CheckMermaid(blocks)
	return faults
}

// CheckMermaid is LintMermaid that also returns, for each block whose
// diagram type the mermaid package does not parse, the note
// "mermaid block N: mermaid diagram type X is not checked".
func CheckMermaid(blocks []Block) (faults, notes []string) {
	for _, b := range blocks {
		res := mermaid.Check(strings.TrimSpace(strings.Join(b.Lines, "\n")))
		if res.Empty {
			faults = append(faults, fmt.Sprintf("mermaid block %d is empty", b.Index))
		}
		for _, f := range res.Findings {
			if f.Line == 0 {
				faults = append(faults, fmt.Sprintf("mermaid block %d %s", b.Index, f.Text))
				continue
			}
			faults = append(faults, fmt.Sprintf("mermaid block %d line %d: %s", b.Index, f.Line, f.Text))
		}
		if note := res.UncheckedNote(); note != "" {
			notes = append(notes, fmt.Sprintf("mermaid block %d: %s", b.Index, note))
		}
	}
	return faults, notes
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
	for raw := range strings.Lines(text) {
		lineNo++
		line := strings.TrimSuffix(raw, "\n")
		switch {
		case isFence(line):
			inFence = !inFence
		case !inFence && len(line) > limit && utf8.RuneCountInString(line) > limit && strings.IndexByte(line, ' ') >= 0:
			out = append(out, lineNo)
		}
	}
	return out
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
// matching ASCII letters of s in either case, without copying s: what
// strings.Contains(LowerASCII(s), needle) answers (a needle with an
// upper-case ASCII letter is never found). It looks for the needle's least
// common byte in English text (the 'y' of "trust boundary"), in either
// case, with strings.IndexByte, and compares the needle around each.
func ContainsFoldASCII(s, needle string) bool {
	if needle == "" {
		return true
	}
	k := 0
	for i := 1; i < len(needle); i++ {
		if commonness(needle[i]) < commonness(needle[k]) {
			k = i
		}
	}
	anchors := [2]byte{needle[k], needle[k]}
	if c := needle[k]; 'a' <= c && c <= 'z' {
		anchors[1] = c - 'a' + 'A'
	}
	for j, a := range anchors {
		if j == 1 && a == anchors[0] {
			break
		}
		for from := k; from < len(s); {
			i := strings.IndexByte(s[from:], a)
			if i < 0 {
				break
			}
			start := from + i - k
			if start+len(needle) > len(s) {
				break
			}
			if EqualFoldASCII(s[start:start+len(needle)], needle) {
				return true
			}
			from += i + 1
		}
	}
	return false
}

// EqualFoldASCII reports s equal to the lowercase lower with the ASCII
// letters of s in either case (no Unicode folding: the long s is not an s).
func EqualFoldASCII(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// commonness ranks a byte by how often it occurs in English prose in lower
// case: space and 'e' highest, then the letters by frequency; any other
// byte ranks lowest.
func commonness(c byte) int { return int(byteCommonness[c]) }

// byteCommonness is commonness's table.
var byteCommonness = func() (t [256]uint8) {
	const byFrequency = " etaoinshrdlcumwfgypbvkjxqz"
	for i := 0; i < len(byFrequency); i++ {
		t[byFrequency[i]] = uint8(len(byFrequency) - i)
	}
	return t
}()
