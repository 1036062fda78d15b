package control

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// refBoundary and refTokenRegexp are the regexp containsToken replaced: the
// reference its semantics are checked against.
const refBoundary = `\p{L}\p{N}_:\-`

func refTokenRegexp(kw string) (*regexp.Regexp, error) {
	return regexp.Compile(`(?i)(?:^|[^` + refBoundary + `])` + regexp.QuoteMeta(kw) + `(?:$|[^` + refBoundary + `])`)
}

// containsTokenCases are the table of TestContainsToken and the seeds of
// FuzzContainsTokenMatchesRegexp.
var containsTokenCases = []struct {
	name     string
	text, kw string
	want     bool
}{
	{"whole text", "start", "start", true},
	{"text start", "start now", "start", true},
	{"text end", "please start", "start", true},
	{"empty text", "", "start", false},
	{"text shorter than keyword", "sta", "start", false},
	{"absent", "looks good to me", "start", false},
	{"letter before", "xstart", "start", false},
	{"letter after", "startx", "start", false},
	{"digit before", "1start", "start", false},
	{"digit after", "start1", "start", false},
	{"underscore before", "_start", "start", false},
	{"underscore after", "start_", "start", false},
	{"colon before", "a :start", "start", false},
	{"colon after", "start:now", "start", false},
	{"hyphen before", "-start", "start", false},
	{"hyphen after", "start-now", "start", false},
	{"non-ASCII letter before", "éstart", "start", false},
	{"non-ASCII letter after", "starté", "start", false},
	{"Han letter before", "請開始", "開始", false},
	{"Han after a space", "請 開始", "開始", true},
	{"Arabic-Indic digit before", "٣start", "start", false},
	{"Arabic-Indic digit after", "start٣", "start", false},
	{"superscript digit after", "start²", "start", false},
	{"letter number after", "start\u216b", "start", false},
	{"ypogegrammeni folds to a letter so it is no separator", "start\u0345", "start", false},
	{"ypogegrammeni before", "\u0345start", "start", false},
	{"other combining mark is a separator", "start\u0301", "start", true},
	{"newline before", "hi\nstart", "start", true},
	{"newline after", "start\nthanks", "start", true},
	{"crlf around", "hi\r\nstart\r\n", "start", true},
	{"tab around", "\tstart\t", "start", true},
	{"period after", "start.", "start", true},
	{"comma after", "start, please", "start", true},
	{"bang after", "start!", "start", true},
	{"parentheses", "(start)", "start", true},
	{"bold", "**start**", "start", true},
	{"inline code", "`start`", "start", true},
	{"slash before", "/start", "start", true},
	{"emoji before", "🚀start", "start", true},
	{"emoji after", "start🚀", "start", true},
	{"nbsp around", "\u00a0start\u00a0", "start", true},
	{"second occurrence is a token", "xstart start", "start", true},
	{"overlapping repeats", "aaa", "aa", false},
	{"repeat after a space", "a aa", "aa", true},
	{"multi-word keyword", "then the-loop start.", "the-loop start", true},
	{"double space inside", "the-loop  start", "the-loop start", false},
	{"upper-case text", "THE-LOOP START", "the-loop start", true},
	{"upper-case keyword", "the-loop start", "THE-LOOP START", true},
	{"Kelvin sign in text", "\u212aick off", "kick", true},
	{"Kelvin sign in keyword", "KICK off", "\u212aick", true},
	{"Kelvin sign then letter", "\u212aicks", "kick", false},
	{"long s in text", "the-loop \u017ftart", "the-loop start", true},
	{"long s in keyword", "START", "\u017ftart", true},
	{"long s at the end", "the-loop pau\u017f", "the-loop paus", true},
	{"sharp s is not ss", "stra\u00dfe", "strasse", false},
	{"capital sharp s folds to sharp s", "STRA\u1e9eE", "stra\u00dfe", true},
	{"final sigma folds to sigma", "\u03bb\u03bf\u03b3\u03bf\u03c2", "\u039b\u039f\u0393\u039f\u03a3", true},
	{"Cyrillic look-alike", "st\u0430rt", "start", false},
	{"dotless i is not i", "\u0131t", "it", false},
	{"invalid byte around", "\xffstart\xff", "start", true},
	{"truncated rune before", "\xe2\x82start", "start", true},
	{"truncated rune after", "start\xe2\x82", "start", true},
	{"invalid byte inside", "st\xffart", "start", false},
	{"invalid byte reads as U+FFFD", "a \xff b", "\ufffd", true},
	{"U+FFFD is a separator", "\ufffdstart\ufffd", "start", true},
	{"dot is literal", "axb", "a.b", false},
	{"dot matches itself", "see a.b here", "a.b", true},
	{"plus is literal", "cc rocks", "c++", false},
	{"plus matches itself", "c++ rocks", "c++", true},
	{"plus then plus", "c+++", "c++", true},
	{"class is literal", "q", "[a-z]", false},
	{"class matches itself", "x [a-z] y", "[a-z]", true},
	{"escape is literal", "5", `\d`, false},
	{"anchors are literal", "a ^start$ b", "^start$", true},
	{"keyword with a regexp flag", "(?i)x", "(?i)x", true},
	{"keyword starting with a colon", "a:start", ":start", false},
	{"keyword starting with a colon after a space", "a :start", ":start", true},
	{"keyword ending with a colon", "start:", "start:", true},
	{"keyword ending with a colon then a letter", "start:x", "start:", false},
	{"keyword of punctuation only", "!!", "!", true},
	{"keyword with a newline", "go\nGO now", "go\ngo", true},
	{"keyword with NUL", "a\x00b", "a\x00b", true},
	{"non-ASCII keyword", "DÉMARRER.", "démarrer", true},
	{"non-ASCII keyword without its accent", "demarrer", "démarrer", false},
	{"Cyrillic keyword", "ну, СТАРТ!", "старт", true},
	{"Cyrillic keyword inside a word", "рестарт", "старт", false},
}

func TestContainsToken(t *testing.T) {
	for _, tt := range containsTokenCases {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, containsToken(tt.text, tt.kw), "containsToken(%q, %q)", tt.text, tt.kw)
			re, err := refTokenRegexp(tt.kw)
			if assert.NoError(t, err) {
				assert.Equal(t, tt.want, re.MatchString(tt.text), "the reference regexp disagrees with the table")
			}
		})
	}
}

// isTokenRune is exactly the complement of the reference's separator class,
// (?i)[^\p{L}\p{N}_:\-], over every rune.
func TestIsTokenRuneMatchesRegexpClass(t *testing.T) {
	sep := regexp.MustCompile(`(?i)^[^` + refBoundary + `]$`)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue // surrogates: string(r) would be U+FFFD
		}
		if isTokenRune(r) == sep.MatchString(string(r)) {
			t.Fatalf("isTokenRune(%U) = %v, the regexp class disagrees", r, isTokenRune(r))
		}
	}
	assert.False(t, isTokenRune(utf8.RuneError), "an invalid byte reads as U+FFFD, a separator")
}

// FuzzContainsTokenMatchesRegexp: containsToken agrees with the regexp it
// replaced, on text and on text with kw (and kw upper-cased) spliced into its
// middle, so that the boundary checks are reached often.
func FuzzContainsTokenMatchesRegexp(f *testing.F) {
	for _, tt := range containsTokenCases {
		f.Add(tt.text, tt.kw)
	}
	f.Fuzz(func(t *testing.T, text, kw string) {
		if kw == "" || len(kw) > 256 || len(text) > 256 {
			t.Skip()
		}
		re, err := refTokenRegexp(kw)
		if err != nil {
			t.Skip() // invalid UTF-8 in kw: the regexp cannot even be built
		}
		mid := len(text) / 2
		for _, s := range []string{text, text[:mid] + kw + text[mid:], text[:mid] + strings.ToUpper(kw) + text[mid:]} {
			if got, want := containsToken(s, kw), re.MatchString(s); got != want {
				t.Fatalf("containsToken(%q, %q) = %v, the regexp says %v", s, kw, got, want)
			}
		}
	})
}
