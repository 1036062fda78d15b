package classify

import (
	"fmt"
	"strings"
)

// signal is something in a reply that withholds a verdict.
type signal struct {
	kind string // negation, condition, question, pending, reported
	word string
}

// reason renders why the signal withholds a verdict. It quotes only the
// reader's own vocabulary, never the reply.
func (s signal) reason() string {
	switch s.kind {
	case kindNegation:
		return fmt.Sprintf("%q negates, refuses or retracts", s.word)
	case kindCondition:
		return fmt.Sprintf("%q makes it conditional", s.word)
	case kindQuestion:
		if s.word == "?" {
			return "it asks a question"
		}
		return fmt.Sprintf("%q asks a question", s.word)
	case kindPending:
		return fmt.Sprintf("%q says the review is not finished or not certain", s.word)
	case kindReported:
		if s.word == "@" {
			return "it mentions someone else (@…), so it may speak for them"
		}
		return fmt.Sprintf("%q reports or waits on someone else's decision", s.word)
	}
	return fmt.Sprintf("%q withholds it", s.word)
}

// Signal kinds.
const (
	kindNegation  = "negation"
	kindCondition = "condition"
	kindQuestion  = "question"
	kindPending   = "pending"
	kindReported  = "reported"
)

// signalPhrases are multi-word signals, checked before single words.
var signalPhrases = map[string]string{
	"far from": kindNegation, "anything but": kindNegation, "rather not": kindNegation, "hold off": kindNegation,
	"on hold": kindNegation, "take back": kindNegation, "taking back": kindNegation, "took back": kindNegation,
	"never mind": kindNegation, "step back": kindNegation,
	"as long as": kindCondition, "so long as": kindCondition, "in case": kindCondition, "on condition": kindCondition,
	"subject to": kindCondition, "only if": kindCondition,
	"so far": kindPending, "for now": kindPending, "first pass": kindPending, "first look": kindPending,
	"first glance": kindPending, "in progress": kindPending, "more to come": kindPending, "stay tuned": kindPending,
	"to be continued": kindPending, "half way": kindPending, "going to": kindPending, "at a glance": kindPending,
	"on behalf": kindReported, "signed off by": kindReported, "approved by": kindReported, "approval from": kindReported,
	"sign-off from": kindReported, "signoff from": kindReported,
}

var signalWords = map[string]string{}

func init() {
	add := func(kind string, words ...string) {
		for _, w := range words {
			signalWords[w] = kind
		}
	}
	add(kindNegation, "not", "no", "never", "none", "nothing", "nobody", "nowhere", "neither", "nor", "without",
		"cannot", "nope", "nah", "hardly", "barely", "scarcely", "unable", "refuse", "refuses", "refused", "refusing",
		"decline", "declines", "declined", "declining", "withhold", "withholds", "withholding", "withheld", "against",
		"lack", "lacks", "lacking", "disagree", "disagrees", "disagreed", "object", "objects", "objection",
		"objections", "veto", "vetoed", "revoke", "revoked", "revoking", "retract", "retracted", "retracting",
		"retraction", "withdraw", "withdrawn", "withdrawing", "withdrew", "rescind", "rescinded", "undo", "undone",
		"unapprove", "unapproved", "disapprove", "disapproved", "cancel", "cancelled", "canceled", "ignore",
		"ignored", "disregard", "disregarded", "scratch", "kidding", "joking", "jk", "nevermind", "nvm",
		"unfortunately", "sadly", "except", "dont", "cant", "wont", "isnt", "arent", "doesnt", "didnt", "havent",
		"hasnt", "hadnt", "wasnt", "werent", "shouldnt", "wouldnt", "couldnt", "mustnt", "neednt", "aint",
		"reject", "rejected", "rejecting", "blocker", "blockers", "hold", "wrong", "false", "fake")
	add(kindCondition, "if", "once", "when", "whenever", "unless", "until", "till", "provided", "providing",
		"assuming", "assume", "assumes", "given", "pending", "conditional", "conditionally", "contingent",
		"depends", "depending", "depend", "otherwise", "after", "whether")
	add(kindPending, "yet", "still", "halfway", "half-way", "partial", "partially", "partly", "initial",
		"preliminary", "provisional", "provisionally", "tentative", "tentatively", "wip", "later", "tomorrow",
		"tonight", "soon", "eventually", "tbc", "tbd", "todo", "will", "i'll", "we'll", "you'll", "he'll",
		"she'll", "they'll", "gonna", "shall", "maybe", "perhaps",
		"probably", "possibly", "likely", "hopefully", "hope", "hoping", "think", "thinks", "believe", "guess",
		"suppose", "presumably", "seems", "seem", "seemingly", "appears", "apparently", "almost", "nearly",
		"mostly", "mainly", "largely", "somewhat", "kinda", "sorta", "skimmed", "skimming", "skim", "glanced",
		"glance", "i'd", "we'd", "unsure", "unclear", "sure?", "continue", "continuing", "resume", "remaining",
		"rest", "remainder")
	add(kindReported, "says", "said", "say", "saying", "told", "tells", "tell", "asked", "asks", "ask",
		"according", "per", "via", "reportedly", "heard", "wrote", "writes", "quote", "quoted", "quoting",
		"mentioned", "mentions", "claims", "claimed", "claiming", "waiting", "wait", "awaiting", "await",
		"needs", "need", "needed", "require", "requires", "required", "he", "she", "they", "them", "his", "her",
		"their", "theirs", "someone", "somebody", "anyone", "anybody", "others", "behalf", "cc", "ping",
		"pinging", "pinged", "forwarding", "forwarded", "relaying", "relayed")
	add(kindQuestion, "wonder", "wondering", "curious", "question", "questions", "unsure")
}

// whWords open a question even without a question mark.
var whWords = set("who", "what", "when", "where", "why", "how", "which", "whose", "whom")

// subjects follow an auxiliary that opens a question ("is this", "do you").
var subjects = set("i", "you", "we", "they", "he", "she", "it", "this", "that", "these", "those", "there", "the",
	"a", "an", "anyone", "someone", "everyone", "anybody", "somebody", "my", "your", "our", "their", "his",
	"her", "its", "all", "any", "everything", "anything")

// interrogatives open a question when a subject follows them.
var interrogatives = set("is", "are",
	"am", "was", "were", "do", "does", "did", "can", "could", "would", "will", "should", "shall", "may",
	"might", "have", "has", "had", "isn't", "aren't", "don't", "doesn't", "didn't", "can't", "won't",
	"wouldn't", "shouldn't", "couldn't", "haven't", "hasn't", "wasn't", "weren't", "isnt", "arent", "dont",
	"doesnt", "didnt", "cant", "wont")

// signalIn returns the first signal in words (phrases first), or false.
func signalIn(words []string) (signal, bool) {
	for i := range words {
		for n := 3; n >= 2; n-- {
			if i+n > len(words) {
				continue
			}
			if k, ok := signalPhrases[strings.Join(words[i:i+n], " ")]; ok {
				return signal{k, strings.Join(words[i:i+n], " ")}, true
			}
		}
	}
	for _, w := range words {
		if k, ok := signalWords[w]; ok {
			return signal{k, w}, true
		}
		if strings.HasSuffix(w, "n't") {
			return signal{kindNegation, w}, true
		}
	}
	return signal{}, false
}

// questionSignal reports a sentence that asks: it ends with "?" or opens
// with an interrogative word.
func questionSignal(s sentence) (signal, bool) {
	if s.question {
		return signal{kindQuestion, "?"}, true
	}
	if len(s.clauses) > 0 && len(s.clauses[0].words) > 0 {
		first := s.clauses[0].words
		i := 0
		for i < len(first)-1 && isCourtesy(first[i:i+1]) {
			i++
		}
		w := first[i]
		if whWords[w] && len(first) > i+1 || interrogatives[w] && len(first) > i+1 && subjects[first[i+1]] {
			return signal{kindQuestion, w}, true
		}
	}
	return signal{}, false
}
