package classify

import (
	"strings"
)

// role is what one clause does in a reply.
type role int

const (
	// roleNeutral: a statement with nothing the grammar reads (praise in
	// free words, context). It withholds nothing and decides nothing.
	roleNeutral role = iota
	// roleCompany: thanks, greetings, praise, an emoji of assent, "no
	// concerns", a sign-off line.
	roleCompany
	// roleApprove: in full, an approval in the reviewer's own voice.
	roleApprove
	// roleApproveWithComments: "approved with comments".
	roleApproveWithComments
	// roleSoft: a suggestion ("could", "consider", "would be nice").
	roleSoft
	// roleLater: a remark marked as not blocking (a nit, for later, FYI).
	roleLater
	// roleChange: asks for a change to the artifact, or says something in
	// it is wrong or missing.
	roleChange
	// roleRefuse: an approval refused in the reviewer's own voice.
	roleRefuse
	// roleWithhold: something that keeps an approval from counting (a
	// negation, condition, question, deferral, someone else's words…).
	roleWithhold
	// roleReservation: a statement after "but" or "however": beside an
	// approval it is a reservation of unknown weight, so the work goes back
	// with it; alone it decides nothing.
	roleReservation
)

// Kinds of withholding, for the reason.
const (
	kindNegation   = "negation"
	kindCondition  = "condition"
	kindQuestion   = "question"
	kindPending    = "pending"
	kindReported   = "reported"
	kindRetraction = "retraction"
	kindSarcasm    = "sarcasm"
	kindSymbol     = "symbol"
	kindHidden     = "hidden"
	kindHedge      = "hedge"
	kindMeta       = "meta"
	kindRemark     = "remark"
	kindOther      = "other-artifact"
	kindAbout      = "about"
	kindScope      = "scope"
	kindUnsaid     = "unsaid"
)

// reading is a clause's role, with the lexicon word that decided it.
type reading struct {
	role role
	kind string // for roleWithhold
	cue  string // a word or phrase of the lexicon, never the reply's own
}

// reason renders why a reading withholds an approval, in the reader's own
// vocabulary.
func (r reading) reason() string {
	q := func(s string) string { return "\"" + s + "\"" }
	switch r.kind {
	case kindNegation:
		if r.cue == "" {
			return "a negation beside it may negate it"
		}
		return q(r.cue) + " negates, refuses or retracts"
	case kindCondition:
		return q(r.cue) + " makes it conditional"
	case kindQuestion:
		if r.cue == "?" || r.cue == "" {
			return "it asks a question"
		}
		return q(r.cue) + " asks a question"
	case kindPending:
		return q(r.cue) + " says the review is not finished"
	case kindReported:
		if strings.HasPrefix(r.cue, "@") {
			return "it names someone else (@…), so it may speak for them"
		}
		if r.cue == "label" {
			return "the label before the colon is not the reviewer's own verdict, so it may speak for someone else"
		}
		return q(r.cue) + " reports or waits on someone else's words or decision"
	case kindRetraction:
		return q(r.cue) + " takes it back"
	case kindSarcasm:
		return q(r.cue) + " reads as sarcasm"
	case kindSymbol:
		return "it carries an emoji or symbol that is not one of assent"
	case kindHidden:
		return "it holds inline code or struck-through text, which the reader does not read"
	case kindHedge:
		return q(r.cue) + " makes it uncertain"
	case kindMeta:
		return q(r.cue) + " is about the process, not a verdict"
	case kindRemark:
		return "a short remark beside it is neither thanks nor a verdict, so it could name someone else"
	case kindOther:
		return "it approves another artifact than the one under review"
	case kindAbout:
		return "it speaks of an approval without giving one"
	case kindUnsaid:
		return q(r.cue) + " leaves a reservation unsaid"
	case kindScope:
		return q(r.cue) + " limits it to a part of the artifact"
	}
	return "it withholds it"
}

func withhold(kind, cue string) reading { return reading{role: roleWithhold, kind: kind, cue: cue} }

// functionWords are the grammar's small words: they say nothing alone.
var functionWords = set("the", "a", "an", "this", "that", "these", "those", "it", "its", "it's", "of", "to", "in",
	"on", "for", "with", "at", "by", "from", "as", "is", "are", "was", "were", "be", "been", "being", "am", "i",
	"we", "you", "me", "us", "my", "our", "your", "and", "or", "but", "so", "then", "than", "there", "here",
	"all", "some", "any", "each", "every", "more", "most", "much", "many", "few", "less", "very", "just",
	"also", "too", "now", "only", "even", "well", "about", "into", "over", "under", "up", "down", "out", "again",
	"both", "either", "have", "has", "had", "do", "does", "did", "i'm", "im", "i've", "we're", "you're", "what",
	"which", "who", "one", "two", "three", "really", "quite", "bit", "lot", "thing", "things", "way")

// reviewVerbs are the verbs of reviewing: with a future, a progressive or
// "still", they say the review goes on.
var reviewVerbs = set("read", "reading", "review", "reviewing", "look", "looking", "check", "checking",
	"go", "going", "finish", "finishing", "continue", "continuing", "revisit", "revisiting", "dig", "digging",
	"think", "thinking", "digest", "digesting", "test", "testing", "verify", "verifying", "double-check",
	"get", "circle", "respond", "reply", "answer", "follow", "confirm", "confirming", "approve",
	"sign", "skim", "skimming", "study", "studying", "process", "processing", "work", "working", "ask",
	"sync", "discuss", "talk", "chat", "run", "running", "try", "trying", "re-read", "reread", "rereading",
	"re-review", "wrap", "wrapping", "comment", "commenting", "give", "take", "have")

// metaWords are about the process around the review.
var metaWords = set("discuss", "discussing", "discussion", "sync", "syncing", "meeting", "meet", "standup",
	"stand-up", "offline", "chat", "call", "huddle", "assign", "assigning", "assigned", "reassign",
	"reassigning", "reassigned", "ping", "pinging", "pinged", "loop", "looping", "escalate", "escalating",
	"schedule", "postpone", "postponing", "defer", "deferring", "cc'ing", "ccing", "adding", "tagging",
	"tag", "invite", "inviting", "hand", "handing", "delegate", "delegating", "triage", "prioritize",
	"backlog", "sprint", "priority", "agenda", "ooo", "vacation", "out", "away", "afk", "pto", "leave")

// objectStarters may open the object of an instruction ("Document *the*
// retry policy").
var objectStarters = set("the", "this", "that", "these", "those", "a", "an", "all", "each", "every", "any",
	"some", "its", "their", "your", "our", "it", "them", "both", "either", "more", "less", "out", "up", "down",
	"in", "back", "off", "over", "away", "section", "sections", "sec", "paragraph", "step", "steps", "row",
	"table", "diagram", "heading", "title", "requirement", "requirements", "criterion", "criteria", "ac",
	"item", "items", "line", "lines", "page", "appendix", "field", "fields", "flag", "flags", "column",
	"columns", "example", "examples", "note", "notes", "text", "wording", "term", "terms")

// copulas make a noun-first clause a statement ("Change log looks good").
var copulas = set("is", "are", "was", "were", "looks", "look", "seems", "seem", "reads", "sounds", "feels",
	"'s", "has", "have", "became", "becomes", "remains", "stays", "works", "worked", "helps", "helped", "makes")

// goAheadVerbs after "please" are a go-ahead or about the review, not an
// edit.
var notEditAfterPlease = set("proceed", "continue", "go", "carry", "ship", "approve", "let", "see",
	"note", "feel", "reach", "ping", "review", "look", "take", "wait", "hold", "read", "check", "keep",
	"don't", "do", "confirm", "advise", "ignore", "disregard", "accept", "enjoy", "excuse", "forgive",
	"bear", "stand", "find", "share", "tag", "cc", "loop", "assign", "advise", "sign")

func isRef(w string) bool {
	if len(w) >= 2 && (w[0] == 'r' || w[0] == 'q') && isDigits(w[1:]) {
		return true
	}
	if strings.HasPrefix(w, "ac") && len(w) > 2 && isDigits(w[2:]) {
		return true
	}
	return isDigits(w) || w == "§"
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			if s[i] == '.' || s[i] == '-' {
				continue
			}
			return false
		}
	}
	return true
}

// isCourtesy reports words made only of courtesy phrases and @-mentions
// (none counts).
func isCourtesy(words []string) bool {
	reach := make([]bool, len(words)+1)
	reach[0] = true
	for i := 0; i < len(words); i++ {
		if !reach[i] {
			continue
		}
		if strings.HasPrefix(words[i], "@") {
			reach[i+1] = true
			continue
		}
		for _, c := range courtesyPhrases {
			if hasPrefix(words[i:], c) {
				reach[i+len(c)] = true
			}
		}
	}
	return reach[len(words)]
}

// approvalIn reports whether words, less courtesy before and after, are one
// of the approval constructions; withComments and goAhead say which kind.
func approvalIn(words []string) (ok, withComment, goAhead bool) {
	for a := 0; a < len(words); a++ {
		if !isCourtesy(words[:a]) {
			break
		}
		for b := len(words); b > a; b-- {
			if !isCourtesy(words[b:]) {
				break
			}
			core := words[a:b]
			switch {
			case matchesAny(core, withComments()):
				return true, true, false
			case matchesAny(core, approvalCore()):
				return true, false, false
			case matchesAny(core, goAheads()):
				return true, false, true
			}
		}
	}
	return false, false, false
}

// inCore reports whether words, less courtesy before and after, match one
// of ps.
func inCore(words []string, ps []pattern) bool {
	for a := 0; a < len(words); a++ {
		if !isCourtesy(words[:a]) {
			break
		}
		for b := len(words); b > a; b-- {
			if !isCourtesy(words[b:]) {
				break
			}
			if matchesAny(words[a:b], ps) {
				return true
			}
		}
	}
	return false
}

// approvalAct returns the first word or phrase of words that gives or
// speaks of an approval.
func approvalAct(words []string) (string, bool) {
	for i, w := range words {
		switch {
		case strings.HasPrefix(w, "approv") || strings.HasPrefix(w, "unapprov"):
			return w, true
		case w == "lgtm" || w == "sgtm" || w == "+1" || w == "shipit" || w == "greenlight" || w == "greenlit" ||
			w == "go-ahead" || w == "sign-off" || w == "signoff" || w == "signed-off" || w == "blessing" ||
			w == "accepted" || w == "accept" || w == "accepting" || w == "okayed" || w == "ok'd" || w == "lgtm'd":
			return w, true
		case (w == "ship" || w == "merge") && i+1 < len(words) && (words[i+1] == "it" || words[i+1] == "this" || words[i+1] == "away"):
			return w + " " + words[i+1], true
		case w == "proceed" || w == "proceeding":
			return w, true
		case (w == "go" || w == "going") && i+1 < len(words) && words[i+1] == "ahead":
			return "go ahead", true
		case (w == "sign" || w == "signed" || w == "signing" || w == "signs") && i+1 < len(words) && words[i+1] == "off":
			return w + " off", true
		case (w == "good" || w == "ready" || w == "clear" || w == "ok" || w == "okay" || w == "fine") && i+2 < len(words) &&
			words[i+1] == "to" && (words[i+2] == "go" || words[i+2] == "merge" || words[i+2] == "ship" || words[i+2] == "proceed"):
			return w + " to " + words[i+2], true
		case w == "ready" && i+1 < len(words) && (words[i+1] == "for" || words[i+1] == "to"):
			return "ready " + words[i+1], true
		case (w == "looks" || w == "look" || w == "looking") && i+1 < len(words) &&
			(words[i+1] == "good" || words[i+1] == "great" || words[i+1] == "fine" || words[i+1] == "ok" || words[i+1] == "okay"):
			return w + " " + words[i+1], true
		case w == "thumbs" && i+1 < len(words) && words[i+1] == "up":
			return "thumbs up", true
		case (w == "happy" || w == "fine" || w == "ok" || w == "okay") && i+1 < len(words) && (words[i+1] == "with" || words[i+1] == "by"):
			return w + " " + words[i+1], true
		case w == "works" && i+2 < len(words) && words[i+1] == "for" && (words[i+2] == "me" || words[i+2] == "us"):
			return "works for " + words[i+2], true
		}
	}
	return "", false
}

// negatorIn returns the first negator of words.
func negatorIn(words []string) (string, int, bool) {
	for i, w := range words {
		if isNegator(w) {
			return w, i, true
		}
	}
	return "", -1, false
}

// benignConditionAt returns the length of a benign condition at words[i:]
// (0 when none).
func benignConditionAt(words []string, i int) int {
	for _, p := range benignConditions {
		if hasPrefix(words[i:], p) {
			return len(p)
		}
	}
	return 0
}

// hasBenignCondition reports a benign condition in words.
func hasBenignCondition(words []string) bool {
	for i := range words {
		if benignConditionAt(words, i) > 0 {
			return true
		}
	}
	return false
}

// questionOpener reports a clause that opens a question without a
// question mark: a wh-word, or an auxiliary followed by a subject.
func questionOpener(words []string) (string, bool) {
	i := 0
	for i < len(words)-1 && isCourtesy(words[i:i+1]) {
		i++
	}
	if i >= len(words) {
		return "", false
	}
	w := words[i]
	if whWords[w] && len(words) > i+1 && !(w == "when" || w == "what" && i+1 < len(words) && words[i+1] == "a") {
		return w, true
	}
	if auxiliaries[w] && len(words) > i+1 && (subjectWords[words[i+1]] || strings.HasPrefix(words[i+1], "@")) {
		return w, true
	}
	return "", false
}

// stripLeading drops leading courtesy and discourse words.
func stripLeading(words []string) []string {
	for len(words) > 0 {
		w := words[0]
		if strings.HasPrefix(w, "@") || discourse[w] {
			words = words[1:]
			continue
		}
		break
	}
	return words
}

// discourse are words that open a clause and say nothing of its role.
var discourse = set("so", "well", "ok", "okay", "and", "then", "also", "now", "anyway", "anyways", "honestly",
	"btw", "fwiw", "hi", "hey", "hello", "oh", "ah", "hmm", "um", "uh", "yes", "yeah", "yep", "alright", "right",
	"sure", "actually", "basically", "overall", "otherwise", "still", "again", "plus", "just", "but", "though",
	"however", "finally", "lastly", "firstly", "first", "second", "secondly", "third", "thirdly", "separately",
	"additionally", "further", "furthermore", "moreover", "personally", "frankly", "ideally", "kindly",
	"team", "folks", "all", "everyone", "guys", "y'all", "really", "very", "truly", "super", "genuinely",
	"wow", "great", "nice", "awesome", "thanks", "cheers", "ps", "fyi")

// imperativeChange reports an instruction to edit the artifact: a change
// verb first in the clause (after "please", "make sure", "let's"…), or any
// verb after "please". soft is set for a suggested edit ("we could add …",
// "maybe add …").
func imperativeChange(words []string) (cue string, soft, ok bool) {
	w := stripLeading(words)
	directed := false
	for changed := true; changed && len(w) > 0; {
		changed = false
		for _, d := range softDirectives {
			if hasPrefix(w, d) && len(w) > len(d) {
				soft, changed, w = true, true, w[len(d):]
				break
			}
		}
		for _, d := range directives {
			if hasPrefix(w, d) && len(w) > len(d) {
				switch d[0] {
				case "please", "pls", "plz", "kindly":
					directed = true
				}
				changed, w = true, w[len(d):]
				break
			}
		}
	}
	if len(w) == 0 {
		return "", false, false
	}
	v := w[0]
	if directed && !soft {
		if notEditAfterPlease[v] || strings.HasPrefix(v, "approv") || isCourtesy(w[:1]) {
			return "", false, false
		}
		if len(w) > 1 && w[1] == "it" && (v == "ship" || v == "merge") {
			return "", false, false
		}
		if strongChangeVerbs[v] || !functionWords[v] && !isRef(v) && !cueWord(v) {
			return "please " + v, false, true
		}
		return "", false, false
	}
	if !strongChangeVerbs[v] {
		if soft && len(v) > 3 && strings.HasSuffix(v, "ing") && (strongChangeVerbs[strings.TrimSuffix(v, "ing")] || strongChangeVerbs[strings.TrimSuffix(v, "ing")+"e"]) {
			return v, true, true // "consider adding …"
		}
		return "", false, false
	}
	if len(w) < 2 && !directed && !soft {
		return "", false, false // an instruction names what to change: "tidy" alone is a word of praise
	}
	for k := 1; k <= 2 && k < len(w); k++ {
		if copulas[w[k]] {
			return "", false, false // "Change log looks good": a noun, not an instruction
		}
	}
	if weakChangeVerbs[v] && !directed && !soft {
		if len(w) < 2 || !(objectStarters[w[1]] || isRef(w[1])) {
			return "", false, false
		}
	}
	return v, soft, true
}

// politeRequest reports "could you add …", "would you mind adding …".
func politeRequest(words []string) (string, bool) {
	w := stripLeading(words)
	for _, ask := range changeAsks {
		if !hasPrefix(w, ask) {
			continue
		}
		rest := w[len(ask):]
		for len(rest) > 0 && (rest[0] == "please" || rest[0] == "also" || rest[0] == "just" || rest[0] == "maybe" || rest[0] == "quickly") {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			return "", false
		}
		v := strings.TrimSuffix(rest[0], "ing")
		if strongChangeVerbs[rest[0]] || strongChangeVerbs[v] || strongChangeVerbs[v+"e"] || len(v) > 2 && strongChangeVerbs[v[:len(v)-1]] {
			return strings.Join(ask, " ") + " " + rest[0], true
		}
		if (rest[0] == "get" || rest[0] == "have" || rest[0] == "see") && len(rest) > 2 &&
			(rest[1] == "a" || rest[1] == "an" || rest[1] == "some" || rest[1] == "the" || rest[1] == "more" || rest[1] == "any") &&
			!(rest[2] == "look" || rest[2] == "chat" || rest[2] == "call" || rest[2] == "meeting" || rest[2] == "sync" || rest[2] == "quick" || rest[2] == "review" || rest[2] == "second") {
			return strings.Join(ask, " ") + " " + rest[0], true // "can we get a sequence diagram for …?"
		}
		return "", false
	}
	return "", false
}

// obligation finds an obligation laid on the artifact or the author ("R2
// should say …", "we need a rollback plan", "this must cover …"). An
// obligation of the reviewer's own review ("I need more time") is not one.
func obligation(words []string) (string, bool) {
	for i, w := range words {
		if !obligations[w] && !(w == "ought" && i+1 < len(words) && words[i+1] == "to") &&
			!((w == "has" || w == "have") && i+1 < len(words) && words[i+1] == "to" && i > 0 && !isNegator(words[i-1])) {
			continue
		}
		subj := ""
		if i > 0 {
			subj = words[i-1]
		}
		if w == "needed" && !(subj == "is" || subj == "are" || subj == "be" || subj == "'s" || subj == "still" || subj == "also") {
			continue
		}
		if i >= 2 && (words[i-2] == "what" || words[i-2] == "that" || words[i-2] == "which" || words[i-2] == "everything" || words[i-2] == "exactly") {
			continue // "exactly what we need" is praise
		}
		if subj == "i" || subj == "i'd" || subj == "i'll" || i >= 2 && words[i-2] == "i" && (subj == "really" || subj == "just" || subj == "still" || subj == "might" || subj == "may") {
			return "", false // the reviewer's own need
		}
		rest := words[i+1:]
		if w == "need" || w == "needs" || w == "needed" {
			if len(rest) > 0 && (rest[0] == "more" && len(rest) > 1 && (rest[1] == "time" || rest[1] == "eyes" || rest[1] == "reviewers")) || len(rest) > 1 && rest[0] == "to" && (metaWords[rest[1]] || reviewVerbs[rest[1]] && rest[1] != "test") {
				return "", false
			}
			if len(rest) > 0 && (rest[0] == "approval" || rest[0] == "sign-off" || rest[0] == "signoff" || rest[0] == "review" || rest[0] == "a" && len(rest) > 1 && (rest[1] == "review" || rest[1] == "second")) {
				return "", false
			}
		}
		if (w == "should" || w == "must") && len(rest) > 1 && rest[0] == "be" && (rest[1] == "good" || rest[1] == "fine" || rest[1] == "ok" || rest[1] == "okay" || rest[1] == "ready" || rest[1] == "approved" || rest[1] == "able") {
			return "", false
		}
		if w == "required" || w == "necessary" || w == "mandatory" {
			if i == 0 || !(subj == "is" || subj == "are" || subj == "be") {
				continue
			}
		}
		return w, true
	}
	return "", false
}

// defect finds a word or phrase that says something in the artifact is
// wrong or missing ("wrong", "doesn't cover", "no mention of", "too vague").
func defect(words []string) (string, bool) {
	if resolved(words) {
		return "", false
	}
	for i, w := range words {
		prevNeg := i > 0 && isNegator(words[i-1]) || i > 1 && isNegator(words[i-2]) && (words[i-1] == "be" || words[i-1] == "really" || words[i-1] == "too" || words[i-1] == "very" || words[i-1] == "a" || words[i-1] == "any")
		switch {
		case isNegator(w) && i+3 < len(words) && (words[i+1] == "find" || words[i+1] == "see" || words[i+1] == "spot") &&
			(words[i+2] == "anything" || words[i+2] == "any" || words[i+2] == "a" || words[i+2] == "mention") && !concernNouns[words[i+3]]:
			return w + " " + words[i+1] + " " + words[i+2], true // "I can't find anything about audit logging"
		case (w == "haven't" || w == "havent" || w == "didn't" || w == "didnt") && (i == 0 || words[i-1] == "i" || words[i-1] == "we"):
			continue // the reviewer's own unfinished review, not the artifact's gap
		case isNegator(w) && i+1 < len(words) && (strings.HasSuffix(words[i+1], "able") || strings.HasSuffix(words[i+1], "ible") || qualities[words[i+1]]) && !(w == "no" || w == "nothing" || w == "none"):
			return w + " " + words[i+1], true // "aren't measurable"
		case w == "no" && i > 0 && (words[i-1] == "has" || words[i-1] == "have" || words[i-1] == "contains" || words[i-1] == "includes" ||
			words[i-1] == "gives" || words[i-1] == "provides" || words[i-1] == "offers" || words[i-1] == "shows" || words[i-1] == "lists" ||
			words[i-1] == "with" || words[i-1] == "had") && i+1 < len(words) && !concernNouns[words[i+1]]:
			return words[i-1] + " no", true // "the testing plan has no performance tests"
		case w == "off" && i+1 < len(words) && words[i+1] == "by":
			return "off by", true
		case (w == "start" || w == "draft" || w == "attempt") && i > 0 && (words[i-1] == "good" || words[i-1] == "first" || words[i-1] == "decent" || words[i-1] == "great" || words[i-1] == "promising" || words[i-1] == "rough"):
			return words[i-1] + " " + w, true // "a good start" is not a finished artifact
		case (w == "there" || w == "close") && i > 0 && (words[i-1] == "almost" || words[i-1] == "getting" || words[i-1] == "nearly" || words[i-1] == "not" && w == "there"):
			return words[i-1] + " " + w, true
		case isNegator(w) && i+1 < len(words) && coverVerbs[words[i+1]] && !(w == "no" || w == "nothing" || w == "none"):
			return w + " " + words[i+1], true
		case isNegator(w) && i+2 < len(words) && (words[i+1] == "really" || words[i+1] == "fully" || words[i+1] == "quite" || words[i+1] == "yet" || words[i+1] == "be" || words[i+1] == "even" || words[i+1] == "clearly" || words[i+1] == "always") && coverVerbs[words[i+2]]:
			return w + " " + words[i+2], true
		case (w == "no" || w == "zero") && i+1 < len(words) && (words[i+1] == "mention" || words[i+1] == "word" || words[i+1] == "section" || words[i+1] == "discussion" || words[i+1] == "explanation" || words[i+1] == "details" || words[i+1] == "detail" || words[i+1] == "plan" || words[i+1] == "tests" || words[i+1] == "test" || words[i+1] == "owner" || words[i+1] == "definition" || words[i+1] == "description" || words[i+1] == "rationale" || words[i+1] == "justification" || words[i+1] == "data" || words[i+1] == "numbers" || words[i+1] == "example" || words[i+1] == "examples"):
			return "no " + words[i+1], true
		case w == "nothing" && i+1 < len(words) && (words[i+1] == "about" || words[i+1] == "on" || words[i+1] == "covers" || words[i+1] == "says" || words[i+1] == "explains" || words[i+1] == "describes" || words[i+1] == "mentions"):
			return "nothing " + words[i+1], true
		case (w == "there's" || w == "theres" || w == "there") && i+2 < len(words) && (words[i+1] == "no" || words[i+1] == "is" && words[i+2] == "no" || words[i+1] == "are" && words[i+2] == "no"):
			j := i + 2
			if words[i+1] != "no" {
				j = i + 3
			}
			if j < len(words) && !concernNouns[words[j]] {
				return "there is no", true
			}
		case (w == "hard" || w == "difficult" || w == "impossible" || w == "tricky") && i+2 < len(words) && words[i+1] == "to" &&
			(words[i+2] == "read" || words[i+2] == "follow" || words[i+2] == "understand" || words[i+2] == "parse" ||
				words[i+2] == "test" || words[i+2] == "verify" || words[i+2] == "implement" || words[i+2] == "review" ||
				words[i+2] == "see" || words[i+2] == "tell" || words[i+2] == "maintain" || words[i+2] == "use"):
			if !prevNeg {
				return w + " to " + words[i+2], true
			}
		case w == "still" && i > 0 && i+1 < len(words) && stillSays[words[i+1]] && !(words[i-1] == "i" || words[i-1] == "we" || words[i-1] == "i'm" || words[i-1] == "we're"):
			return "still " + words[i+1], true
		case w == "out" && i+2 < len(words) && words[i+1] == "of" && (words[i+2] == "date" || words[i+2] == "sync" || words[i+2] == "scope" || words[i+2] == "step"):
			return "out of " + words[i+2], true
		case w == "up" && i+2 < len(words) && words[i+1] == "to" && words[i+2] == "date" && i > 0 && isNegator(words[i-1]):
			return "not up to date", true
		case w == "too" && i+1 < len(words) && !functionWords[words[i+1]] && !isCourtesy(words[i+1:i+2]):
			return "too " + words[i+1], true
		case (w == "off" || w == "wrong") && i > 0 && (words[i-1] == "seems" || words[i-1] == "looks" || words[i-1] == "feels" || words[i-1] == "is" || words[i-1] == "bit" || words[i-1] == "little" || words[i-1] == "something" || words[i-1] == "reads"):
			if !prevNeg {
				return words[i-1] + " " + w, true
			}
		case (w == "i" || w == "we") && i+1 < len(words) && (words[i+1] == "object" || words[i+1] == "disagree" || words[i+1] == "doubt"):
			return w + " " + words[i+1], true
		case w == "not" && i+1 < len(words) && (words[i+1] == "convinced" || words[i+1] == "sure" && i+2 < len(words) && (words[i+2] == "about" || words[i+2] == "that" || words[i+2] == "this" || words[i+2] == "if" || words[i+2] == "r")):
			return "not " + words[i+1], true
		case defectWords[w] && !prevNeg:
			if concernNouns[w] && !concernCritique(words, i) {
				continue
			}
			return w, true
		}
	}
	return "", false
}

// qualities, negated, say the artifact lacks what it needs ("not
// specific", "isn't explicit").
var qualities = set("specific", "explicit", "precise", "concrete", "actionable", "measurable", "achievable",
	"scalable", "verifiable", "reversible", "idempotent", "compatible", "backward-compatible", "robust",
	"resilient", "detailed", "thorough", "coherent", "aligned", "current", "up-to-date", "accurate", "sound")

// resolved reports a clause that says a problem is dealt with ("the threat
// model covers everything I was worried about", "the typo is fixed").
func resolved(words []string) bool {
	if _, _, neg := negatorIn(words); neg {
		return false
	}
	for i, w := range words {
		switch w {
		case "covers", "addresses", "handles", "answers", "resolves", "fixes", "solves", "settles", "clears",
			"removes", "fixed", "resolved", "addressed", "solved", "settled", "handled", "answered", "cleared":
			return true
		case "was", "were":
			if i > 0 && (words[i-1] == "i" || words[i-1] == "we") {
				return true // "what I was worried about": a concern of the past
			}
		}
	}
	return false
}

// stillSays are what an artifact "still" does when it was meant to change
// ("Section 2 still describes the old flow").
var stillSays = set("describes", "says", "shows", "uses", "mentions", "references", "refers", "lists", "talks",
	"contains", "points", "has", "have", "assumes", "assume", "calls", "names", "depends", "relies", "includes",
	"ignores", "misses", "lacks", "omits", "skips", "treats", "expects", "requires", "allows", "uses", "use",
	"describe", "say", "show", "mention", "reference", "refer", "list", "contain", "point", "is", "are")

// concernCritique reports whether a concern noun at i ("issue", "problem",
// "concern", "blocker") raises one: not when negated ("no issues", "not
// a problem"), resolved ("the issues are fixed"), or naming the ticket
// ("this issue").
func concernCritique(words []string, i int) bool {
	for j := max(0, i-3); j < i; j++ {
		if isNegator(words[j]) || words[j] == "any" || words[j] == "without" {
			return false
		}
	}
	for _, x := range words {
		switch x {
		case "fixed", "resolved", "addressed", "solved", "gone", "handled", "answered", "cleared", "sorted",
			"covered", "closed", "settled", "taken", "earlier", "previous", "raised", "last":
			return false
		}
	}
	w := words[i]
	if (w == "issue" || w == "issues") && i > 0 && (words[i-1] == "this" || words[i-1] == "the" || words[i-1] == "that" || words[i-1] == "github") &&
		!(i+1 < len(words) && (words[i+1] == "with" || words[i+1] == "in" || words[i+1] == "is" || words[i+1] == "here" || words[i+1] == "remains")) {
		return false // the ticket
	}
	return true
}

// bareNegation reports a clause made of a negation alone ("Not.", "nope",
// "not at all", "no way").
func bareNegation(words []string) bool {
	if len(words) == 0 || len(words) > 4 {
		return false
	}
	neg := false
	for _, w := range words {
		switch {
		case isNegator(w):
			neg = true
		case w == "at" || w == "all" || w == "really" || w == "way" || w == "quite" || w == "yet" || w == "so" ||
			w == "or" || w == "maybe" || w == "perhaps" || w == "probably" || w == "absolutely" || w == "definitely" ||
			w == "from" || w == "me" || w == "exactly" || w == "i" || w == "repeat" || w == "do" ||
			w == "it" || w == "is" || w == "this" || w == "that" || w == "thanks" || w == "sorry" ||
			w == "chance" || w == "sir" || w == "even" || w == "close" || w == "again" || w == "again!" || w == "wait" ||
			w == "hmm" || w == "oh" || w == "actually" || w == "well" || w == "uh" || w == "um":
		default:
			return false
		}
	}
	return neg
}

// bareHedge reports a clause made only of hedges ("I think", "probably",
// "I guess").
func bareHedge(words []string) (string, bool) {
	if len(words) == 0 || len(words) > 4 {
		return "", false
	}
	cue := ""
	for _, w := range words {
		switch {
		case hedges[w]:
			cue = w
		case w == "i" || w == "we" || w == "so" || w == "at" || w == "least" || w == "mostly" || w == "it" || w == "seems" || w == "sort" || w == "of" || w == "kind":
		default:
			return "", false
		}
	}
	return cue, cue != ""
}

// cueWord reports a word of a class the grammar reads (so not a name).
func cueWord(w string) bool {
	return isNegator(w) || subordinators[w] || futureWords[w] || hypothetical[w] || obligations[w] ||
		hedges[w] || pendingWords[w] || reportVerbs[w] || thirdParty[w] && w != "team" && w != "folks" ||
		approvalVocabulary[w] || defectWords[w] || strongChangeVerbs[w] && !weakChangeVerbs[w] ||
		metaWords[w] || whWords[w] || strings.HasPrefix(w, "approv") || w == "lgtm" || w == "jk" || w == "lol" ||
		w == "kidding" || w == "nvm" || w == "/s" || w == "+1" || w == "-1"
}

// plainWords reports words none of which is in a class the grammar reads.
func plainWords(words []string) bool {
	for _, w := range words {
		if cueWord(w) || strings.HasPrefix(w, "@") {
			return false
		}
	}
	return true
}

// nameLike reports a short remark of words the lexicon does not know (a
// name, "Bob", "Dana Smith"): beside an approval it could speak for someone.
func nameLike(words []string) bool {
	if len(words) == 0 || len(words) > 3 {
		return false
	}
	for _, w := range words {
		if cueWord(w) || functionWords[w] || isCourtesy([]string{w}) || isRef(w) || strings.HasPrefix(w, "@") ||
			concernNouns[w] || specificNouns[w] != "" || verdictLabels[w] || strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "ed") ||
			strings.HasSuffix(w, "ly") || len(w) > 14 || hasAnySuffix(w, "able", "ible", "ful", "ous", "ive", "less") {
			return false
		}
	}
	return true
}

func hasAnySuffix(w string, suffixes ...string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}

// thirdPartySubject reports a clause whose subject is someone else ("she
// knows", "the team thinks", "Bob will review").
func thirdPartySubject(words []string) (string, bool) {
	if len(words) > 1 && strings.HasPrefix(words[0], "@") && (futureWords[words[1]] || reportVerbs[words[1]] ||
		auxiliaries[words[1]] || words[1] == "thinks" || words[1] == "wants" || words[1] == "needs" ||
		words[1] == "approved" || words[1] == "signed" || words[1] == "agreed" || words[1] == "agrees") {
		return words[0], true
	}
	w := stripLeading(words)
	if len(w) == 0 {
		return "", false
	}
	if w[0] == "the" && len(w) > 1 {
		w = w[1:]
	}
	switch w[0] {
	case "he", "she", "they", "someone", "somebody", "everybody", "others", "legal", "security", "qa",
		"management", "product", "ci":
		return w[0], true
	}
	if thirdParty[w[0]] && len(w) > 1 && (futureWords[w[1]] || reportVerbs[w[1]] || w[1] == "is" || w[1] == "are" || w[1] == "has" || w[1] == "have" || w[1] == "thinks" || w[1] == "wants" || w[1] == "needs" || w[1] == "approved" || w[1] == "signed") {
		return w[0], true
	}
	return "", false
}
