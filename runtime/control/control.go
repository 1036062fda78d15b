// Package control recognises the loop's control keywords in a ticket comment
// ("the-loop start", "the-loop execute", ...).
//
// The rules:
//
//   - A keyword matches case-insensitively and literally, anywhere in the
//     body (a keyword inside a fenced code block still counts).
//   - It must stand as a whole token: the character just before it and the
//     character just after it may not be a letter, a digit, '_', '-' or ':'.
//     "(the-loop start)", "**THE-LOOP START**" and "the-loop start." match;
//     "the-loop startlater", "the-loop start:now" and "xthe-loop start" do not,
//     and "the-loop done" never matches "the-loop do".
//   - The same command repeated is that command. Two different commands in
//     one body are ambiguous: the comment carries no command at all.
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
	re  *regexp.Regexp
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
		p.matchers = append(p.matchers, matcher{cmd: Command(c), re: re})
	}
	actual, _ := parsers.LoadOrStore(key, p)
	return actual.(*Parser)
}

// Parse returns the command body carries.
func (p *Parser) Parse(body string) Result {
	var res Result
	for _, m := range p.matchers {
		if m.re.MatchString(body) {
			res.Found = append(res.Found, m.cmd)
		}
	}
	switch len(res.Found) {
	case 0:
	case 1:
		res.Command = res.Found[0]
	default:
		res.Ambiguous = true
	}
	return res
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
