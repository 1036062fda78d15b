package classify

import (
	"strings"

	"github.com/the-loop/the-loop/internal/plaintext"
)

// tokens splits folded text into words (letters, digits, inner apostrophes
// and hyphens; "+1" and "-1" are words; "@login" is one word),
// placeholders and single punctuation tokens. Emoticons become
// placeholders.
func tokens(s string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		w := strings.Trim(b.String(), "-'")
		b.Reset()
		if w != "" {
			out = append(out, w)
		}
	}
next:
	for i := 0; i < len(s); i++ {
		c := s[i]
		if b.Len() == 0 && (i == 0 || !isWordByte(s[i-1])) {
			for _, e := range emoticons {
				if strings.HasPrefix(s[i:], e.text) && (i+len(e.text) == len(s) || !isWordByte(s[i+len(e.text)]) || !isLetter(e.text[len(e.text)-1])) {
					flush()
					if e.benign {
						out = append(out, string(plaintext.Benign))
					} else {
						out = append(out, string(plaintext.Symbol))
					}
					i += len(e.text) - 1
					continue next
				}
			}
		}
		switch {
		case isWordByte(c) || c == '\'':
			b.WriteByte(c)
		case c == '-' && b.Len() > 0 && i+1 < len(s) && isWordByte(s[i+1]):
			b.WriteByte(c)
		case c == '@' && b.Len() == 0 && i+1 < len(s) && isWordByte(s[i+1]):
			b.WriteByte(c)
		case c == '@' && b.Len() > 0:
			b.WriteByte(c) // an e-mail address is one word
		case (c == '+' || c == '-') && b.Len() == 0 && i+1 < len(s) && s[i+1] == '1' && (i+2 == len(s) || !isWordByte(s[i+2])):
			out = append(out, string(c)+"1")
			i++
		case c == '/' && b.Len() == 0 && i+1 < len(s) && s[i+1] == 's' && (i+2 == len(s) || !isWordByte(s[i+2])):
			out = append(out, "/s")
			i++
		case c == '"':
			if j := strings.IndexByte(s[i+1:], '"'); j >= 0 {
				// Quoted words are someone's words or a mention, not the
				// author's own use of them: a quote holding words of a
				// verdict is a mark that withholds; a quoted term ("tenant")
				// is read as a word.
				flush()
				inner := tokens(s[i+1 : i+1+j])
				if quotesVerdict(inner) {
					out = append(out, string(plaintext.Hidden))
				} else {
					out = append(out, inner...)
				}
				i += j + 1
				continue
			}
			flush()
			out = append(out, "\"")
		case c == ' ' || c == '\t':
			flush()
		default:
			flush()
			switch {
			case c == plaintext.Symbol || c == plaintext.Benign || c == plaintext.Hidden:
				out = append(out, string(c))
			case strings.IndexByte(breakers, c) >= 0:
				out = append(out, string(c))
			}
		}
	}
	flush()
	return out
}

func isWordByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' }
