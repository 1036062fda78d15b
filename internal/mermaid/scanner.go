package mermaid

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// scanner walks a diagram body byte by byte, counting lines.
type scanner struct {
	src      string
	pos      int
	line     int
	findings []Finding
	// fatal stops the parse: the rest of the text cannot be read reliably
	// (an unclosed quote swallows everything after it).
	fatal bool
}

func newScanner(src string, firstLine int) *scanner {
	return &scanner{src: src, line: firstLine}
}

func (s *scanner) eof() bool { return s.pos >= len(s.src) }

func (s *scanner) peek() byte {
	if s.eof() {
		return 0
	}
	return s.src[s.pos]
}

func (s *scanner) peekAt(off int) byte {
	if s.pos+off >= len(s.src) {
		return 0
	}
	return s.src[s.pos+off]
}

func (s *scanner) has(prefix string) bool { return strings.HasPrefix(s.src[s.pos:], prefix) }

// advance moves n bytes on, counting the newlines it passes.
func (s *scanner) advance(n int) {
	end := s.pos + n
	if end > len(s.src) {
		end = len(s.src)
	}
	s.line += strings.Count(s.src[s.pos:end], "\n")
	s.pos = end
}

// skipBlanks skips spaces and tabs (not newlines).
func (s *scanner) skipBlanks() {
	for !s.eof() && (s.src[s.pos] == ' ' || s.src[s.pos] == '\t' || s.src[s.pos] == '\r') {
		s.pos++
	}
}

// skipLine moves to the next newline (not past it).
func (s *scanner) skipLine() {
	if i := strings.IndexByte(s.src[s.pos:], '\n'); i >= 0 {
		s.pos += i
		return
	}
	s.pos = len(s.src)
}

// atStatementEnd reports a newline, a semicolon or the end. (A %% comment
// must stand on a line of its own.)
func (s *scanner) atStatementEnd() bool {
	return s.eof() || s.peek() == '\n' || s.peek() == ';'
}

func (s *scanner) errorf(line int, format string, args ...any) {
	s.findings = append(s.findings, Finding{Line: line, Text: fmt.Sprintf(format, args...)})
}

// word returns the run of ASCII letters at the cursor without moving.
func (s *scanner) word() string {
	i := s.pos
	for i < len(s.src) && isASCIILetter(s.src[i]) {
		i++
	}
	return s.src[s.pos:i]
}

// keyword reports whether kw stands at the cursor as a whole word.
func (s *scanner) keyword(kw string) bool {
	if !s.has(kw) {
		return false
	}
	next := s.peekAt(len(kw))
	return !(isASCIILetter(next) || next >= '0' && next <= '9' || next == '_' || next == '-')
}

// rest returns the text from the cursor to the end of the line, trimmed,
// and moves to the newline.
func (s *scanner) rest() string {
	start := s.pos
	s.skipLine()
	return strings.TrimSpace(s.src[start:s.pos])
}

// quoted reads a "..." string that may span lines; the cursor is on the
// opening quote. It returns false (and stops the parse) when it never closes.
func (s *scanner) quoted(what string) (string, bool) {
	start, line := s.pos, s.line
	end := strings.IndexByte(s.src[start+1:], '"')
	if end < 0 {
		s.errorf(line, "%s: the quote opened here is never closed", what)
		s.fatal = true
		s.pos = len(s.src)
		return "", false
	}
	s.advance(end + 2)
	return s.src[start+1 : start+1+end], true
}

// markdownString reads a "`...`" markdown string; the cursor is on the
// opening quote. Inside, a backtick may only close it and a quote may not
// appear.
func (s *scanner) markdownString(what string) (string, bool) {
	start, line := s.pos, s.line
	body := s.src[start+2:]
	end := strings.Index(body, "`\"")
	if end < 0 {
		s.errorf(line, "%s: the markdown string opened here (\"`) is never closed with `\"", what)
		s.fatal = true
		s.pos = len(s.src)
		return "", false
	}
	text := body[:end]
	s.advance(end + 4)
	if i := strings.IndexAny(text, "`\""); i >= 0 {
		s.errorf(line, "%s: a markdown string cannot contain %s — it ends only at `\"", what, strconv.Quote(text[i:i+1]))
		return text, false
	}
	return text, true
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isIDByte reports the ASCII bytes a flowchart node id may contain
// (letters, digits and the punctuation mermaid's NODE_STRING accepts);
// '-', '=' and ':' are decided by their context in nodeID.
func isIDByte(c byte) bool {
	if isASCIILetter(c) || c >= '0' && c <= '9' {
		return true
	}
	return strings.IndexByte("!#$%&'*+.?\\_/`,", c) >= 0
}

// nodeID reads a flowchart node id at the cursor ("" when none).
func (s *scanner) nodeID() string {
	start := s.pos
	for !s.eof() {
		c := s.peek()
		switch {
		case c == '-':
			if n := s.peekAt(1); n == '>' || n == '-' || n == '.' {
				return s.src[start:s.pos]
			}
		case c == '=':
			if s.peekAt(1) == '=' {
				return s.src[start:s.pos]
			}
		case c == ':':
			if s.has(":::") {
				return s.src[start:s.pos]
			}
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s.src[s.pos:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return s.src[start:s.pos]
			}
			s.pos += size
			continue
		case !isIDByte(c):
			return s.src[start:s.pos]
		}
		s.pos++
	}
	return s.src[start:s.pos]
}

// show quotes a short excerpt of the text at the cursor for a message.
func (s *scanner) show() string {
	end := strings.IndexByte(s.src[s.pos:], '\n')
	if end < 0 {
		end = len(s.src) - s.pos
	}
	return strconv.Quote(truncateRunes(strings.TrimSpace(s.src[s.pos:s.pos+end]), 30))
}
