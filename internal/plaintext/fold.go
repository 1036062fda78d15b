package plaintext

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Symbol stands, in folded text, for any character that is neither a
// letter, a digit, ASCII punctuation nor white space: emoji, arrows, marks.
// Readers never interpret it, and a reply carrying one is never an approval.
const Symbol = '\x1a'

// Errors Fold reports. Their text is written for the people who read a
// gate's reason; it never quotes the input.
var (
	// ErrBidi: the text carries bidirectional controls, so the order in
	// which it is displayed may differ from the order in which it is read.
	ErrBidi = errors.New("it contains bidirectional control characters, so what it shows may differ from what it says")
	// ErrControl: the text carries control characters a comment never shows.
	ErrControl = errors.New("it contains control characters that are never displayed")
	// ErrUnfoldable: a letter or digit outside the folding tables.
	ErrUnfoldable = errors.New("it contains letters the reader cannot compare with plain ASCII (non-Latin script or look-alike characters)")
)

// Fold lower-cases s and folds it to ASCII: invisible characters (zero-width
// spaces and joiners, soft hyphens, variation selectors, combining marks)
// are removed, look-alike letters (Cyrillic, Greek, fullwidth, mathematical,
// small capitals, Latin letters with diacritics) become their ASCII letters,
// typographic quotes, dashes and question marks their ASCII forms, other
// white space a space, and any other symbol becomes Symbol. Text holding a
// bidirectional control, a control character, or a letter or digit outside
// the tables is refused with an error.
func Fold(s string) (string, error) {
	var b strings.Builder
	b.Grow(len(s))
	word := make([]rune, 0, 32)
	flush := func() error {
		if len(word) == 0 {
			return nil
		}
		err := foldWord(&b, word)
		word = word[:0]
		return err
	}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || r == '\'' || invisible(r) && !isBidi(r) {
			word = append(word, r)
			continue
		}
		if err := flush(); err != nil {
			return "", err
		}
		switch {
		case r < 0x80:
			switch {
			case r == '\n' || r == '\t':
				b.WriteRune(r)
			case r < 0x20 || r == 0x7f:
				return "", ErrControl
			default:
				b.WriteRune(unicode.ToLower(r))
			}
		case isBidi(r):
			return "", ErrBidi
		case unicode.Is(unicode.Cc, r):
			return "", ErrControl
		case r == 0x2028 || r == 0x2029:
			b.WriteByte('\n')
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		default:
			if f, ok := foldRune(r); ok {
				b.WriteString(f)
			} else {
				b.WriteRune(Symbol)
			}
		}
	}
	if err := flush(); err != nil {
		return "", err
	}
	return b.String(), nil
}

// foldWord folds one word. A letter of another script that only looks like
// a Latin one (Cyrillic "о", Greek "ο") is folded only inside a word that
// also holds Latin letters — a spoofed word; a word written wholly in that
// script is that language, which the reader does not read.
func foldWord(b *strings.Builder, word []rune) error {
	latin, foreign := false, false
	for _, r := range word {
		switch {
		case r < 0x80 && unicode.IsLetter(r), r >= 0xc0 && r <= 0x17f, r >= 0xff21 && r <= 0xff5a,
			r >= 0x1d400 && r <= 0x1d6a3:
			latin = true
		case scriptLookalike(r):
			foreign = true
		}
	}
	if foreign && !latin {
		return ErrUnfoldable
	}
	for _, r := range word {
		switch {
		case invisible(r):
		case r < 0x80:
			b.WriteRune(unicode.ToLower(r))
		default:
			f, ok := foldRune(r)
			if !ok {
				return ErrUnfoldable
			}
			b.WriteString(f)
		}
	}
	return nil
}

// scriptLookalike reports a folded letter of a non-Latin script.
func scriptLookalike(r rune) bool {
	return r >= 0x370 && r <= 0x3ff || r >= 0x400 && r <= 0x52f || r >= 0x530 && r <= 0x58f
}

// isBidi reports a bidirectional formatting character.
func isBidi(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// invisible reports a character that displays as nothing: format
// characters, combining marks, variation selectors, Hangul fillers.
func invisible(r rune) bool {
	switch {
	case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Mn, r), unicode.Is(unicode.Me, r):
		return true
	case r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0100 && r <= 0xe01ef:
		return true
	case r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0, r == 0x180e:
		return true
	}
	return false
}

// foldRune returns the ASCII text a non-ASCII character folds to.
func foldRune(r rune) (string, bool) {
	switch {
	case r >= 0xff01 && r <= 0xff5e: // fullwidth ASCII
		return strings.ToLower(string(r - 0xfee0)), true
	case r >= 0x1d400 && r <= 0x1d6a3: // mathematical alphanumeric letters
		i := int(r-0x1d400) % 52
		if i >= 26 {
			i -= 26
		}
		return string(rune('a' + i)), true
	case r >= 0x1d7ce && r <= 0x1d7ff: // mathematical digits
		return string(rune('0' + int(r-0x1d7ce)%10)), true
	case r >= 0xc0 && r <= 0xff:
		f := latin1[r-0xc0]
		return f, f != ""
	case r >= 0x100 && r <= 0x17f:
		return latinExtA[r-0x100], true
	}
	f, ok := lookalikes[r]
	return f, ok
}

// Unsafe returns the first character of s that must never appear in an
// identifier a person reads (a work-item id, a branch name): a control
// character (escape sequences included), a bidirectional or other format
// character (zero-width spaces and joiners included), a combining mark on
// nothing, a line or paragraph separator, a non-space white space, or a
// private-use, surrogate or unassigned code point. ok is false when s holds
// none.
func Unsafe(s string) (rune, bool) {
	for _, r := range s {
		switch {
		case r == utf8.RuneError,
			unicode.Is(unicode.Cc, r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Co, r), unicode.Is(unicode.Cs, r),
			unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r),
			unicode.IsSpace(r) && r != ' ',
			!unicode.IsPrint(r) && r != ' ',
			invisible(r):
			return r, true
		}
	}
	return 0, false
}
