// Package plaintext reduces a ticket comment to the words its author
// visibly wrote as their own, for the readers that decide on it (reply
// classification, control commands).
//
// Own drops, keeping the line structure of what remains: HTML comments and
// elements that hide or quote text (<details> with its summary, <del>, <s>,
// <strike>, <code>, <pre>, <blockquote>, <script>, <style>, <template>),
// every other tag (its text kept), block quotes with their lazy continuation
// lines, fenced and indented code, inline code spans, struck-through text
// (~~x~~ and ~x~), unticked task-list items, images, link destinations, link
// reference definitions ("[//]: # (x)", never shown) and bare URLs; HTML
// entities are decoded afterwards, as a browser would show them. Marked is
// Own with each inline part that is shown but is not the author's own words
// (inline code, struck-through text) replaced by Opaque instead of removed,
// so a reader knows something stood there.
//
// Fold then makes the text comparable: invisible characters are removed,
// look-alike letters become their ASCII letters, typographic punctuation its
// ASCII form, everything is lower-cased, and any other symbol becomes a
// placeholder (Benign for the emoji of assent, Symbol for every other). What
// cannot be folded safely is an *Unreadable error naming where it is: the
// text is then not read at all.
package plaintext

import (
	"html"
	"regexp"
	"strings"
	"sync"

	"github.com/the-loop/the-loop/internal/lazyre"
)

// Own returns the text of body its author visibly wrote as their own.
func Own(body string) string { return strings.Join(OwnLines(body), "\n") }

// Opaque stands, in Marked text, for an inline part that is shown but is not
// the author's own plain words: a code span or struck-through text.
const Opaque = '\uFFFC'

// Marked is Own, except that inline code spans and struck-through text
// (Markdown or HTML) are replaced by Opaque rather than removed.
func Marked(body string) string { return strings.Join(ownLines(body, string(Opaque)), "\n") }

// Lines splits body into lines as Own reads it ("\r\n" and "\r" end a line
// too).
func Lines(body string) []string {
	s := strings.ReplaceAll(body, "\r\n", "\n")
	return strings.Split(strings.ReplaceAll(s, "\r", "\n"), "\n")
}

// OwnLines is Own line by line: element i is what remains of Lines(body)[i]
// ("" for a line that is not the author's own words at all).
func OwnLines(body string) []string { return ownLines(body, " ") }

// ownLines is OwnLines with mark standing for each inline part that is shown
// but is not the author's own words (" " drops it).
func ownLines(body, mark string) []string {
	s := strings.Join(Lines(body), "\n")
	s = dropHTMLComments(s, mark)
	s = dropHidingElements(s, mark)
	s = anyTag.ReplaceAllStringFunc(s, func(tag string) string {
		if crossesBlock(tag) {
			return tag // not one tag where Markdown reads it: its lines are read as they stand
		}
		return " " + keepNewlines(tag)
	})
	lines := dropBlocks(strings.Split(s, "\n"), mark)
	for i, l := range lines {
		lines[i] = html.UnescapeString(inlineOwn(l, mark))
	}
	return lines
}

// dropHTMLComments removes every <!-- ... --> (an unterminated one hides
// the rest of the comment, as it does on GitHub), leaving mark.
func dropHTMLComments(s, mark string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "<!--")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		j := strings.Index(s[i+4:], "-->")
		if j < 0 {
			return b.String() + mark + keepNewlines(s[i:])
		}
		b.WriteString(mark + keepNewlines(s[i:i+4+j+3]))
		s = s[i+4+j+3:]
	}
}

// keepNewlines returns the newlines of s, so removing s keeps line numbers.
func keepNewlines(s string) string { return strings.Repeat("\n", strings.Count(s, "\n")) }

// hidingElements are HTML elements whose content is not the author's own
// visible words: struck through, code, quoted, or never shown (a <details>
// body is folded away, and its <summary> goes with it).
var hidingElements = []string{"del", "s", "strike", "code", "pre", "blockquote", "script", "style", "template", "textarea", "kbd", "samp", "details", "summary"}

// markedElements are the hiding elements Marked keeps a mark for: those
// shown inline but not the author's plain words, and those never shown at
// all (a hidden part beside an approval keeps it from counting). Quotes and
// code blocks are someone else's words, shown as such: they leave none.
var markedElements = map[string]bool{"del": true, "s": true, "strike": true, "code": true, "kbd": true,
	"samp": true, "details": true, "summary": true, "script": true, "style": true, "template": true}

// hidingOpen matches a hiding element's opening tag (compiled on first
// use, as every expression of this package costlier than lazyre's bound).
var hidingOpen = lazyre.New(`(?i)<(` + strings.Join(hidingElements, "|") + `)(\s[^>]*)?>`)

// hidingClose matches each hiding element's closing tag: fourteen
// expressions, compiled on first use.
var hidingClose = sync.OnceValue(func() map[string]*regexp.Regexp {
	m := map[string]*regexp.Regexp{}
	for _, e := range hidingElements {
		m[e] = regexp.MustCompile(`(?i)</` + e + `\s*>`)
	}
	return m
})

// dropHidingElements removes each hiding element with its content (an
// inline one leaves mark); an unclosed one hides the rest of the text. A tag
// that reaches past its paragraph is no tag (Markdown reads the blocks
// first: crossesBlock), and an element whose content does leaves mark
// whatever it is: where a browser closes it is not for this reader to guess,
// so no approval is read beside it.
func dropHidingElements(s, mark string) string {
	var b strings.Builder
	for {
		loc := hidingOpen().FindStringSubmatchIndex(s)
		if loc == nil {
			b.WriteString(s)
			return b.String()
		}
		if crossesBlock(s[loc[0]:loc[1]]) {
			b.WriteString(s[:loc[0]+1])
			s = s[loc[0]+1:]
			continue
		}
		b.WriteString(s[:loc[0]])
		name := strings.ToLower(s[loc[2]:loc[3]])
		stop := closingTag(hidingClose()[name], s, loc[1])
		if stop < 0 {
			return b.String() + mark + keepNewlines(s[loc[0]:])
		}
		gap := " "
		if markedElements[name] || crossesBlock(s[loc[0]:stop]) {
			gap = mark
		}
		b.WriteString(gap + keepNewlines(s[loc[0]:stop]))
		s = s[stop:]
	}
}

// closingTag is the end of the first match of close in s from start that
// stays within one paragraph, or -1.
func closingTag(close *regexp.Regexp, s string, start int) int {
	for start <= len(s) {
		end := close.FindStringIndex(s[start:])
		if end == nil {
			return -1
		}
		if !crossesBlock(s[start+end[0] : start+end[1]]) {
			return start + end[1]
		}
		start += end[0] + 1
	}
	return -1
}

// crossesBlock reports whether the text of one HTML construct goes on past
// the paragraph it starts in: over a blank line, or onto a line that opens a
// block quote (up to three spaces, then ">"). Markdown reads the blocks
// before any tag, so GitHub shows such text as it stands, the quote as a
// quote.
func crossesBlock(s string) bool {
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return false
		}
		s = s[i+1:]
		line, _, _ := strings.Cut(s, "\n")
		if strings.TrimSpace(line) == "" {
			return true
		}
		if t := strings.TrimLeft(line, " "); len(line)-len(t) <= 3 && strings.HasPrefix(t, ">") {
			return true
		}
	}
}

// anyTag is any remaining HTML tag; its text content is kept.
var anyTag = regexp.MustCompile(`</?[A-Za-z][A-Za-z0-9-]*(\s[^<>]*)?/?>`)

// dropBlocks removes fenced code, indented code, block quotes (with their
// lazy continuation lines) and unticked task items; a ticked item keeps its
// text without the box.
func dropBlocks(lines []string, mark string) []string {
	out := make([]string, len(lines))
	fence := ""
	quote, prevBlank, prevCode := false, true, false
	for i, line := range lines {
		t := strings.TrimLeft(line, " ")
		indent := len(line) - len(t)
		blank := strings.TrimSpace(line) == ""
		switch {
		case fence != "":
			if closesFence(t, fence) && indent < 4 {
				fence = ""
			}
		case indent < 4 && opensFence(t) != "":
			fence = opensFence(t)
		case blank:
			quote = false
		case quote:
			// a lazy continuation line of a block quote
		case indent < 4 && isQuote(t):
			quote = true
		case (indent >= 4 || strings.HasPrefix(line, "\t")) && (prevBlank || prevCode):
			prevCode = true
			prevBlank = false
			continue
		case isUntickedTask(t):
		case indent < 4 && linkRefDef.MatchString(t):
			if mark != " " {
				out[i] = mark // never shown
			}
		default:
			out[i] = untickBox(line)
		}
		prevCode = false
		prevBlank = blank
	}
	return out
}

// opensFence returns the fence a line opens (``` or ~~~, three or more), or "".
func opensFence(t string) string {
	for _, c := range []string{"`", "~"} {
		n := len(t) - len(strings.TrimLeft(t, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

func closesFence(t, fence string) bool {
	c := fence[:1]
	n := len(t) - len(strings.TrimLeft(t, c))
	return n >= len(fence) && strings.TrimSpace(t[n:]) == ""
}

// listMarker matches a list item's marker ("- ", "* ", "+ ", "1. ", "1) ").
var listMarker = regexp.MustCompile(`^(?:[-*+]|\d{1,9}[.)])(?:\s+|$)`)

// isQuote reports a block quote line, also inside a list item ("- > x").
func isQuote(t string) bool {
	for {
		if strings.HasPrefix(t, ">") {
			return true
		}
		m := listMarker.FindString(t)
		if m == "" {
			return false
		}
		t = strings.TrimLeft(t[len(m):], " ")
	}
}

// linkRefDef is a link reference definition ("[label]: destination"),
// which Markdown never shows; "[//]: # (text)" is the usual hidden comment.
var linkRefDef = regexp.MustCompile(`^\[[^\]]+\]:(?:\s|$)`)

var (
	untickedTask = regexp.MustCompile(`^(?:[-*+]|\d{1,9}[.)])\s+\[\s?\]`)
	tickedBox    = lazyre.New(`^(\s*(?:[-*+]|\d{1,9}[.)])\s+)\[[xX]\]`)
)

func isUntickedTask(t string) bool { return untickedTask.MatchString(t) }

func untickBox(line string) string { return tickedBox().ReplaceAllString(line, "$1") }

var (
	strikeDouble = regexp.MustCompile(`~~[^~\n]*~~`)
	strikeSingle = regexp.MustCompile(`~[^~\s][^~\n]*~|~[^~\s]~`)
	image        = regexp.MustCompile(`!\[[^\]\n]*\]\([^)\n]*\)`)
	linkDest     = regexp.MustCompile(`\]\([^)\n]*\)`)
	bareURL      = regexp.MustCompile(`(?i)\b(?:https?|ftp)://\S+|\bwww\.\S+`)
)

// inlineOwn drops a line's images, link destinations and URLs, and puts
// mark for its inline code spans and struck-through text.
func inlineOwn(line, mark string) string {
	if line == "" {
		return line
	}
	line = dropCodeSpans(line, mark)
	line = strikeDouble.ReplaceAllString(line, mark)
	line = strikeSingle.ReplaceAllString(line, mark)
	line = image.ReplaceAllString(line, " ")
	line = linkDest.ReplaceAllString(line, "] ")
	return bareURL.ReplaceAllString(line, " ")
}

// dropCodeSpans replaces `code` spans by mark: a run of n backticks up to
// the next run of exactly n. An unmatched run stays as literal text.
func dropCodeSpans(line, mark string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		end := closingRun(line, i+n, n)
		if end < 0 {
			b.WriteString(line[i : i+n])
			i += n
			continue
		}
		b.WriteString(mark)
		i = end + n
	}
	return b.String()
}

// closingRun finds the next run of exactly n backticks at or after from.
func closingRun(line string, from, n int) int {
	for j := from; j < len(line); {
		if line[j] != '`' {
			j++
			continue
		}
		k := 0
		for j+k < len(line) && line[j+k] == '`' {
			k++
		}
		if k == n {
			return j
		}
		j += k
	}
	return -1
}
