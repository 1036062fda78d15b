// Package classify reads a human reviewer's reply at a gate and says what
// it decides. It fails closed: a reply approves only when it plainly states
// an approval in its author's own voice, and everything it cannot be sure of
// leaves the gate waiting.
//
// Reading a reply:
//
//  1. Only the author's own visible words count: block quotes (with their
//     lazy continuation lines), fenced, indented and inline code, HTML
//     comments and hidden elements, struck-through text (~~x~~, <del>) and
//     unticked task items are dropped (package plaintext).
//  2. The rest is folded: invisible characters removed, look-alike letters
//     made ASCII, lower-cased. A reply with bidirectional controls, control
//     characters or letters that cannot be folded is not read at all.
//  3. It is split into sentences (". ! ? ;" and line ends) and clauses
//     (", : ( ) -" and joining words such as "but", "and", "so").
//
// A reply approves when at least one clause is, in full, an approval
// statement the reader accepts ("Approved.", "I approve this.", "LGTM",
// "Looks good to me", "Ship it", "Ready to merge"; optionally with thanks or
// praise around it), and nothing anywhere in the reply withholds it:
//
//   - a negation, refusal or retraction ("not", "no", "never", "unable",
//     "refuse", "decline", "far from", "ignore my LGTM", "revoke");
//   - a condition ("if", "once", "unless", "until", "after", "pending");
//   - a question, with or without a question mark ("is it ready",
//     "wondering whether");
//   - reported or third-party speech ("X said", "waiting for", "needs",
//     "they", an @-mention);
//   - a pending or hedged qualifier ("so far", "for now", "yet", "still",
//     "will", "should", "I think", "maybe");
//   - an emoji or other symbol (emoji are never read as a verdict);
//   - a short remark beside it that is neither thanks nor a known reservation
//     (it could name someone else: "Approved — Bob").
//
// An approval with a reservation ("nit", "minor", "but", "consider"), a
// request for a specific edit ("please fix the typo") or the explicit
// "approved with comments" is approved with comments. A clear change
// request ("changes requested", "needs work", "do not merge", "rejected",
// "please fix …" without an approval) that is not negated, asked or
// conditional asks for changes. Everything else is undecided: the gate
// waits.
//
// Across replies, the newest one decides (Decide): a later reply that is not
// an approval supersedes an earlier approval.
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

// Approves reports an approving outcome.
func (o Outcome) Approves() bool { return o == Approved || o == ApprovedWithComments }

// Verdict is the classification of one reply and why. Reason quotes only
// the classifier's own vocabulary, never the reply.
type Verdict struct {
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason"`
}

func undecided(format string, args ...any) Verdict {
	return Verdict{Undecided, fmt.Sprintf(format, args...)}
}

// Classify reads one reply, accepting an approval that names any artifact.
func Classify(body string) Verdict { return ClassifyFor(body, nil) }

// ClassifyFor reads one reply at a gate reviewing subjects (artifact file
// names such as "requirements.md"): an approval that names another artifact
// ("the design looks good" at the requirements gate) is not one.
func ClassifyFor(body string, subjects []string) Verdict {
	r := parse(body)
	if r.err != nil {
		return undecided("the reply is not read: %v", r.err)
	}
	if r.empty() {
		return undecided("nothing is left of the reply once quotes, code and struck-through text are removed")
	}
	if cr, ok := changeRequest(r); ok {
		return Verdict{ChangesRequested, fmt.Sprintf("%q asks for changes", cr)}
	}
	core := onlyAbout(cores(r, approvalCore, withComments), subjects)
	edits := editRequests(r)
	if len(core) == 0 {
		if len(edits) > 0 {
			return Verdict{ChangesRequested, fmt.Sprintf("%q asks for a change", edits[0])}
		}
		return undecided("%s", noApprovalReason(r))
	}
	if why := withheld(r, core); why != "" {
		return undecided("the approval is withheld: %s", why)
	}
	var extra []string
	for _, c := range core {
		if matchesAny(c.words, withComments) {
			extra = append(extra, "explicit comments")
		}
	}
	extra = append(extra, quoteAll(reservationsIn(r, core))...)
	extra = append(extra, quoteAll(edits)...)
	if len(extra) == 0 {
		return Verdict{Approved, "the reply states an approval and nothing withholds it"}
	}
	return Verdict{ApprovedWithComments, "the reply states an approval, with " + strings.Join(extra, ", ")}
}

// Decide classifies the replies of one gate visit, given oldest first: the
// newest reply decides, so a later reply that is not an approval supersedes
// an earlier one. It returns the verdict and the index of the deciding
// reply, or Undecided and -1.
func Decide(bodies []string) (Verdict, int) { return DecideFor(bodies, nil) }

// DecideFor is Decide at a gate reviewing subjects (see ClassifyFor).
func DecideFor(bodies []string, subjects []string) (Verdict, int) {
	if len(bodies) == 0 {
		return undecided("no reply yet"), -1
	}
	last := len(bodies) - 1
	v := ClassifyFor(bodies[last], subjects)
	if !v.Outcome.Decisive() {
		return undecided("the newest reply decides, and it is not decisive: %s", v.Reason), -1
	}
	return v, last
}

// Permits reports whether a reply is free of everything that withholds an
// approval (so an external classifier's approval of it may be honoured),
// with the reason when it is not.
func Permits(body string) (bool, string) {
	r := parse(body)
	if r.err != nil {
		return false, fmt.Sprintf("the reply is not read: %v", r.err)
	}
	if r.empty() {
		return false, "the reply is empty"
	}
	if why := withheld(r, cores(r, approvalCore, withComments)); why != "" {
		return false, why
	}
	return true, ""
}

// Attempted reports whether a reply uses the vocabulary of a decision
// (approval, sign-off, completion or change) without being one the reader
// accepts: the gate then says which phrasings it reads.
func Attempted(body string) bool {
	r := parse(body)
	if r.err != nil {
		return true
	}
	for _, w := range r.words() {
		if decisionWords[w] || strings.HasPrefix(w, "approv") || strings.HasPrefix(w, "sign") {
			return true
		}
	}
	return r.symbols > 0 && len(r.words()) == 0
}

var decisionWords = set("lgtm", "sgtm", "+1", "shipit", "ship", "merge", "done", "ready", "good", "great", "fine",
	"accept", "accepted", "ok", "okay", "changes", "reject", "rejected", "security")

// noApprovalReason explains a reply without an accepted approval.
func noApprovalReason(r reply) string {
	words := r.words()
	if len(words) == 0 && r.symbols > 0 {
		return "an emoji or symbol alone is not a decision; say it in words"
	}
	for _, w := range words {
		if decisionWords[w] || strings.HasPrefix(w, "approv") {
			if s, ok := firstSignal(r, nil); ok {
				return "it is not an approval the reader accepts: " + s.reason()
			}
			return "it is not an approval the reader accepts (say \"Approved.\" on its own)"
		}
	}
	return "nothing in the reply approves or asks for changes"
}

// cores returns the clauses that are, in full, one of the accepted
// statements.
func cores(r reply, sets ...[]pattern) []clause {
	var out []clause
	for _, s := range r.sentences {
		for _, c := range s.clauses {
			for _, ps := range sets {
				if matchesAny(c.words, ps) {
					out = append(out, c)
					break
				}
			}
		}
	}
	return out
}

// onlyAbout drops the core clauses that name an artifact other than subjects.
func onlyAbout(core []clause, subjects []string) []clause {
	out := core[:0:0]
	for _, c := range core {
		if !namesOther(c.words, subjects) {
			out = append(out, c)
		}
	}
	return out
}

// coreSet is the ids of a reply's core clauses.
type coreSet map[int]bool

func idsOf(core []clause) coreSet {
	set := make(coreSet, len(core))
	for _, c := range core {
		set[c.id] = true
	}
	return set
}

// withheld says why the reply withholds a verdict stated by core, or "".
func withheld(r reply, coreList []clause) string {
	core := idsOf(coreList)
	if r.symbols > 0 {
		return "it carries an emoji or symbol, and emoji are never read as a verdict"
	}
	if r.mention {
		return signal{kindReported, "@"}.reason()
	}
	if s, ok := firstSignal(r, core); ok {
		return s.reason()
	}
	for _, s := range r.sentences {
		for _, c := range s.clauses {
			if core[c.id] || len(c.words) >= 3 || knownShort(c) {
				continue
			}
			return "a short remark beside it is neither thanks nor a known reservation, so it could speak for someone else"
		}
	}
	return ""
}

// firstSignal finds the first signal outside the core clauses (a core
// clause is checked only for the joining word that opened it).
func firstSignal(r reply, core coreSet) (signal, bool) {
	for _, s := range r.sentences {
		if q, ok := questionSignal(s); ok {
			return q, true
		}
		for _, c := range s.clauses {
			words := c.words
			if core[c.id] {
				words = nil
			}
			if c.joined != "" {
				words = append([]string{c.joined}, words...)
			}
			if sig, ok := signalIn(words); ok {
				return sig, true
			}
		}
	}
	return signal{}, false
}

// knownShort reports a short clause made only of courtesy or reservation
// words ("thanks", "one nit", "minor").
func knownShort(c clause) bool {
	if isCourtesy(c.words) {
		return true
	}
	for _, w := range c.words {
		if !reservations[w] && !isCourtesy([]string{w}) && w != "one" && w != "a" && w != "thing" {
			return false
		}
	}
	return true
}

// reservationsIn lists the reservations outside the core clauses.
func reservationsIn(r reply, coreList []clause) []string {
	core := idsOf(coreList)
	var out []string
	for _, s := range r.sentences {
		for _, c := range s.clauses {
			if reservations[c.joined] {
				out = append(out, c.joined)
			}
			if core[c.id] {
				continue
			}
			for _, w := range c.words {
				if reservations[w] {
					out = append(out, w)
				}
			}
			for _, p := range reservationPhrases {
				for i := range c.words {
					if hasPrefix(c.words[i:], p) {
						out = append(out, strings.Join(p, " "))
					}
				}
			}
		}
	}
	return out
}

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
