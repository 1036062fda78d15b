package classify

import (
	"regexp"
	"strings"

	"github.com/the-loop/the-loop/internal/plaintext"
)

// reply is one comment as the readers see it: the author's own words,
// folded, split into sentences and clauses.
type reply struct {
	// err is why the reply cannot be read at all (nil when it can).
	err       error
	sentences []sentence
	clauses   int
	// symbols counts emoji and other symbols (never interpreted).
	symbols int
	// mention is true when the reply @-mentions someone.
	mention bool
}

// sentence is a run of clauses ended by ".", "!", "?", ";" or a line end.
type sentence struct {
	clauses  []clause
	question bool
}

// clause is a run of words between clause breaks: punctuation (",", ":",
// "(", ")", "\"", a free-standing "-") and joining words ("but", "and"…).
type clause struct {
	// id is the clause's position in the reply.
	id    int
	words []string
	// joined is the joining word that opened the clause ("" when none).
	joined string
	// label is set when a label ("status:", "requirements:") introduced it.
	label string
}

// words returns every word of the reply, labels included, in order.
func (r reply) words() []string {
	var out []string
	for _, s := range r.sentences {
		for _, c := range s.clauses {
			if c.label != "" {
				out = append(out, strings.Fields(c.label)...)
			}
			out = append(out, c.words...)
		}
	}
	return out
}

// empty reports a reply with no words and no symbols.
func (r reply) empty() bool { return r.symbols == 0 && len(r.words()) == 0 }

// mentionRE is an @-mention: "@" after a non-word character, then a login.
var mentionRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.@])@[A-Za-z0-9]`)

// shortcode is an emoji shortcode (":+1:", ":shipit:"), read as a symbol.
var shortcode = regexp.MustCompile(`:[a-z0-9_+\-]+:`)

// parse reads body.
func parse(body string) reply {
	own := plaintext.Own(body)
	r := reply{mention: mentionRE.MatchString(own)}
	text, err := plaintext.Fold(own)
	if err != nil {
		r.err = err
		return r
	}
	text = shortcode.ReplaceAllString(text, string(plaintext.Symbol))
	start := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '.', '!', '?', ';', '\n':
			r.addSentence(text[start:i], text[i] == '?')
			start = i + 1
		}
	}
	r.addSentence(text[start:], false)
	return r
}

func (r *reply) addSentence(s string, question bool) {
	sen := sentence{question: question}
	cur := clause{}
	label := ""
	flush := func(endsWithColon bool) {
		if len(cur.words) == 0 {
			return
		}
		if endsWithColon && isLabel(cur.words) {
			label = strings.Join(cur.words, " ")
			cur = clause{}
			return
		}
		cur.label = label
		cur.id = r.clauses
		r.clauses++
		label = ""
		sen.clauses = append(sen.clauses, cur)
		cur = clause{}
	}
	for _, tok := range tokens(s) {
		switch {
		case tok == string(plaintext.Symbol):
			r.symbols++
		case tok == ":":
			flush(true)
		case len(tok) == 1 && strings.IndexByte(breakers, tok[0]) >= 0:
			flush(false)
		case joiners[tok]:
			flush(false)
			cur.joined = tok
		default:
			cur.words = append(cur.words, tok)
		}
	}
	flush(false)
	if label != "" {
		sen.clauses = append(sen.clauses, clause{id: r.clauses, words: strings.Fields(label)})
		r.clauses++
	}
	if len(sen.clauses) > 0 {
		r.sentences = append(r.sentences, sen)
	}
}

// tokens splits folded text into words (letters, digits, inner apostrophes
// and hyphens; "+1" is a word) and single punctuation tokens.
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
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '\'':
			b.WriteByte(c)
		case c == '-' && b.Len() > 0 && i+1 < len(s) && isWordByte(s[i+1]):
			b.WriteByte(c)
		case c == '+' && i+1 < len(s) && s[i+1] == '1' && (i+2 == len(s) || !isWordByte(s[i+2])):
			flush()
			out = append(out, "+1")
			i++
		case c == ' ' || c == '\t':
			flush()
		default:
			flush()
			if c == plaintext.Symbol || strings.IndexByte(breakers, c) >= 0 {
				out = append(out, string(c))
			}
		}
	}
	flush()
	return out
}

// breakers are the punctuation characters that end a clause (":" also
// ends a label).
const breakers = ",:()[]{}\"/|*_#>=<&-"

func isWordByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// joiners open a new clause.
var joiners = set("but", "and", "however", "though", "although", "so", "yet", "while", "whereas", "except", "plus", "also", "then")

// isLabel reports words that may label a verdict ("status: approved").
func isLabel(words []string) bool {
	if len(words) > 3 {
		return false
	}
	for _, w := range words {
		if !labelWords[w] {
			return false
		}
	}
	return true
}

var labelWords = set("status", "verdict", "decision", "review", "result", "outcome", "my", "our", "the", "final",
	"requirements", "design", "spec", "specs", "plan", "testing", "test", "tasks", "brainstorm", "security",
	"sign-off", "signoff", "pr", "overall", "summary", "tldr", "tl", "dr")

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
