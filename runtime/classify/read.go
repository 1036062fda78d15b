package classify

import "strings"

// Label kinds: what the words before a colon make of what follows.
const (
	labelNone     = ""
	labelVerdict  = "verdict"  // "Status:", "Verdict:", "Overall:"
	labelArtifact = "artifact" // "Design:", "Requirements:"
	labelBlocking = "blocking" // "Blocking:", "Missing:", "Issue:"
	labelLater    = "later"    // "Nit:", "Optional:", "FYI:"
	labelPending  = "pending"  // "First pass:", "WIP:"
	labelQuestion = "question" // "Question:"
	labelPart     = "part"     // "R2:", "Section 3:"
	labelOther    = "other"    // "Bob:", "test:", "QA:" — not the reviewer speaking
)

var neutralLabels = set("one thing", "one more thing", "one thing though", "also", "however", "but", "that said",
	"btw", "by the way", "context", "background", "for context", "details", "reason", "reasoning", "why",
	"rationale", "to be clear", "in particular", "specifically", "e.g", "eg", "example", "for example", "i.e",
	"ie", "comments", "my comments", "feedback", "my feedback", "review comments", "thoughts", "overall thoughts",
	"my thoughts", "a few things", "a couple of things", "a few comments", "some comments", "some notes",
	"points", "observations", "general", "general comments", "two things", "a couple things", "few things",
	"things", "notes", "note", "comment", "a comment", "one comment", "side note", "hi", "hey", "hello",
	"thanks", "thank you", "so", "ok", "okay", "well", "honestly", "and", "plus", "in summary", "summary",
	"also though", "one small thing", "small thing", "just one thing", "only thing", "the only thing",
	"one last thing", "last thing", "finally", "anyway", "result", "overall", "tl;dr", "tldr", "tl dr")

var pendingLabels = set("first pass", "first look", "first glance", "initial thoughts", "initial review",
	"initial comments", "initial feedback", "wip", "partial review", "quick look", "quick pass", "early thoughts",
	"preliminary", "preliminary review", "preliminary thoughts", "so far", "progress", "in progress",
	"work in progress", "draft", "draft review", "first read", "first impressions", "first impression",
	"quick thoughts", "quick skim", "skim")

var questionLabels = set("question", "questions", "q", "qs", "one question", "a question", "quick question",
	"open question", "open questions")

var partWords = set("section", "sections", "sec", "§", "paragraph", "appendix", "glossary", "diagram",
	"table", "intro", "introduction", "heading", "title", "requirement", "criteria", "criterion",
	"stories", "story", "model", "api", "schema", "threat", "scope", "goals", "non-goals", "risks",
	"rollout", "migration", "testing", "tests", "part", "page", "step", "steps", "item", "items")

// labelKind classifies a label at a gate reviewing subjects.
func labelKind(label string) string {
	if strings.HasPrefix(label, frameLabel) {
		return frameKind(strings.Fields(label[len(frameLabel):]))
	}
	words := strings.Fields(label)
	if _, _, ok := containsPhrase(words, changePhrases); ok {
		return labelBlocking
	}
	for _, w := range words {
		if reportVerbs[w] || strings.HasSuffix(w, "'s") && w != "it's" && w != "that's" && w != "here's" && w != "let's" {
			return labelOther
		}
	}
	switch {
	case label == "":
		return labelNone
	case verdictLabels[label]:
		return labelVerdict
	case specificNouns[label] != "" || len(words) == 2 && (words[0] == "the" || words[0] == "my") && specificNouns[words[1]] != "":
		return labelArtifact
	case blockingLabels[label] || blockingWord(words):
		return labelBlocking
	case pendingLabels[label]:
		return labelPending
	case questionLabels[label]:
		return labelQuestion
	case laterLabels[label] || len(words) > 1 && (laterLabels[words[0]] || laterLabels[words[len(words)-1]]):
		return labelLater
	case neutralLabels[label]:
		return labelNone
	}
	for _, w := range words {
		if isRef(w) || partWords[w] {
			return labelPart
		}
	}
	return labelOther
}

// blockingWord reports a label naming a problem ("my main concern",
// "blocking issue").
func blockingWord(words []string) bool {
	for _, w := range words {
		switch w {
		case "blocking", "blocker", "blockers", "concern", "concerns", "issue", "issues", "problem", "problems",
			"bug", "bugs", "missing", "must-fix", "showstopper", "gap", "gaps", "risk", "risks", "error", "errors",
			"mistake", "mistakes", "objection", "objections":
			return true
		}
	}
	return false
}

// frameKind classifies a statement before a colon: someone else's words
// ("Copying Bob's comment from Slack:"), the reviewer's own verdict ("Here
// is my verdict:"), or a remark that frames nothing in particular.
func frameKind(words []string) string {
	own, verdict := false, false
	for _, w := range words {
		switch {
		case reportVerbs[w] || w == "copying" || w == "pasting" || w == "cross-posting" || w == "from" ||
			strings.HasSuffix(w, "'s") && w != "it's" && w != "that's" && w != "here's" && w != "let's" && w != "what's":
			return labelOther
		case w == "my" || w == "i" || w == "our" || w == "we" || w == "here's" || w == "heres":
			own = true
		case w == "verdict" || w == "decision" || w == "review" || w == "answer" || w == "conclusion" || w == "status" || w == "summary" || w == "take":
			verdict = true
		}
	}
	if _, _, ok := containsPhrase(words, changePhrases); ok {
		return labelBlocking
	}
	if own && verdict {
		return labelVerdict
	}
	return labelNone
}

// read gives one clause its reading. subjects are the artifacts under
// review (nil: any).
func read(c *clause, subjects []string) reading {
	s := c.sentence
	w := c.words
	lk := labelKind(c.label)
	if s.signature {
		return reading{role: roleCompany}
	}
	// Phrases that turn the whole clause.
	if p, ok := retraction(w); ok {
		return withhold(kindRetraction, p)
	}
	if p, _, ok := containsPhrase(w, sarcasmPhrases); ok {
		return withhold(kindSarcasm, p)
	}
	question, qcue := s.question && s.clauses[len(s.clauses)-1] == c, "?"
	if !question && (s.clauses[0] == c || c.label != "" && c.label != s.label) {
		// a wh-word or an auxiliary opens a question only at the head of
		// its sentence: "…, which needs a rewrite" is a relative clause
		qcue, question = questionOpener(w)
	}
	cond, condAt, conditional := conditionOf(s)
	if courtesyClosing(w) {
		return reading{role: roleCompany}
	}

	// An approval in the reviewer's own voice. "Approve" alone is one too,
	// unless someone is addressed (then it asks them to approve).
	ok, wc, goAhead := approvalIn(w)
	if !ok && len(w) == 1 && w[0] == "approve" && !addressed(s) {
		ok = true
	}
	if ok {
		switch {
		case question:
			return withhold(kindQuestion, qcue)
		case conditional:
			if asksEdit(sentenceWordsAll(s)[condAt:]) {
				return reading{role: roleChange, cue: cond}
			}
			return withhold(kindCondition, cond)
		case lk == labelPending:
			return withhold(kindPending, c.label)
		case lk == labelOther:
			return withhold(kindReported, "label")
		case lk == labelPart:
			return withhold(kindAbout, "")
		case lk == labelQuestion:
			return withhold(kindQuestion, c.label)
		case lk == labelArtifact && namesOther(strings.Fields(c.label), subjects):
			return withhold(kindOther, "")
		case !goAhead && namesOther(w, subjects):
			return withhold(kindOther, "")
		case wc:
			return reading{role: roleApproveWithComments}
		}
		return reading{role: roleApprove}
	}
	if inCore(w, refusalCore()) {
		switch {
		case question:
			return withhold(kindQuestion, qcue)
		case conditional:
			return withhold(kindCondition, cond)
		case lk == labelOther:
			return withhold(kindReported, "label")
		}
		return reading{role: roleRefuse, cue: "not approved"}
	}
	core := stripLeading(w)
	if inCore(core, benignNegations()) || inCore(w, benignNegations()) {
		if lk == labelBlocking || lk == labelLater || lk == labelNone || lk == labelVerdict {
			return reading{role: roleCompany}
		}
	}
	// Under a blocking label, any remark asks for a change.
	if lk == labelBlocking && !bareNegation(w) {
		return reading{role: roleChange, cue: c.label}
	}
	later := lk == labelLater || laterIn(sentenceWordsAll(s))

	// A change the artifact needs.
	if p, at, ok := containsPhrase(w, changePhrases); ok {
		if _, nat, neg := negatorIn(w); !(neg && nat < at && !strings.HasPrefix(p, "not") && !strings.HasPrefix(p, "do") && !strings.HasPrefix(p, "don")) {
			switch {
			case question && !strings.HasPrefix(p, "please"):
				return withhold(kindQuestion, qcue)
			case conditional && !hasBenignCondition(sentenceWordsAll(s)):
				return withhold(kindCondition, cond)
			case later:
				return reading{role: roleLater, cue: p}
			}
			return reading{role: roleChange, cue: p}
		}
	}
	if p, ok := prohibition(w); ok && !question {
		if later {
			return reading{role: roleLater, cue: p}
		}
		return reading{role: roleChange, cue: p}
	}
	if p, ok := insistence(w); ok && !question {
		if later {
			return reading{role: roleLater, cue: p}
		}
		return reading{role: roleChange, cue: p}
	}
	if p, ok := politeRequest(w); ok {
		if later {
			return reading{role: roleLater, cue: p}
		}
		return reading{role: roleChange, cue: p}
	}
	if p, ok := wish(w); ok && !question {
		if later {
			return reading{role: roleLater, cue: p}
		}
		return reading{role: roleSoft, cue: p}
	}
	if p, soft, ok := imperativeChange(w); ok && !question && !soft && !conditional {
		if later {
			return reading{role: roleLater, cue: p}
		}
		return reading{role: roleChange, cue: p}
	}
	_, hasAct := approvalAct(w)
	if hasAct {
		// Approval words in another construction: asked, conditional,
		// reported, pending, negated… never an approval.
		if d, ok := defect(w); ok && !question {
			return reading{role: roleChange, cue: d}
		}
		if o, ok := obligation(w); ok && !question && !conditional {
			return reading{role: roleChange, cue: o} // "the open questions need answers before I can approve"
		}
		if conditional && asksEdit(sentenceWordsAll(s)[condAt:]) {
			return reading{role: roleChange, cue: cond}
		}
		return aboutApproval(c, w, question, qcue, conditional, cond)
	}
	if p, soft, ok := imperativeChange(w); ok && !question {
		switch {
		case soft && later:
			return reading{role: roleLater, cue: p}
		case soft:
			return reading{role: roleSoft, cue: p}
		case conditional && hasBenignCondition(sentenceWordsAll(s)):
			return reading{role: roleSoft, cue: p}
		case conditional:
			return withhold(kindCondition, cond)
		case later:
			return reading{role: roleLater, cue: p}
		}
		return reading{role: roleChange, cue: p}
	}
	if p, ok := obligation(w); ok && !question {
		switch {
		case conditional && hasBenignCondition(sentenceWordsAll(s)):
			return reading{role: roleSoft, cue: p}
		case later:
			return reading{role: roleLater, cue: p}
		case conditional:
			return withhold(kindCondition, cond)
		}
		return reading{role: roleChange, cue: p}
	}
	if p, ok := defect(w); ok {
		switch {
		case question && !negativeAsk(w):
			return withhold(kindQuestion, qcue)
		case later:
			return reading{role: roleLater, cue: p}
		case conditional:
			return withhold(kindCondition, cond)
		}
		return reading{role: roleChange, cue: p}
	}
	if question {
		if negativeAsk(w) {
			return reading{role: roleChange, cue: qcue}
		}
		if later {
			return reading{role: roleLater, cue: "?"}
		}
		return withhold(kindQuestion, qcue)
	}
	if lk == labelPending {
		return withhold(kindPending, c.label)
	}
	if lk == labelLater {
		return reading{role: roleLater, cue: c.label} // "Nit: …, but that can come later."
	}
	if isCourtesy(w) || courtesyHead(w) {
		return reading{role: roleCompany}
	}
	if p, ok := pendingIn(w); ok {
		return withhold(kindPending, p)
	}
	if bareNegation(w) {
		return withhold(kindNegation, firstNegator(w))
	}
	if len(w) == 1 && contrasts[w[0]] {
		return withhold(kindUnsaid, w[0]) // "Approved, but..." leaves its reservation unsaid
	}
	if p, ok := withTerms(w); ok {
		return p
	}
	if p, _, ok := containsPhrase(w, softPhrases); ok {
		if neg, _, negated := negatorIn(w); negated && !later {
			return withhold(kindNegation, neg) // "or maybe not"
		}
		if later {
			return reading{role: roleLater, cue: p}
		}
		return reading{role: roleSoft, cue: p}
	}
	if later {
		if p, _, ok := containsPhrase(sentenceWordsAll(s), laterPhrases); ok {
			return reading{role: roleLater, cue: p}
		}
		return reading{role: roleLater, cue: c.label}
	}
	if neg, _, ok := negatorIn(w); ok {
		return withhold(kindNegation, neg)
	}
	if conditional {
		return withhold(kindCondition, cond)
	}
	if lk == labelQuestion {
		return withhold(kindQuestion, c.label)
	}
	if h, ok := bareHedge(w); ok {
		return withhold(kindHedge, h)
	}
	if h, ok := hedgedEvaluation(w); ok {
		return withhold(kindHedge, h)
	}
	if p, ok := reportedIn(w); ok {
		return withhold(kindReported, p)
	}
	if p, ok := metaIn(w); ok {
		return withhold(kindMeta, p)
	}
	if isCourtesy(w) || courtesyHead(w) {
		return reading{role: roleCompany}
	}
	if contrasts[c.joined] {
		// a statement after "but" beside an approval is a reservation
		return reading{role: roleReservation, cue: c.joined}
	}
	if p, ok := reservationIn(w); ok {
		return reading{role: roleReservation, cue: p}
	}
	if p, ok := scopeIn(w); ok {
		return withhold(kindScope, p)
	}
	return reading{role: roleNeutral}
}

// withTerms reads "with conditions", "with the changes below" beside an
// approval: terms that stand between it and the artifact as written.
func withTerms(words []string) (reading, bool) {
	w := stripLeading(words)
	if len(w) < 2 || w[0] != "with" {
		return reading{}, false
	}
	for _, x := range w[1:] {
		switch x {
		case "condition", "conditions", "caveat", "caveats", "reservations", "reservation", "provisos", "proviso":
			return withhold(kindCondition, "with "+x), true
		case "changes", "change", "fixes", "fix", "amendments", "edits", "modifications", "corrections":
			return reading{role: roleChange, cue: "with " + x}, true
		}
	}
	return reading{}, false
}

// reservationOpeners open an exception: "modulo the naming", "apart from
// R4", "R4 aside".
var reservationOpeners = longestFirst(phraseList("modulo", "apart from", "other than", "barring", "save for",
	"aside from", "except for", "excepting", "excluding", "with the exception of", "notwithstanding",
	"outside of", "minus", "sans"))

// reservationIn returns the exception a clause makes.
func reservationIn(words []string) (string, bool) {
	w := stripLeading(words)
	for _, p := range reservationOpeners {
		if hasPrefix(w, p) && len(w) > len(p) {
			return strings.Join(p, " "), true
		}
	}
	if len(w) > 1 && w[len(w)-1] == "aside" {
		return "aside", true
	}
	return "", false
}

// scopeIn returns what limits an approval to a part of the artifact: "only
// the API section", "for the first half".
func scopeIn(words []string) (string, bool) {
	w := stripLeading(words)
	for i, x := range w {
		switch x {
		case "only", "partially", "partly", "portion", "half", "halves", "subset", "parts", "part":
			if x == "part" && i > 0 && w[i-1] == "for" && i+1 < len(w) && w[i+1] == "of" {
				continue
			}
			return x, true
		}
	}
	if len(w) > 1 && w[0] == "for" && (w[1] == "the" || w[1] == "this" || w[1] == "that" || isRef(w[1]) || partWords[w[1]]) {
		return "for " + w[1], true
	}
	return "", false
}

// contrasts open a reservation.
var contrasts = set("but", "however", "though", "although", "except", "whereas")

// degreeHedges limit an evaluation to a part: "mostly good" says some of it
// is not.
var degreeHedges = set("mostly", "mainly", "largely", "almost", "nearly", "somewhat", "kinda", "sorta", "partly",
	"partially", "partial", "roughly", "broadly", "generally")

// hedgedEvaluation reports an evaluation limited to a part ("mostly good",
// "almost ready"). An evaluation that is only the reviewer's impression
// ("seems fine to me", "the scope feels right") withholds nothing beside an
// approval.
func hedgedEvaluation(words []string) (string, bool) {
	h := ""
	eval := false
	for _, w := range words {
		if degreeHedges[w] {
			h = w
		}
		switch w {
		case "good", "great", "fine", "ok", "okay", "ready", "solid", "correct", "right", "sound", "done", "acceptable":
			eval = true
		}
	}
	return h, h != "" && eval
}

// addressed reports a sentence that names someone (@-mention).
func addressed(s *sentence) bool {
	for _, c := range s.clauses {
		for _, w := range c.words {
			if strings.HasPrefix(w, "@") {
				return true
			}
		}
	}
	return false
}

// aboutApproval explains a clause that speaks of an approval without giving
// one.
func aboutApproval(c *clause, w []string, question bool, qcue string, conditional bool, cond string) reading {
	switch {
	case question:
		return withhold(kindQuestion, qcue)
	case conditional:
		return withhold(kindCondition, cond)
	}
	if neg, _, ok := negatorIn(w); ok {
		return withhold(kindNegation, neg)
	}
	if p, ok := pendingIn(w); ok {
		return withhold(kindPending, p)
	}
	for _, x := range w {
		if futureWords[x] || hypothetical[x] {
			return withhold(kindPending, x)
		}
		if hedges[x] {
			return withhold(kindHedge, x)
		}
	}
	if p, ok := reportedIn(w); ok {
		return withhold(kindReported, p)
	}
	if labelKind(c.label) == labelOther {
		return withhold(kindReported, "label")
	}
	for _, x := range w {
		if obligations[x] {
			return withhold(kindHedge, x)
		}
	}
	// praise of a part ("R1-R5 look great"), or someone else's approval
	// stated as a fact: it gives no approval of the artifact, and withholds
	// none either
	return reading{role: roleNeutral}
}

// asksEdit reports a condition that asks the author for an edit ("if you
// add the retry test", "once you fix the typo").
func asksEdit(words []string) bool {
	for i, w := range words {
		if (w == "you" || w == "we" || w == "u") && i+1 < len(words) {
			v := words[i+1]
			if v == "also" || v == "just" || v == "can" || v == "could" {
				if i+2 >= len(words) {
					return false
				}
				v = words[i+2]
			}
			v = strings.TrimSuffix(v, "ed")
			if strongChangeVerbs[v] || strongChangeVerbs[v+"e"] || strongChangeVerbs[words[i+1]] {
				return true
			}
		}
		if (w == "is" || w == "are" || w == "gets" || w == "get") && i+1 < len(words) && (words[i+1] == "fixed" || words[i+1] == "added" || words[i+1] == "updated" || words[i+1] == "changed" || words[i+1] == "removed" || words[i+1] == "addressed" || words[i+1] == "clarified" || words[i+1] == "corrected" || words[i+1] == "rewritten" || words[i+1] == "renamed") {
			return true
		}
	}
	return false
}

// negativeAsk reports a question that states a defect ("Shouldn't R2 say
// 30 days?", "Doesn't this need a rollback plan?").
func negativeAsk(words []string) bool {
	w := stripLeading(words)
	if len(w) < 2 {
		return false
	}
	switch w[0] {
	case "shouldn't", "shouldnt", "doesn't", "doesnt", "isn't", "isnt", "aren't", "arent", "don't", "dont",
		"wouldn't", "wouldnt", "mustn't":
		for _, x := range w[1:] {
			if obligations[x] || x == "say" || x == "be" || x == "include" || x == "cover" || x == "mention" || defectWords[x] {
				return true
			}
		}
	}
	return false
}

// laterIn reports a mark that the remark does not block.
func laterIn(words []string) bool {
	_, _, ok := containsPhrase(words, laterPhrases)
	return ok
}

// pendingIn returns a word or phrase saying the review is not finished.
func pendingIn(words []string) (string, bool) {
	if p, _, ok := containsPhrase(words, pendingPhrases); ok {
		return p, true
	}
	for i, w := range words {
		if pendingWords[w] {
			switch w {
			case "rest", "remaining", "remainder":
				if i > 0 && (words[i-1] == "the" || words[i-1] == "a") || i+1 < len(words) && words[i+1] == "of" {
					return w, true
				}
				continue
			case "still":
				if !(i+1 < len(words) && (reviewVerbs[words[i+1]] || words[i+1] == "waiting" || words[i+1] == "need" || words[i+1] == "have" || words[i+1] == "going" || words[i+1] == "catching" || words[i+1] == "on") || len(stripLeading(words)) <= 2) {
					continue
				}
			case "looking", "reading", "checking", "reviewing", "digesting", "continuing":
				// a progressive of the review: "still reading", "looking at it now"
				return w, true
			case "wait":
				if i > 0 && (words[i-1] == "can" || words[i-1] == "can't" || words[i-1] == "cant") {
					continue
				}
			case "later", "tomorrow", "tonight", "soon", "shortly", "eventually", "monday", "tuesday",
				"wednesday", "thursday", "friday", "weekend", "eod", "afterwards", "meanwhile":
				if len(stripLeading(words)) > 3 && !reviewing(words) {
					continue // a plan, not a review put off: "we'll start on Monday"
				}
			}
			return w, true
		}
		if (futureWords[w] || w == "going") && i+1 < len(words) {
			rest := words[i+1:]
			if rest[0] == "to" && len(rest) > 1 {
				rest = rest[1:]
			}
			if reviewVerbs[rest[0]] || rest[0] == "be" && len(rest) > 1 && (rest[1] == "back" || rest[1] == "reviewing" || rest[1] == "reading" || rest[1] == "looking") {
				return w + " " + rest[0], true
			}
		}
	}
	return "", false
}

// reviewing reports a clause about the review itself: a verb of reviewing.
func reviewing(words []string) bool {
	for _, w := range words {
		if reviewVerbs[w] && w != "give" && w != "take" && w != "have" && w != "get" && w != "work" && w != "run" {
			return true
		}
	}
	return false
}

// reportedIn returns a word that puts someone else's words or decision in
// the clause: a verb of saying, a third-party subject, or an @-mention
// inside the clause (one at its edge addresses someone).
func reportedIn(words []string) (string, bool) {
	for i, w := range words {
		if reportVerbs[w] {
			if i > 0 && (words[i-1] == "i" || words[i-1] == "we" || words[i-1] == "i've" || words[i-1] == "we've" || words[i-1] == "i'd") {
				continue // "as I said", "I asked" speak of the reviewer's own words
			}
			return w, true
		}
	}
	if p, ok := thirdPartySubject(words); ok {
		return p, true
	}
	inner := words
	for len(inner) > 0 && strings.HasPrefix(inner[0], "@") {
		inner = inner[1:]
	}
	for len(inner) > 0 && strings.HasPrefix(inner[len(inner)-1], "@") {
		inner = inner[:len(inner)-1]
	}
	for i, w := range inner {
		if strings.HasPrefix(w, "@") && !(i > 0 && (inner[i-1] == "cc" || inner[i-1] == "thanks" || inner[i-1] == "thank" || inner[i-1] == "and" || inner[i-1] == "hi" || inner[i-1] == "hey" || inner[i-1] == "you")) {
			return w, true
		}
	}
	return "", false
}

// metaIn returns a word about the process around the review.
func metaIn(words []string) (string, bool) {
	for i, w := range words {
		if metaWords[w] {
			if (w == "out" || w == "away" || w == "call" || w == "loop" || w == "hand" || w == "leave" || w == "priority") && !(i > 0 && (words[i-1] == "i'm" || words[i-1] == "im" || words[i-1] == "am" || words[i-1] == "be" || words[i-1] == "in" || words[i-1] == "a")) {
				continue
			}
			return w, true
		}
	}
	return "", false
}

// courtesyHeads open thanks or praise.
var courtesyHeads = phraseList("thanks for", "thank you for", "thanks to", "thank you to", "many thanks for",
	"thanks again for", "much appreciated", "appreciate", "i appreciate", "we appreciate", "really appreciate",
	"i really appreciate", "appreciated", "kudos to", "kudos for", "kudos on", "props to", "shout-out to",
	"shoutout to", "congrats on", "congratulations on", "great work on", "nice work on", "good work on",
	"great job on", "nice job on", "good job on", "well done on", "great job with", "nice job with",
	"great work with", "love", "love the", "loved", "loved the", "i love", "i loved", "really like",
	"i really like", "i like", "like the", "liked the", "i liked", "enjoyed", "i enjoyed", "really enjoyed",
	"looking forward to", "look forward to", "great to see", "good to see", "nice to see", "glad to see",
	"happy to see", "great work", "nice work", "great job", "nice job", "good job", "well done",
	"great writeup", "great write-up", "great doc", "very nice", "really nice", "nice touch", "good call",
	"can't wait", "cant wait", "can not wait", "cannot wait",
	"great call", "nice catch", "good catch", "great catch", "thanks", "thank you", "cheers", "hi", "hello",
	"hey", "good morning", "morning", "welcome", "congrats", "kudos", "impressive", "excellent work",
	"excellent job", "solid work", "lovely work", "beautiful work", "fantastic work", "amazing work",
	"the new", "the updated", "the revised", "big improvement", "huge improvement", "much better",
	"much clearer", "way better", "a lot better", "a lot clearer", "this is much", "it's much", "this reads",
	"it reads", "reads well", "reads nicely", "reads much")

// courtesyHead reports thanks or praise followed by what it is for
// ("thanks for the quick turnaround", "great work on the diagrams"); the
// rest must hold no negation, condition or approval word.
func courtesyHead(words []string) bool {
	return courtesyHeadAt(words) || courtesyHeadAt(stripLeading(words))
}

func courtesyHeadAt(w []string) bool {
	for _, h := range courtesyHeads {
		if !hasPrefix(w, h) {
			continue
		}
		for _, x := range w[len(h):] {
			if isNegator(x) || subordinators[x] || strings.HasPrefix(x, "approv") || x == "lgtm" || hedges[x] || futureWords[x] || pendingWords[x] && x != "rest" {
				return false
			}
		}
		return true
	}
	return false
}

func firstNegator(words []string) string {
	n, _, _ := negatorIn(words)
	return n
}

// retraction returns what takes a verdict back: a retraction phrase, or a
// retraction verb whose object is a verdict ("ignore my LGTM", "I'm
// withdrawing my approval") or that stands alone ("Retracted.").
func retraction(words []string) (string, bool) {
	if p, _, ok := containsPhrase(words, retractionPhrases); ok {
		return p, true
	}
	core := stripLeading(words)
	for i, w := range core {
		if !retractVerbs[w] {
			continue
		}
		if len(core) <= 2 && !(w == "take" || w == "drop" || w == "pull" || w == "strike" || w == "scratch") {
			return w, true // "Retracted.", "I withdraw."
		}
		for j := i + 1; j < len(core) && j <= i+4; j++ {
			x := core[j]
			if verdictNouns[x] || strings.HasPrefix(x, "approv") {
				if (x == "that" || x == "this" || x == "it" || x == "last" || x == "first" || x == "above") && !pronounRetracts[w] {
					continue // "drop it", "undo the last step": an edit, not a retraction
				}
				if (x == "that" || x == "this" || x == "it") && !(j+1 == len(core) || core[j+1] == "back") {
					continue // "ignore this field", "drop it to 10s"
				}
				if w == "take" || w == "taking" || w == "took" || w == "pull" || w == "pulling" {
					if !(j+1 < len(core) && core[j+1] == "back") && !(i+1 < len(core) && core[i+1] == "back") {
						continue
					}
				}
				return w, true
			}
		}
	}
	return "", false
}

// wish reports the reviewer asking for more in the artifact: "I'd like to
// see load-test numbers", "I want a rollback plan".
func wish(words []string) (string, bool) {
	w := stripLeading(words)
	for _, p := range wishPhrases {
		if hasPrefix(w, p) && len(w) > len(p) {
			if _, act := approvalAct(w[len(p):]); act {
				return "", false // "I'd like to approve, but…" speaks of an approval
			}
			return strings.Join(p, " "), true
		}
	}
	return "", false
}

var wishPhrases = longestFirst(phraseList("i'd like to see", "i would like to see", "i want to see", "i'd want to see",
	"i need to see", "i'd love to see", "i would love to see", "i'd expect", "i would expect", "i expect to see",
	"i'd want", "i would want", "i'd prefer", "i would prefer", "i'd rather", "i would rather", "i'd like",
	"i would like", "we'd like", "we would like", "i'd like us to", "we'd want", "i'd rather see",
	"i'd like more", "i want more", "we want", "i want"))

// prohibition reports an instruction not to do something in the artifact:
// "Let's not use polling", "Don't store PII in logs".
func prohibition(words []string) (string, bool) {
	w := stripLeading(words)
	for _, p := range prohibitions {
		if !hasPrefix(w, p) || len(w) <= len(p) {
			continue
		}
		v := w[len(p)]
		if strongChangeVerbs[v] || v == "store" || v == "log" || v == "rely" || v == "hardcode" || v == "hard-code" ||
			v == "commit" || v == "promise" || v == "ship" && len(w) > len(p)+1 && w[len(p)+1] != "it" || v == "assume" ||
			v == "expose" || v == "call" || v == "depend" || v == "introduce" || v == "go" && len(w) > len(p)+1 && w[len(p)+1] == "with" {
			return strings.Join(p, " ") + " " + v, true
		}
	}
	return "", false
}

var prohibitions = longestFirst(phraseList("let's not", "lets not", "let us not", "please don't", "please do not",
	"don't", "do not", "dont", "we shouldn't", "we should not", "you shouldn't", "you should not", "never",
	"we must not", "we mustn't", "please avoid", "we can't", "we cannot"))

// insistence reports "make sure …", "ensure …", "don't forget …": what
// follows is something the artifact must do.
func insistence(words []string) (string, bool) {
	w := stripLeading(words)
	for _, p := range insistPhrases {
		if hasPrefix(w, p) && len(w) > len(p) {
			return strings.Join(p, " "), true
		}
	}
	return "", false
}

var insistPhrases = longestFirst(phraseList("make sure", "please make sure", "be sure", "please ensure", "ensure",
	"don't forget", "do not forget", "dont forget", "remember to", "please remember to", "we need to make sure",
	"you need to make sure", "need to make sure", "needs to make sure", "it must", "it needs to", "this must",
	"this needs to"))

// pronounRetracts take back "it", "that", "this" (a verdict said before):
// "scratch that", "ignore it", "I take it back".
var pronounRetracts = set("ignore", "ignoring", "disregard", "disregarding", "scratch", "strike", "take", "taking",
	"took", "retract", "retracting", "retracted", "revoke", "revoking", "revoked", "withdraw", "withdrawing",
	"withdrawn", "withdrew", "rescind", "rescinding", "rescinded")

// courtesyClosing reports the closing courtesies of a reply: "let me know
// if …", "feel free to reach out", "happy to chat if …".
func courtesyClosing(words []string) bool {
	w := stripLeading(words)
	for _, h := range closingHeads {
		if hasPrefix(w, h) {
			for _, x := range w[len(h):] {
				if strings.HasPrefix(x, "approv") || x == "lgtm" {
					return false
				}
			}
			return true
		}
	}
	return false
}

var closingHeads = phraseList("let me know", "just let me know", "please let me know", "feel free to reach out",
	"feel free to ping", "feel free to ask", "feel free to reach", "feel free to contact", "happy to chat",
	"happy to discuss", "happy to help", "happy to talk", "happy to pair", "happy to answer", "glad to help",
	"ping me if", "ping me with", "reach out if", "reach out with", "shout if", "holler if", "give me a shout",
	"any questions", "questions welcome", "always happy to", "thanks again", "keep up the good work",
	"keep it up")

// conditionOf returns the condition of a sentence: a subordinator opening
// one of its clauses ("If Bob agrees, …", "…, once CI is green"), or one
// that follows a verdict in its clause ("approved once CI is green", "I'd
// request changes if …"). A subordinator inside a remark ("what happens when
// the queue is full") is not one. Benign conditions ("if you have time") and
// closings ("let me know if …") are left out. at is the condition's place
// in sentenceWordsAll(s).
func conditionOf(s *sentence) (cue string, at int, ok bool) {
	offset := 0
	for _, c := range s.clauses {
		words := c.words
		if c.joined != "" {
			offset++
		}
		if courtesyClosing(words) {
			offset += len(words)
			continue
		}
		lead := len(words) - len(stripLeading(words))
		verdictBefore := false
		for i := 0; i < len(words); i++ {
			if skip := benignConditionAt(words, i); skip > 0 {
				i += skip - 1
				continue
			}
			cue := ""
			if subordinators[words[i]] {
				cue = words[i]
			}
			for _, p := range conditionPhrases {
				if hasPrefix(words[i:], p) {
					cue = strings.Join(p, " ")
				}
			}
			if cue != "" && (i == lead || verdictBefore) {
				return cue, offset + i, true
			}
			if _, ok := approvalAct(words[i : i+1]); ok || verdictWord(words, i) {
				verdictBefore = true
			}
		}
		offset += len(words)
	}
	return "", -1, false
}

// verdictWord reports a word at i that begins a verdict phrase: an approval
// act of two words or a change phrase.
func verdictWord(words []string, i int) bool {
	if _, ok := approvalAct(words[i:min(i+3, len(words))]); ok {
		return true
	}
	for _, p := range changePhrases {
		if hasPrefix(words[i:], p) {
			return true
		}
	}
	return false
}

// sentenceWordsAll returns every word of s (its label left out).
func sentenceWordsAll(s *sentence) []string {
	var out []string
	for _, c := range s.clauses {
		if c.joined != "" {
			out = append(out, c.joined)
		}
		out = append(out, c.words...)
	}
	return out
}
