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
	"regexp"
	"strings"
	"sync"

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
	// re finds the keyword as a whole token anywhere (for ambiguity).
	re *regexp.Regexp
}

// boundary is a character that may not touch a keyword on either side.
const boundary = `\p{L}\p{N}_:\-`

// parsers caches compiled parsers by vocabulary: gates build one per
// evaluation, and compiling nine regexps each time dominated `check`.
var parsers sync.Map // string (joined keywords) -> *Parser

// New builds a parser for cfg's vocabulary (nil: the defaults).
func New(cfg *config.Config) *Parser {
	if cfg == nil {
		cfg = config.Default()
	}
	kws := make([]string, len(config.Commands))
	for i, c := range config.Commands {
		kws[i] = cfg.Keyword(c)
	}
	key := strings.Join(kws, "\x00")
	if p, ok := parsers.Load(key); ok {
		return p.(*Parser)
	}
	p := &Parser{}
	for i, c := range config.Commands {
		kw := kws[i]
		if kw == "" {
			continue
		}
		re := regexp.MustCompile(`(?i)(?:^|[^` + boundary + `])` + regexp.QuoteMeta(kw) + `(?:$|[^` + boundary + `])`)
		p.matchers = append(p.matchers, matcher{cmd: Command(c), kw: lowerASCII(kw), re: re})
	}
	actual, _ := parsers.LoadOrStore(key, p)
	return actual.(*Parser)
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
		if lines[m.cmd] || m.re.MatchString(own) {
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
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
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
