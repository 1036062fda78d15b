// Package control recognises the loop's control keywords in a ticket comment
// ("the-loop start", "the-loop execute", ...).
//
// The rules:
//
//   - A command is a line of its own: the keyword, matched case-insensitively
//     (ASCII only) and literally, with nothing else on the line but
//     surrounding white space and at most one trailing period.
//     "the-loop start" and "  THE-LOOP START. " are commands; "do NOT
//     the-loop start this yet", "**the-loop start**", "(the-loop start)" and
//     "the-loop start!" are not.
//   - Only the author's own visible words count: a line inside a block quote,
//     a fenced or indented code block, inline code, an HTML comment,
//     struck-through text or an unticked task item is never a command
//     (package plaintext).
//   - The same command repeated is that command. A comment that also names a
//     different command anywhere in its own words (as a whole token: the
//     characters around it are not letters, digits, '_', '-' or ':') is
//     ambiguous and carries no command at all.
//   - The vocabulary comes from the operator configuration
//     (config.Commands, (*config.Config).Keyword): an empty keyword disables
//     its command, and routing.control.enabled false disables them all.
//
// A Result never carries text from the body, only a command constant.
package control

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/internal/plaintext"
)

// Command is one control command.
type Command string

// The control vocabulary.
const (
	None       Command = ""
	Start      Command = "start"
	Stop       Command = "stop"
	Pause      Command = "pause"
	Resume     Command = "resume"
	Execute    Command = "execute"
	Contribute Command = "contribute"
	Cleanup    Command = "cleanup"
	Do         Command = "do"
	Review     Command = "review"
)

// Loop names the arming commands select.
const (
	LoopWorkItem     = "pdlc-work-item-loop"
	LoopContribution = "pdlc-contribution-loop"
	LoopAdhoc        = "pdlc-adhoc-loop"
	LoopReview       = "pdlc-review-loop"
)

// Result is what a comment asks for.
type Result struct {
	// Command is the one command found (None when none, or when ambiguous).
	Command Command
	// Ambiguous is true when two or more different commands were found:
	// nothing is executed and nothing is forwarded.
	Ambiguous bool
	// Found lists every distinct command matched, in vocabulary order.
	Found []Command
}

// Parser matches one configuration's keywords.
type Parser struct {
	matchers []matcher
}

type matcher struct {
	cmd Command
	// kw is the keyword, lower-cased (ASCII).
	kw string
	// token is the keyword as configured, found as a whole token anywhere
	// (for ambiguity) by containsToken.
	token string
}

// New builds a parser for cfg's vocabulary (nil: the defaults).
func New(cfg *config.Config) *Parser {
	if cfg == nil {
		cfg = config.Default()
	}
	p := &Parser{matchers: make([]matcher, 0, len(config.Commands))}
	for _, c := range config.Commands {
		kw := cfg.Keyword(c)
		if kw == "" {
			continue
		}
		p.matchers = append(p.matchers, matcher{cmd: Command(c), kw: lowerASCII(kw), token: kw})
	}
	return p
}

// Parse returns the command body carries.
func (p *Parser) Parse(body string) Result {
	var res Result
	ownLines := plaintext.OwnLines(body)
	own := strings.Join(ownLines, "\n")
	lines := map[Command]bool{}
	for i, raw := range plaintext.Lines(body) {
		t := strings.TrimSpace(raw)
		if t == "" || strings.TrimSpace(ownLines[i]) != t {
			continue // not the author's own words as written (quoted, code, markup)
		}
		t = lowerASCII(strings.TrimSuffix(t, "."))
		for _, m := range p.matchers {
			if t == m.kw {
				lines[m.cmd] = true
			}
		}
	}
	for _, m := range p.matchers {
		if lines[m.cmd] || containsToken(own, m.token) {
			res.Found = append(res.Found, m.cmd)
		}
	}
	switch {
	case len(res.Found) > 1:
		res.Ambiguous = true
	case len(res.Found) == 1 && lines[res.Found[0]]:
		res.Command = res.Found[0]
	}
	return res
}

// lowerASCII lower-cases ASCII letters only: Unicode case folding would
// let a look-alike (the Kelvin sign for "k") stand in for a letter.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s // already lower case: no copy
}

// containsToken reports whether text holds kw as a whole token anywhere: kw
// matched rune by rune under Unicode simple case folding (the Kelvin sign
// matches "k", the long s "s"), with neither the rune before it nor the rune
// after it a token rune (isTokenRune); the start and the end of text count
// as separators, and an invalid UTF-8 byte reads as U+FFFD, a separator (in
// kw too, where the regexp would not even compile).
// It is the regexp
//
//	(?i)(?:^|[^\p{L}\p{N}_:\-])QuoteMeta(kw)(?:$|[^\p{L}\p{N}_:\-])
//
// without compiling one (FuzzContainsTokenMatchesRegexp checks they agree).
func containsToken(text, kw string) bool {
	sep := true // the rune before text[i] is a separator (or i is 0)
	for i := 0; ; {
		if sep {
			if n, ok := prefixFold(text[i:], kw); ok {
				if rest := text[i+n:]; rest == "" || !isTokenRune(firstRune(rest)) {
					return true
				}
			}
		}
		if i == len(text) {
			return false
		}
		r, w := utf8.DecodeRuneInString(text[i:])
		sep = !isTokenRune(r)
		i += w
	}
}

// prefixFold reports whether s starts with kw under simple case folding,
// rune for rune, and the length in bytes of that prefix of s (which may
// differ from len(kw): "K" is one byte, the Kelvin sign three).
func prefixFold(s, kw string) (int, bool) {
	n := 0
	for _, k := range kw {
		if n == len(s) {
			return 0, false
		}
		r, w := utf8.DecodeRuneInString(s[n:])
		if !equalFold(k, r) {
			return 0, false
		}
		n += w
	}
	return n, true
}

// equalFold reports whether a and b are in the same simple case-folding
// orbit (what (?i) means in a Go regexp, and strings.EqualFold).
func equalFold(a, b rune) bool {
	if a == b {
		return true
	}
	if a < utf8.RuneSelf && b < utf8.RuneSelf {
		l := a | 0x20 // ASCII letters fold only to each other's case
		return l == b|0x20 && 'a' <= l && l <= 'z'
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

// firstRune is the first rune of a non-empty s (U+FFFD for an invalid byte).
func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// foldLetters are the runes that are no letters but fold to one (U+0345
// COMBINING GREEK YPOGEGRAMMENI): (?i)\p{L} matches them too.
var foldLetters = unicode.FoldCategory["L"]

// isTokenRune reports a rune that may not touch a keyword on either side: a
// letter (or a rune that case-folds to one), a number, '_', ':' or '-'.
func isTokenRune(r rune) bool {
	if r < utf8.RuneSelf {
		l := r | 0x20
		return 'a' <= l && l <= 'z' || '0' <= r && r <= '9' || r == '_' || r == ':' || r == '-'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(foldLetters, r)
}

// Parse is New(cfg).Parse(body).
func Parse(cfg *config.Config, body string) Result { return New(cfg).Parse(body) }

// LoopFor returns the loop an arming command selects: start →
// pdlc-work-item-loop, contribute → pdlc-contribution-loop, do →
// pdlc-adhoc-loop, review → pdlc-review-loop; "" for any other command.
func LoopFor(cmd Command) string {
	switch cmd {
	case Start:
		return LoopWorkItem
	case Contribute:
		return LoopContribution
	case Do:
		return LoopAdhoc
	case Review:
		return LoopReview
	}
	return ""
}

// IsArming reports a command that arms a work item (start, resume,
// contribute, do, review).
func IsArming(cmd Command) bool {
	return cmd == Resume || SpawnsSession(cmd)
}

// SpawnsSession reports an arming command that may spawn a session (every
// arming command except resume, which only wakes a paused one).
func SpawnsSession(cmd Command) bool {
	return LoopFor(cmd) != ""
}

// IsDisarming reports pause, stop and cleanup.
func IsDisarming(cmd Command) bool {
	return cmd == Pause || cmd == Stop || cmd == Cleanup
}

// IsGraphCommand reports execute: it touches no session and answers the
// phase-selection gate.
func IsGraphCommand(cmd Command) bool { return cmd == Execute }
