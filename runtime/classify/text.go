package classify

import (
	"regexp"
	"strings"
	"unicode"
)

// sentence is one sentence of a reply, split into negation scopes.
type sentence struct {
	// scopes are runs of words a negation can reach across; punctuation
	// (",", ":", "—", "(") and joining words ("but", "and", "however")
	// start a new scope.
	scopes [][]string
	// question is true when the sentence ends with "?".
	question bool
}

// prepare lower-cases body, drops what is not the replier's own words
// (quoted lines, fenced and inline code, HTML comments) and splits the rest
// into sentences.
func prepare(body string) ([]sentence, string) {
	text := strings.ToLower(body)
	text = strings.NewReplacer("\u2019", "'", "\u2018", "'", "\r\n", "\n").Replace(text)
	text = stripHTMLComments(text)
	text = stripQuotedAndFenced(text)
	text = stripInlineCode(text)
	var out []sentence
	start := 0
	for i, r := range text {
		switch r {
		case '.', '!', '?', ';', '\n':
			if s := splitSentence(text[start:i], r == '?'); len(s.scopes) > 0 {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := splitSentence(text[start:], false); len(s.scopes) > 0 {
		out = append(out, s)
	}
	return out, text
}

// scopeBreakers end a negation's reach.
var scopeBreakers = map[string]bool{
	"but": true, "however": true, "although": true, "though": true,
	"and": true, "so": true, "otherwise": true, "overall": true,
}

func splitSentence(s string, question bool) sentence {
	var sen sentence
	sen.question = question
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			sen.scopes = append(sen.scopes, cur)
			cur = nil
		}
	}
	for _, chunk := range strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ':' || r == '(' || r == ')' || r == '\u2014' || r == '\u2013'
	}) {
		for _, w := range words(chunk) {
			if w == "-" {
				flush()
				continue
			}
			if scopeBreakers[w] {
				flush()
			}
			cur = append(cur, w)
		}
		flush()
	}
	return sen
}

// words splits s into lower-case words: letters, digits and apostrophes,
// with inner hyphens kept ("non-blocking" is one word, so it never contains
// "blocking"); "+1" is a word, and a free-standing "-" is returned as a
// scope break.
func words(s string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		w := strings.Trim(b.String(), "-'")
		b.Reset()
		if w != "" {
			out = append(out, w)
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'':
			b.WriteRune(r)
		case r == '-' && b.Len() > 0 && i+1 < len(rs) && (unicode.IsLetter(rs[i+1]) || unicode.IsDigit(rs[i+1])):
			b.WriteRune(r)
		case r == '+' && i+1 < len(rs) && rs[i+1] == '1' && (i+2 == len(rs) || !unicode.IsDigit(rs[i+2])):
			flush()
			b.WriteRune(r)
		case r == '-' && b.Len() == 0 && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])):
			flush()
			out = append(out, "-")
		default:
			flush()
		}
	}
	flush()
	return out
}

func stripHTMLComments(s string) string {
	for {
		i := strings.Index(s, "<!--")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "-->")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + " " + s[i+j+3:]
	}
}

// stripQuotedAndFenced drops blockquote lines (someone else's words) and
// fenced code blocks (content, not the replier's verdict).
func stripQuotedAndFenced(s string) string {
	var b strings.Builder
	inFence := false
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			b.WriteString("\n")
			continue
		}
		if inFence || strings.HasPrefix(t, ">") {
			b.WriteString("\n")
			continue
		}
		b.WriteString(line)
		b.WriteString("\n")
	}
	return b.String()
}

// inlineCode is a backtick span within one line.
var inlineCode = regexp.MustCompile("`[^`\n]*`")

func stripInlineCode(s string) string { return inlineCode.ReplaceAllString(s, " ") }
