package classify

import (
	"regexp"
	"strings"

	"github.com/the-loop/the-loop/internal/lazyre"
	"github.com/the-loop/the-loop/internal/plaintext"
)

// reply is one comment as the readers see it: the author's own words,
// folded, split into sentences and clauses.
type reply struct {
	// err is why the reply cannot be read at all (nil when it can).
	err       error
	sentences []*sentence
	clauses   []*clause
	// rules are the lines made only of dashes ("--", "—"): a signature may
	// follow one.
	rules map[int]bool
}

// sentence is a run of clauses ended by ".", "!", "?", ";" or a line end.
type sentence struct {
	clauses  []*clause
	question bool
	line     int
	// label is the label heading the block of lines the sentence is in.
	label string
	// heads is the label a sentence ends with ("Blocking:", "Approved with
	// comments:"): it heads the lines after it, up to a blank line.
	heads string
	// signature is set on the lines of a sign-off ("Thanks,\nDana").
	signature bool
}

// clause is a run of tokens between clause breaks: punctuation (",", ":",
// "(", ")", "\"", a free-standing "-") and joining words ("but", "and"…).
type clause struct {
	id       int
	sentence *sentence
	// words are the clause's words in order; an @-mention is one word
	// ("@bob").
	words []string
	// benign, symbols and hidden count the placeholders in the clause:
	// emoji of assent, other symbols, and inline code or struck-through
	// text.
	benign, symbols, hidden int
	// joined is the joining word that opened the clause ("" when none).
	joined string
	// label is the label in force over the clause: written before a colon
	// earlier in its sentence ("Nit: …"), or heading its block of lines.
	label string
}

// words returns every word of the reply, in order.
func (r *reply) words() []string {
	var out []string
	for _, c := range r.clauses {
		out = append(out, c.words...)
	}
	return out
}

// empty reports a reply with no words and no placeholders.
func (r *reply) empty() bool {
	for _, c := range r.clauses {
		if len(c.words) > 0 || c.benign+c.symbols+c.hidden > 0 {
			return false
		}
	}
	return true
}

func (r *reply) count(f func(*clause) int) int {
	n := 0
	for _, c := range r.clauses {
		n += f(c)
	}
	return n
}

// joiners open a new clause.
var joiners = set("but", "and", "however", "though", "although", "while", "whereas", "except", "plus",
	"because", "since", "otherwise", "also")

// breakers are the punctuation characters that end a clause (":" also
// ends a label).
const breakers = ",:()[]{}\"/|*_#>=<&-~"

// listMarker is a list item's marker at the start of a folded line.
var listMarker = regexp.MustCompile(`^\s*(?:[-*+]|\d{1,3}[.)])\s+`)

// emoticons are read as placeholders: the smiling ones as benign, the rest
// as symbols.
var emoticons = []struct {
	text   string
	benign bool
}{
	{":-)", true}, {":)", true}, {":-d", true}, {":d", true}, {"(:", true}, {"=)", true}, {"^^", true},
	{"^_^", true}, {":]", true}, {"c:", false},
	{":-(", false}, {":(", false}, {":-/", false}, {":/", false}, {":|", false}, {";)", false}, {";-)", false},
	{":'(", false}, {"-_-", false}, {":p", false}, {":-p", false}, {":o", false}, {"):", false}, {"xd", false},
}

// shortcode is an emoji shortcode (":+1:", ":shipit:").
var shortcode = regexp.MustCompile(`:[a-z0-9_+\-]+:`)

// benignShortcodes are the shortcodes of the emoji of assent.
var benignShortcodes = set(":+1:", ":thumbsup:", ":thumbs_up:", ":shipit:", ":tada:", ":rocket:",
	":white_check_mark:", ":heavy_check_mark:", ":ballot_box_with_check:", ":100:", ":clap:", ":raised_hands:",
	":ok_hand:", ":heart:", ":green_heart:", ":blue_heart:", ":purple_heart:", ":sparkles:", ":star:", ":star2:",
	":smile:", ":smiley:", ":slightly_smiling_face:", ":blush:", ":grin:", ":pray:", ":muscle:", ":fire:",
	":partying_face:", ":confetti_ball:", ":trophy:", ":dart:", ":sunglasses:", ":hugs:", ":wave:", ":ok:",
	":handshake:", ":heart_eyes:", ":star_struck:", ":innocent:", ":relieved:", ":bow:", ":medal:",
	":1st_place_medal:", ":dizzy:", ":green_circle:")

// parse reads body.
func parse(body string) *reply {
	r := &reply{}
	text, err := plaintext.Fold(plaintext.Marked(body))
	if err != nil {
		r.err = err
		return r
	}
	text = shortcode.ReplaceAllStringFunc(text, func(code string) string {
		if benignShortcodes[code] {
			return string(plaintext.Benign)
		}
		return string(plaintext.Symbol)
	})
	lines := strings.Split(text, "\n")
	block := "" // the label heading the current block of lines
	for n, line := range lines {
		if t := strings.TrimSpace(line); t != "" && strings.Trim(t, "- ") == "" {
			if r.rules == nil {
				r.rules = map[int]bool{}
			}
			r.rules[n+1] = true
			block = ""
			continue
		}
		line = listMarker.ReplaceAllString(line, " ")
		if strings.TrimSpace(line) == "" {
			block = ""
			continue
		}
		start := len(r.sentences)
		r.addLine(line, n+1, block)
		// A label that ends its line heads the lines after it.
		if last := len(r.sentences) - 1; last >= start && r.sentences[last].heads != "" {
			block = r.sentences[last].heads
			if len(r.sentences[last].clauses) == 0 {
				r.sentences = r.sentences[:last]
			}
		}
	}
	r.markSignature()
	return r
}

// abbreviations are written with periods that do not end a sentence.
var abbreviations = lazyre.New(`\b(p\.s|e\.g|i\.e|etc|vs|cf|approx|esp|incl|resp|w\.r\.t|a\.k\.a|n\.b|p\.p\.s)\.`)

// addLine splits one line into sentences.
func (r *reply) addLine(line string, n int, block string) {
	line = abbreviations().ReplaceAllStringFunc(line, func(a string) string { return strings.ReplaceAll(a, ".", "") })
	start := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '.', '!', '?', ';':
			before := len(r.sentences)
			r.addSentence(line[start:i], n, line[i] == '?', block)
			if line[i] == '?' && len(r.sentences) == before && before > 0 && r.sentences[before-1].line == n {
				r.sentences[before-1].question = true // "LGTM...?"
			}
			start = i + 1
		}
	}
	r.addSentence(line[start:], n, false, block)
}

func (r *reply) addSentence(s string, line int, question bool, block string) {
	sen := &sentence{question: question, line: line, label: block}
	label := block
	cur := &clause{sentence: sen, label: label}
	trailing := ""
	flush := func(colon bool) {
		if colon && isLabel(cur) && !isVerdict(cur.words) {
			label = strings.Join(cur.words, " ")
			trailing = label
			cur = &clause{sentence: sen, label: label}
			return
		}
		if colon && inCore(cur.words, withComments()) {
			// "Approved with comments: …": what follows are the comments
			sen.clauses = append(sen.clauses, cur)
			label, trailing = withCommentsLabel, withCommentsLabel
			cur = &clause{sentence: sen, label: label}
			return
		}
		if colon && len(cur.words) > 0 && cur.benign+cur.symbols+cur.hidden == 0 && !isVerdict(cur.words) {
			// a statement before a colon frames what follows it ("Copying
			// Bob's comment from Slack: …"); it is read as a clause too
			frame := frameLabel + strings.Join(cur.words, " ")
			sen.clauses = append(sen.clauses, cur)
			label, trailing = frame, ""
			cur = &clause{sentence: sen, label: label}
			return
		}
		if len(cur.words) == 0 && cur.benign+cur.symbols+cur.hidden == 0 {
			return // a joining word before a comma still opens what follows
		}
		trailing = ""
		sen.clauses = append(sen.clauses, cur)
		cur = &clause{sentence: sen, label: label}
	}
	for _, tok := range tokens(s) {
		switch {
		case tok == string(plaintext.Symbol):
			cur.symbols++
			flush(false) // an emoji ends what it follows: "Looks good 👍 approving"
		case tok == string(plaintext.Benign):
			cur.benign++
			flush(false)
		case tok == string(plaintext.Hidden):
			cur.hidden++
		case tok == ":":
			flush(true)
		case len(tok) == 1 && strings.IndexByte(breakers, tok[0]) >= 0:
			flush(false)
		case joiners[tok] && (tok != "also" || len(cur.words) > 0):
			flush(false)
			cur.joined = tok
		default:
			cur.words = append(cur.words, tok)
		}
	}
	flush(false)
	if contrasts[cur.joined] && len(cur.words) == 0 {
		// "Approved, but..." — a reservation left unsaid is still one
		sen.clauses = append(sen.clauses, &clause{sentence: sen, label: label, words: []string{cur.joined}})
	}
	for _, c := range sen.clauses {
		c.id = len(r.clauses)
		r.clauses = append(r.clauses, c)
	}
	sen.heads = trailing
	if len(sen.clauses) > 0 || trailing != "" {
		r.sentences = append(r.sentences, sen)
	}
}

// withCommentsLabel heads the comments of an "approved with comments:".
const withCommentsLabel = "with comments"

// frameLabel prefixes the label a statement before a colon makes.
const frameLabel = "\x00"

// isVerdict reports words that are a verdict in full ("Approved:",
// "Not approved:"): before a colon they are a clause, not a label.
func isVerdict(words []string) bool {
	if ok, _, _ := approvalIn(words); ok {
		return true
	}
	return inCore(words, refusalCore())
}

// labelVerbs are words a label never holds: "R4 is ambiguous:" is a
// statement before a colon, not a label.
var labelVerbs = set("is", "are", "was", "were", "looks", "look", "seems", "'s", "does", "do", "did", "can",
	"should", "must", "will", "would", "could", "has", "have", "need", "needs", "i", "we", "you", "it", "this")

// isLabel reports whether the words of a clause ended by a colon are a
// label: at most four words, no placeholder, no verb.
func isLabel(c *clause) bool {
	if c.benign+c.symbols+c.hidden > 0 || len(c.words) == 0 || len(c.words) > 4 {
		return false
	}
	for _, w := range c.words {
		if labelVerbs[w] || isNegator(w) {
			return false
		}
	}
	return true
}

// quotesVerdict reports quoted words a reader could take for a verdict or
// its withholding.
func quotesVerdict(words []string) bool {
	if len(words) > 3 {
		return true
	}
	for _, w := range words {
		if cueWord(w) || len(w) == 1 && strings.IndexByte(breakers+".!?;", w[0]) >= 0 {
			return true
		}
	}
	return false
}

// markSignature marks the sentences of a sign-off at the end of the reply:
// a closing ("Thanks,", "Cheers", "Best regards", or a "--" line) with at
// most a name after it, and up to three short sentences after it (a name, a
// title).
func (r *reply) markSignature() {
	n := len(r.sentences)
	for i := n - 1; i >= 0 && i >= n-4; i-- {
		s := r.sentences[i]
		words := sentenceWords(s)
		closing := isClosing(words) || r.rules[s.line-1] && (i == 0 || r.sentences[i-1].line < s.line)
		if !closing && !isName(words) {
			return
		}
		if closing {
			for _, t := range r.sentences[i:] {
				t.signature = true
			}
			return
		}
	}
}

// sentenceWords returns the words of s, its label first; a placeholder
// other than an emoji of assent makes it nil.
func sentenceWords(s *sentence) []string {
	var out []string
	label := s.label
	for _, c := range s.clauses {
		if c.label != label {
			label = c.label
			out = append(out, strings.Fields(label)...)
		}
		if c.symbols+c.hidden > 0 {
			return nil
		}
		out = append(out, c.words...)
	}
	return out
}

// isClosing reports a closing, alone or with a name of at most three words
// after it.
func isClosing(words []string) bool {
	for _, c := range closings {
		if hasPrefix(words, c) && len(words)-len(c) <= 3 && plainWords(words[len(c):]) {
			return true
		}
	}
	return false
}

// isName reports a few plain words (a name, a title).
func isName(words []string) bool { return len(words) > 0 && len(words) <= 5 && plainWords(words) }
