package classify

import "strings"

// changePhrases ask for the artifact to be revised. The negation a phrase
// carries itself ("not ready", "do not merge") is part of it.
var changePhrases = phraseList(
	"changes requested", "change requested", "changes-requested", "request changes", "requesting changes",
	"requested changes", "request a change", "please change", "needs changes", "need changes", "needs work",
	"needs more work", "needs rework", "needs a rework", "needs revision", "needs revisions", "changes needed",
	"changes required", "not ready", "not ready yet", "do not merge", "don't merge", "dont merge", "rejected",
	"reject", "rejecting", "disapprove", "disapproved", "blocker", "blockers", "must fix", "must be fixed",
	"unacceptable", "not acceptable", "nack", "please revise", "please rework", "send it back", "sending it back",
)

func phraseList(list ...string) [][]string {
	out := make([][]string, len(list))
	for i, s := range list {
		out[i] = strings.Fields(s)
	}
	return out
}

// requestVerbs follow "please" (or "can you", "could you") in a request
// for a specific edit.
var requestVerbs = set("fix", "update", "rename", "add", "remove", "delete", "address", "revise", "rework",
	"clarify", "reword", "rewrite", "split", "move", "drop", "adjust", "expand", "document", "tighten",
	"simplify", "reconsider", "correct", "replace", "restore", "revert", "shorten", "extend", "change")

// requestAsks open a polite request: "can you fix", "could you please add".
var requestAsks = phraseList("can you", "could you", "would you", "can we", "could we")

// fixParticiples follow "should be", "needs to be", "has to be".
var fixParticiples = set("fixed", "changed", "updated", "removed", "renamed", "addressed", "revised",
	"rewritten", "corrected", "reverted")

// changeRequest returns the first clear change request: a change phrase
// not negated within its clause, in a sentence that is not a question and
// carries no condition.
func changeRequest(r reply) (string, bool) {
	for _, s := range r.sentences {
		if _, q := questionSignal(s); q || sentenceHas(s, kindCondition) {
			continue
		}
		for _, c := range s.clauses {
			for i := range c.words {
				for _, p := range changePhrases {
					if !hasPrefix(c.words[i:], p) || negatedBefore(c, i) {
						continue
					}
					return strings.Join(p, " "), true
				}
			}
		}
	}
	return "", false
}

// editRequests lists requests for a specific edit: "please fix", "could you
// (please) rename", "should be fixed", "needs to be updated". A polite
// "could you …?" counts although it is a question; a negated or
// conditional one does not.
func editRequests(r reply) []string {
	var out []string
	for _, s := range r.sentences {
		_, question := questionSignal(s)
		conditional := sentenceHas(s, kindCondition)
		if conditional {
			continue
		}
		for _, c := range s.clauses {
			negated := isNegator(c.joined)
			for i, w := range c.words {
				if i > 0 {
					negated = negated || isNegator(c.words[i-1])
				}
				if negated {
					continue
				}
				if w == "please" && i+1 < len(c.words) && requestVerbs[c.words[i+1]] && !question {
					out = append(out, "please "+c.words[i+1])
				}
				if (w == "be" || w == "been") && i > 0 && i+1 < len(c.words) && fixParticiples[c.words[i+1]] && !question {
					prev := c.words[i-1]
					if prev == "should" || prev == "must" || prev == "to" && i > 1 && (c.words[i-2] == "needs" || c.words[i-2] == "need" || c.words[i-2] == "has" || c.words[i-2] == "have") {
						out = append(out, prev+" be "+c.words[i+1])
					}
				}
				for _, ask := range requestAsks {
					j := i + len(ask)
					if j >= len(c.words) || !hasPrefix(c.words[i:], ask) {
						continue
					}
					if c.words[j] == "please" && j+1 < len(c.words) {
						j++
					}
					if requestVerbs[c.words[j]] {
						out = append(out, strings.Join(ask, " ")+" "+c.words[j])
					}
				}
			}
		}
	}
	return out
}

// negatedBefore reports a negation among the words of c before index i (the
// joining word that opened c included).
func negatedBefore(c clause, i int) bool {
	if isNegator(c.joined) {
		return true
	}
	for _, w := range c.words[:i] {
		if isNegator(w) {
			return true
		}
	}
	return false
}

// isNegator reports a word that negates what follows it (a change phrase
// such as "rejected" is not a negator of another).
func isNegator(w string) bool {
	switch w {
	case "reject", "rejected", "rejecting", "blocker", "blockers":
		return false
	}
	return signalWords[w] == kindNegation || strings.HasSuffix(w, "n't")
}

// sentenceHas reports a signal of kind anywhere in s.
func sentenceHas(s sentence, kind string) bool {
	for _, c := range s.clauses {
		words := append([]string{c.joined}, c.words...)
		for _, w := range words {
			if signalWords[w] == kind {
				return true
			}
		}
		for i := range words {
			for n := 2; n <= 3 && i+n <= len(words); n++ {
				if signalPhrases[strings.Join(words[i:i+n], " ")] == kind {
					return true
				}
			}
		}
	}
	return false
}
