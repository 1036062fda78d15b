// Package classify reads a human reviewer's reply at an approval gate and
// says what it decides: approved, approved with comments, changes requested,
// or nothing yet (undecided, and the gate keeps waiting).
//
// The deterministic classifier works on whole words, never on substrings
// ("button" does not contain "but", "unit" does not contain "nit"), and only
// on the replier's own words: blockquoted lines, fenced and inline code and
// HTML comments are dropped first. Its rules, in order:
//
//  1. A reply that says the review is not finished ("so far", "still
//     reviewing", "more tomorrow", "first pass", "wip") is undecided, whatever
//     else it says.
//  2. A change request ("changes requested", "needs work", "not ready",
//     "do not merge", "rejected", "blocker", 👎) wins over any approval. A
//     negated one ("no changes needed", "no blockers") is not a request.
//  3. An approval ("approved", "lgtm", "looks good", "ship it", "+1", 👍) is
//     an approval only when it is not negated ("not approved", "don't
//     approve", "can't approve yet", "I do not think it looks good"), not
//     hedged or conditional ("I'll approve once CI passes", "should be good
//     to go"), and not asked as a question ("looks good?"). One withheld
//     approval in a reply outweighs an approving phrase elsewhere in it.
//  4. An approval with a reservation ("nit", "but", "however", "minor",
//     "one thing", "typo", "suggestion"), a request for a specific edit
//     ("please fix the typo") or a question is approved with comments; a
//     negated reservation ("no nits") is none.
//  5. A request for a specific edit without an approval ("please fix the
//     error handling", "could you rename it") asks for changes.
//  6. Anything else, including a withheld approval on its own ("not
//     approved", "can't approve yet"), is undecided: it says what the
//     reviewer is not doing, not what they want, so the gate keeps waiting.
//
// A negator (not, no, never, nothing, without, any word ending in n't…)
// reaches three words forward, and never across punctuation (",", ":", "—")
// or a joining word ("but", "and", "however"): "not perfect, but approved"
// approves.
//
// Across several replies, Decide lets the newest decisive one decide.
package classify

import (
	"fmt"
	"strings"
)

// Outcome is a classification.
type Outcome string

// The closed set of outcomes.
const (
	Approved             Outcome = "approved"
	ApprovedWithComments Outcome = "approved-with-comments"
	ChangesRequested     Outcome = "changes-requested"
	Undecided            Outcome = "undecided"
)

// Valid reports whether o is one of the four outcomes.
func (o Outcome) Valid() bool {
	switch o {
	case Approved, ApprovedWithComments, ChangesRequested, Undecided:
		return true
	}
	return false
}

// Decisive reports an outcome a gate can route on.
func (o Outcome) Decisive() bool { return o.Valid() && o != Undecided }

// Verdict is the classification of one reply and why. Reason quotes only
// the classifier's own vocabulary, never the reply.
type Verdict struct {
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason"`
}

// reading is what one reply contains.
type reading struct {
	approvals, withheld, changes, edits, reservations, deferrals []string
	// questions counts question sentences that carry no approval.
	questions int
}

// Classify reads one reply.
func Classify(body string) Verdict {
	r := read(body)
	switch {
	case len(r.deferrals) > 0:
		return Verdict{Undecided, fmt.Sprintf("%q says the review is not finished", r.deferrals[0])}
	case len(r.changes) > 0:
		return Verdict{ChangesRequested, fmt.Sprintf("%q asks for changes", r.changes[0])}
	case len(r.approvals) > 0 && len(r.withheld) == 0:
		var extra []string
		extra = append(extra, quoteAll(r.reservations)...)
		extra = append(extra, quoteAll(r.edits)...)
		if r.questions > 0 {
			extra = append(extra, "a question")
		}
		if len(extra) == 0 {
			return Verdict{Approved, fmt.Sprintf("%q approves", r.approvals[0])}
		}
		return Verdict{ApprovedWithComments, fmt.Sprintf("%q approves, with %s", r.approvals[0], strings.Join(extra, ", "))}
	case len(r.edits) > 0:
		return Verdict{ChangesRequested, fmt.Sprintf("%q asks for a change", r.edits[0])}
	case len(r.withheld) > 0:
		return Verdict{Undecided, fmt.Sprintf("%q is negated, hedged or asked, so it is not an approval", r.withheld[0])}
	}
	return Verdict{Undecided, "nothing in the reply approves or asks for changes"}
}

// Decide classifies replies given oldest first and returns the verdict of
// the newest decisive one with its index, or Undecided and -1.
func Decide(bodies []string) (Verdict, int) {
	for i := len(bodies) - 1; i >= 0; i-- {
		if v := Classify(bodies[i]); v.Outcome.Decisive() {
			return v, i
		}
	}
	return Verdict{Undecided, "no reply is decisive yet"}, -1
}

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func read(body string) reading {
	var r reading
	sentences, text := prepare(body)
	for _, e := range changeEmoji {
		if strings.Contains(text, e) {
			r.changes = append(r.changes, e)
		}
	}
	for _, e := range approvalEmoji {
		if strings.Contains(text, e) {
			r.approvals = append(r.approvals, e)
		}
	}
	for _, s := range sentences {
		approvedHere := false
		for si, scope := range s.scopes {
			next := ""
			if si+1 < len(s.scopes) {
				next = s.scopes[si+1][0]
			}
			for _, m := range find(scope, deferrals) {
				r.deferrals = append(r.deferrals, m.text)
			}
			for _, m := range find(scope, changeRequests) {
				if !m.negated && !s.question {
					r.changes = append(r.changes, m.text)
				}
			}
			for _, m := range find(scope, approvals) {
				switch {
				case m.negated || m.hedged || conditions[next] || s.question:
					r.withheld = append(r.withheld, m.text)
				default:
					r.approvals = append(r.approvals, m.text)
					approvedHere = true
				}
			}
			for _, m := range find(scope, reservations) {
				if !m.negated {
					r.reservations = append(r.reservations, m.text)
				}
			}
			r.edits = append(r.edits, edits(scope)...)
		}
		if s.question && !approvedHere {
			r.questions++
		}
	}
	return r
}

// match is one phrase found in a scope.
type match struct {
	text    string
	negated bool
	hedged  bool
}

// find returns every occurrence of the phrases in scope, with whether a
// negator or a hedge precedes it within the window, or a condition follows
// it in the same scope.
func find(scope []string, list []phrase) []match {
	var out []match
	for _, p := range list {
		for i := 0; i+len(p) <= len(scope); i++ {
			if !equalWords(scope[i:i+len(p)], p) {
				continue
			}
			m := match{text: p.String()}
			for j := max(0, i-negationWindow); j < i; j++ {
				if isNegator(scope[j]) {
					m.negated = true
				}
				if hedges[scope[j]] {
					m.hedged = true
				}
			}
			for _, w := range scope[i+len(p):] {
				if conditions[w] {
					m.hedged = true
				}
			}
			out = append(out, m)
		}
	}
	return out
}

func equalWords(a []string, b phrase) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range b {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// edits finds requests for a specific edit: "please fix", "could you
// (please) rename", "should be fixed", "needs to be updated".
func edits(scope []string) []string {
	var out []string
	for i, w := range scope {
		if w == "please" && i+1 < len(scope) && requestVerbs[scope[i+1]] {
			out = append(out, "please "+scope[i+1])
		}
		if (w == "be" || w == "been") && i+1 < len(scope) && fixParticiples[scope[i+1]] && i > 0 {
			prev := scope[i-1]
			if prev == "should" || prev == "must" || (prev == "to" && i > 1 && (scope[i-2] == "needs" || scope[i-2] == "need" || scope[i-2] == "has" || scope[i-2] == "have")) {
				negated := false
				for j := max(0, i-1-negationWindow); j < i; j++ {
					if isNegator(scope[j]) {
						negated = true
					}
				}
				if !negated {
					out = append(out, prev+" be "+scope[i+1])
				}
			}
		}
	}
	for i := range scope {
		for _, ask := range requestAsks {
			j := i + len(ask)
			if j >= len(scope) || !equalWords(scope[i:j], ask) {
				continue
			}
			if scope[j] == "please" && j+1 < len(scope) {
				j++
			}
			if requestVerbs[scope[j]] {
				out = append(out, ask.String()+" "+scope[j])
			}
		}
	}
	return out
}
