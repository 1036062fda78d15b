package plaintext

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// escapes are the terminal escape sequences tool output carries: CSI
// (colours, cursor moves), OSC (titles, hyperlinks, ended by BEL or ST) and
// the two-character escapes.
var escapes = regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]`)

// Printable is s as it can be shown to a reader or quoted into a prompt:
// terminal escape sequences removed, carriage returns made line breaks,
// and every other control, format (bidirectional, zero-width) or
// private-use character and every invalid byte dropped. Line breaks and
// tabs stay.
func Printable(s string) string {
	s = escapes.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for i, w := 0, 0; i < len(s); i += w {
		r, size := utf8.DecodeRuneInString(s[i:])
		w = size
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			b.WriteByte('\n')
		case r == utf8.RuneError && size <= 1,
			unicode.Is(unicode.Cc, r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Co, r), unicode.Is(unicode.Cs, r),
			unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
