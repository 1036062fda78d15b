package plaintext

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Placeholders in folded text. Readers never interpret them as words.
const (
	// Symbol stands for any character that is neither a letter, a digit,
	// ASCII punctuation, white space nor one of the emoji of assent: other
	// emoji, arrows, marks, enclosed letters. A reply carrying one is never
	// an approval.
	Symbol = '\x1a'
	// Benign stands for an emoji of assent or good cheer (👍 ✅ 🚀 🎉 🙏 ❤️
	// …): it never decides anything, and it withholds nothing either.
	Benign = '\x1c'
	// Hidden stands for an Opaque mark of Marked text: an inline part that is
	// shown but is not the author's own plain words.
	Hidden = '\x1d'
)

// The kinds of unreadable text. Their text is written for the people who
// read a gate's reason; it never quotes the input.
var (
	// ErrBidi: the text carries bidirectional controls, so the order in
	// which it is displayed may differ from the order in which it is read.
	ErrBidi = errors.New("it contains bidirectional control characters, so what it shows may differ from what it says")
	// ErrControl: the text carries control characters a comment never shows.
	ErrControl = errors.New("it contains control characters that are never displayed")
	// ErrInvisible: the text carries tag characters, or a run of invisible
	// characters, that can hold text no one sees.
	ErrInvisible = errors.New("it contains invisible characters that can carry text no one sees")
	// ErrUnfoldable: a letter or digit outside the folding tables.
	ErrUnfoldable = errors.New("it contains letters the reader cannot compare with plain ASCII (non-Latin script or look-alike characters)")
	// ErrMixedScript: a word mixes Latin letters with look-alikes of another
	// script ("nоt" with a Cyrillic "о"), as a spoofed word does.
	ErrMixedScript = errors.New("it mixes letters of different scripts in one word, as a spoofed word does")
	// ErrUndisplayable: a private-use or unassigned code point, or bytes that
	// are not UTF-8: what it shows is up to the font.
	ErrUndisplayable = errors.New("it contains characters with no agreed appearance (private use, unassigned or malformed)")
)

// Unreadable says why and where text cannot be folded. It never quotes the
// text: it names the line, the column and the code point.
type Unreadable struct {
	Err    error
	Line   int // 1-based
	Column int // 1-based, in characters
	Rune   rune
}

func (e *Unreadable) Error() string {
	return fmt.Sprintf("%v (line %d, character %d: U+%04X)", e.Err, e.Line, e.Column, e.Rune)
}

// Unwrap returns the kind (ErrBidi, ErrControl, …).
func (e *Unreadable) Unwrap() error { return e.Err }

// Where describes the place without the kind: "line 2, character 9 (U+E0020)".
func (e *Unreadable) Where() string {
	return fmt.Sprintf("line %d, character %d (U+%04X)", e.Line, e.Column, e.Rune)
}

// maxInvisibleRun is the longest run of invisible characters Fold removes
// silently; a longer run can spell out hidden text (one bit a character).
const maxInvisibleRun = 2

// Fold lower-cases s and folds it to ASCII: invisible characters (zero-width
// spaces and joiners, soft hyphens, variation selectors, combining marks)
// are removed, look-alike letters (Cyrillic, Greek, fullwidth, mathematical,
// small capitals, Latin letters with diacritics) become their ASCII letters,
// typographic quotes, dashes and question marks their ASCII forms, other
// white space a space, an emoji of assent becomes Benign, Opaque becomes
// Hidden, and any other symbol becomes Symbol. Text holding a bidirectional
// control, a control character, a tag character, a run of more than two
// invisible characters, a private-use or unassigned code point, malformed
// UTF-8, or a letter or digit outside the tables is refused with an
// *Unreadable error.
func Fold(s string) (string, error) {
	f := folder{line: 1}
	f.b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		f.col++
		if r == utf8.RuneError && size == 1 {
			return "", f.fail(ErrUndisplayable, r)
		}
		if err := f.rune(r); err != nil {
			return "", err
		}
		if r == '\n' {
			f.line, f.col = f.line+1, 0
		}
	}
	if err := f.flush(); err != nil {
		return "", err
	}
	return f.b.String(), nil
}

// folder is Fold's state: the output, the word being read and the place.
type folder struct {
	b         strings.Builder
	word      []rune
	wordAt    [2]int // line and column of the word's first character
	line, col int
	invisible int // the length of the current run of invisible characters
}

func (f *folder) fail(kind error, r rune) error {
	return &Unreadable{Err: kind, Line: f.line, Column: f.col, Rune: r}
}

func (f *folder) rune(r rune) error {
	switch {
	case isTag(r):
		return f.fail(ErrInvisible, r)
	case isBidi(r):
		return f.fail(ErrBidi, r)
	case invisible(r):
		f.invisible++
		if f.invisible > maxInvisibleRun {
			return f.fail(ErrInvisible, r)
		}
	default:
		f.invisible = 0
	}
	if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || r == '\'' || invisible(r) {
		if len(f.word) == 0 {
			f.wordAt = [2]int{f.line, f.col}
		}
		f.word = append(f.word, r)
		return nil
	}
	if err := f.flush(); err != nil {
		return err
	}
	switch {
	case r < 0x80:
		switch {
		case r == '\n' || r == '\t':
			f.b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			return f.fail(ErrControl, r)
		default:
			f.b.WriteRune(unicode.ToLower(r))
		}
	case unicode.Is(unicode.Cc, r):
		return f.fail(ErrControl, r)
	case unicode.Is(unicode.Co, r) || !assigned(r):
		return f.fail(ErrUndisplayable, r)
	case r == Opaque:
		f.b.WriteRune(Hidden)
	case r == 0x2028 || r == 0x2029:
		f.b.WriteByte('\n')
	case unicode.IsSpace(r):
		f.b.WriteByte(' ')
	case skinTone(r):
		// a modifier of the emoji before it
	default:
		if s, ok := foldRune(r); ok {
			f.b.WriteString(s)
		} else if benignEmoji[r] {
			f.b.WriteRune(Benign)
		} else {
			f.b.WriteRune(Symbol)
		}
	}
	return nil
}

// flush folds the word being read. A word that mixes Latin letters with a
// look-alike of another script (Cyrillic "о", Greek "ο") is a spoof and is
// not read; a word written wholly in that script is that language, which
// the reader does not read either. Styled Latin letters (fullwidth,
// mathematical, small capitals, diacritics) fold to ASCII.
func (f *folder) flush() error {
	if len(f.word) == 0 {
		return nil
	}
	defer func() { f.word = f.word[:0] }()
	latin, foreign := false, false
	for _, r := range f.word {
		switch {
		case r < 0x80 && unicode.IsLetter(r), r >= 0xc0 && r <= 0x17f, r >= 0xff21 && r <= 0xff5a,
			r >= 0x1d400 && r <= 0x1d6a3:
			latin = true
		case scriptLookalike(r):
			foreign = true
		}
	}
	at := func(i int) error {
		r := f.word[i]
		if !assigned(r) || unicode.Is(unicode.Co, r) {
			return &Unreadable{Err: ErrUndisplayable, Line: f.wordAt[0], Column: f.wordAt[1] + i, Rune: r}
		}
		return &Unreadable{Err: ErrUnfoldable, Line: f.wordAt[0], Column: f.wordAt[1] + i, Rune: r}
	}
	for i, r := range f.word {
		if foreign && scriptLookalike(r) {
			if latin {
				return &Unreadable{Err: ErrMixedScript, Line: f.wordAt[0], Column: f.wordAt[1] + i, Rune: r}
			}
			return at(i)
		}
	}
	for i, r := range f.word {
		switch {
		case invisible(r):
		case r < 0x80:
			f.b.WriteRune(unicode.ToLower(r))
		default:
			s, ok := foldRune(r)
			if !ok {
				return at(i)
			}
			f.b.WriteString(s)
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

// isTag reports a tag character (U+E0000–U+E007F): invisible, and able to
// spell out ASCII text that some programs read and people never see.
func isTag(r rune) bool { return r >= 0xe0000 && r <= 0xe007f }

// skinTone reports an emoji skin-tone modifier.
func skinTone(r rune) bool { return r >= 0x1f3fb && r <= 0x1f3ff }

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

// assigned reports a code point Unicode assigns (in any category).
func assigned(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cc, unicode.Cf,
		unicode.Co)
}

// benignEmoji are the emoji of assent and good cheer. Every other symbol
// withholds an approval (👎 ❌ 🙄 🤔 ⚠️ ⏳ …): the list is short on purpose.
var benignEmoji = func() map[rune]bool {
	m := map[rune]bool{}
	for _, r := range []rune{
		0x1f44d, 0x1f44c, 0x1f44f, 0x1f64c, 0x1f64f, 0x1f4aa, 0x1f91d, 0x1f44b, // 👍 👌 👏 🙌 🙏 💪 🤝 👋
		0x2705, 0x2714, 0x2611, 0x2713, 0x1f197, 0x1f7e2, // ✅ ✔ ☑ ✓ 🆗 🟢
		0x1f680, 0x1f389, 0x1f38a, 0x1f973, 0x1f3c6, 0x1f947, 0x1f3af, // 🚀 🎉 🎊 🥳 🏆 🥇 🎯
		0x1f31f, 0x2b50, 0x2728, 0x1f4ab, 0x1f525, 0x1f4af, // 🌟 ⭐ ✨ 💫 🔥 💯
		0x2764, 0x2665, 0x1f49a, 0x1f499, 0x1f49c, 0x1f9e1, 0x1f49b, 0x1f90d, 0x1f496, 0x1f497, // hearts
		0x1f60d, 0x1f970, 0x1f929, 0x1f600, 0x1f603, 0x1f604, 0x1f601, 0x1f60a, 0x1f642, 0x263a, // smiles
		0x1f607, 0x1f917, 0x1f60e, 0x1f60c, 0x1f647, // 😇 🤗 😎 😌 🙇
		0x1f6a2, 0x1f3c1, 0x1f91f, 0x1f918, 0x1f919, 0x270c, 0x1f3c5, 0x1f942, 0x1f37b, 0x1f37e, 0x1f388, // 🚢 🏁 🤟 🤘 🤙 ✌ 🏅 🥂 🍻 🍾 🎈
		0x1f973, 0x1f195, 0x1f44a, 0x1f932, 0x1faf6, 0x1f493, 0x1f49e, 0x1f49d, // 🥳 🆕 👊 🤲 🫶 💓 💞 💝
	} {
		m[r] = true
	}
	return m
}()

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
	case r >= 0xc0 && r <= 0xff && latin1[r-0xc0] != "":
		return latin1[r-0xc0], true
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
