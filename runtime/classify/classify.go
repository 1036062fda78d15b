// Package classify reads a human reviewer's reply at a gate and says what
// it decides: approve, ask for changes, or wait. It is a grammar over a
// small explicit lexicon (lexicon.go), and it fails closed: a reply approves
// only when it states an approval in its author's own voice and nothing in it
// withholds one; sending work back is the safe direction, so a reply that
// asks for a change, or says something in the artifact is wrong or missing,
// asks for changes; everything else waits.
//
// Reading a reply:
//
//  1. Only the author's own visible words count (package plaintext): block
//     quotes, code blocks, HTML comments, <details> and link reference
//     definitions are dropped; inline code and struck-through text leave a
//     mark that keeps any approval beside it from counting.
//  2. The rest is folded: invisible characters removed, look-alike letters
//     made ASCII, lower-cased, emoji of assent told from other symbols. A
//     reply with bidirectional controls, control or tag characters, a run of
//     invisible characters, private-use or unassigned code points, or letters
//     that cannot be folded is not read at all: it waits, and the reason
//     says where.
//  3. It is split into sentences (". ! ? ;" and line ends), labels ("Nit:",
//     "Status:", "Bob:") and clauses (", : ( ) -" and joining words such as
//     "but", "and", "except").
//  4. Each clause gets a role (read.go): an approval (approval.go's
//     constructions, whole: "Approved.", "I approve this.", "LGTM", "Looks
//     good to me", "Ship it", "Ready to merge", "Let's proceed"), a refusal
//     ("Not approved", "I can't approve this as written"), a change ("Change
//     R6 to …", "R2 is wrong", "Missing: …", "please add …", "needs work"), a
//     suggestion or a remark for later ("could", "consider", "nit:", "in a
//     follow-up"), company (thanks, praise, greetings, "no concerns", emoji of
//     assent, a sign-off line), a neutral statement, or something that
//     withholds an approval: a negation, condition, question, deferral,
//     someone else's words, sarcasm, a retraction, a symbol, a short unknown
//     remark that could be a name.
//  5. The reply: a change or a refusal asks for changes; else an approval
//     with only company, neutral statements, suggestions and remarks for
//     later beside it approves (with comments when there are suggestions or
//     remarks); else it waits, with the first reason.
//
// Across replies, the newest one decides (Decide): a later reply that is not
// an approval supersedes an earlier approval.
package classify

import (
	"errors"
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/internal/plaintext"
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
// the classifier's own vocabulary, never the reply. Unread, when the reply
// was not read at all, says where the reader stopped ("line 1, character
// 9 (U+E0020)").
type Verdict struct {
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason"`
	Unread  string  `json:"-"`
}

func undecided(format string, args ...any) Verdict {
	return Verdict{Outcome: Undecided, Reason: fmt.Sprintf(format, args...)}
}

// Classify reads one reply, accepting an approval that names any artifact.
func Classify(body string) Verdict { return ClassifyFor(body, nil) }

// ClassifyFor reads one reply at a gate reviewing subjects (artifact file
// names such as "requirements.md"): an approval that names another artifact
// ("the design looks good" at the requirements gate) is not one.
func ClassifyFor(body string, subjects []string) Verdict {
	r := parse(body)
	if r.err != nil {
		return notRead(r.err)
	}
	if r.empty() {
		return undecided("nothing is left of the reply once quotes, code and hidden text are removed")
	}
	readings := make([]reading, len(r.clauses))
	for i, c := range r.clauses {
		readings[i] = read(c, subjects)
	}
	return decide(r, readings)
}

// Unread says where the reader stopped in a reply it cannot read at all
// ("line 1, character 9 (U+E0020)", "" when it can read it). It never
// quotes the reply.
func Unread(body string) string {
	r := parse(body)
	if r.err == nil {
		return ""
	}
	if v := notRead(r.err); v.Unread != "" {
		return v.Unread
	}
	return "the reply's text"
}

// notRead is the verdict on a reply the reader cannot read.
func notRead(err error) Verdict {
	v := undecided("the reply is not read: %v", err)
	var u *plaintext.Unreadable
	if errors.As(err, &u) {
		v.Reason = "the reply is not read: " + u.Err.Error()
		v.Unread = u.Where()
	}
	return v
}

// decide combines the clauses' readings into the reply's verdict.
func decide(r *reply, readings []reading) Verdict {
	var approvals, comments, suggestions int
	var change, refuse, firstWithhold, reservation *reading
	var extras []string
	for i := range readings {
		rd := &readings[i]
		switch rd.role {
		case roleApprove:
			approvals++
		case roleApproveWithComments:
			approvals++
			comments++
			extras = append(extras, "explicit comments")
		case roleChange:
			if change == nil {
				change = rd
			}
		case roleRefuse:
			if refuse == nil {
				refuse = rd
			}
		case roleSoft, roleLater:
			comments++
			if !pointers[rd.cue] {
				suggestions++
			}
			if rd.cue != "" {
				extras = append(extras, fmt.Sprintf("%q", rd.cue))
			}
		case roleWithhold:
			if firstWithhold == nil {
				firstWithhold = rd
			}
		case roleReservation:
			if reservation == nil {
				reservation = rd
			}
		}
	}
	switch {
	case change != nil:
		return Verdict{Outcome: ChangesRequested, Reason: fmt.Sprintf("%q asks for a change to the artifact", change.cue)}
	case refuse != nil:
		return Verdict{Outcome: ChangesRequested, Reason: "the reviewer refuses the approval"}
	}
	if approvals == 0 {
		if suggestions > 0 && firstWithhold == nil {
			// a suggestion or a remark, with no approval: it goes back with it
			return Verdict{Outcome: ChangesRequested, Reason: "it suggests changes and does not approve"}
		}
		return undecided("%s", noApprovalReason(r, firstWithhold))
	}
	if w := withheldBeside(r, readings); w != nil {
		return undecided("the approval is withheld: %s", w.reason())
	}
	if firstWithhold != nil {
		return undecided("the approval is withheld: %s", firstWithhold.reason())
	}
	if reservation != nil {
		return Verdict{Outcome: ChangesRequested, Reason: fmt.Sprintf("%q opens a reservation about the artifact beside the approval", reservation.cue)}
	}
	if comments == 0 {
		return Verdict{Outcome: Approved, Reason: "the reply states an approval and nothing withholds it"}
	}
	return Verdict{Outcome: ApprovedWithComments, Reason: "the reply states an approval, with " + strings.Join(uniq(extras), ", ")}
}

// withheldBeside finds what withholds an approval from outside the
// readings: symbols and inline code anywhere, or a short unknown remark
// that could name someone else.
func withheldBeside(r *reply, readings []reading) *reading {
	for _, c := range r.clauses {
		switch {
		case c.symbols > 0:
			rd := withhold(kindSymbol, "")
			return &rd
		case c.hidden > 0:
			rd := withhold(kindHidden, "")
			return &rd
		}
	}
	for i, c := range r.clauses {
		if readings[i].role == roleNeutral && nameLike(c.words) && !c.sentence.signature {
			rd := withhold(kindRemark, "")
			return &rd
		}
	}
	for _, s := range r.sentences {
		if s.label != "" && len(s.clauses) == 0 {
			continue
		}
	}
	return nil
}

// noApprovalReason explains a reply that neither approves nor asks for
// changes.
func noApprovalReason(r *reply, w *reading) string {
	if r.count(func(c *clause) int { return len(c.words) }) == 0 {
		return "an emoji or symbol alone is not a decision; say it in words"
	}
	if w != nil {
		switch w.kind {
		case kindQuestion, kindPending:
			return w.reason()
		}
		if _, ok := approvalAct(r.words()); ok {
			return "it is not an approval the reader accepts: " + w.reason()
		}
		return w.reason() + ", and nothing in the reply approves or asks for changes"
	}
	if _, ok := approvalAct(r.words()); ok {
		return "it is not an approval the reader accepts (say \"Approved.\" on its own)"
	}
	return "nothing in the reply approves or asks for changes"
}

// pointers send the reader to comments elsewhere ("see below"): beside an
// approval they make it one with comments; alone they suggest nothing.
var pointers = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range laterPhrases {
		if p[0] == "see" || p[len(p)-1] == "inline" {
			m[strings.Join(p, " ")] = true
		}
	}
	return m
}()

func uniq(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
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
		return Verdict{Outcome: Undecided, Reason: "the newest reply decides, and it is not decisive: " + v.Reason, Unread: v.Unread}, -1
	}
	return v, last
}

// Permits reports whether a reply is free of everything that withholds an
// approval (so an external classifier's approval of it may be honoured),
// with the reason when it is not.
func Permits(body string) (bool, string) {
	r := parse(body)
	if r.err != nil {
		return false, notRead(r.err).Reason
	}
	if r.empty() {
		return false, "the reply is empty"
	}
	if len(r.words()) == 0 {
		return false, "an emoji or symbol alone is not a decision"
	}
	readings := make([]reading, len(r.clauses))
	for i, c := range r.clauses {
		readings[i] = read(c, nil)
		switch readings[i].role {
		case roleChange:
			return false, fmt.Sprintf("%q asks for a change to the artifact", readings[i].cue)
		case roleRefuse:
			return false, "the reviewer refuses the approval"
		case roleWithhold:
			return false, readings[i].reason()
		}
	}
	if w := withheldBeside(r, readings); w != nil {
		return false, w.reason()
	}
	return true, ""
}

// Attempted reports whether a reply uses the vocabulary of a decision
// (approval, sign-off, completion or change), only emoji, or cannot be read,
// without being one the reader accepts: the gate then says how it read it.
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
	return r.count(func(c *clause) int { return c.symbols + c.benign + c.hidden }) > 0 && len(r.words()) == 0
}

var decisionWords = set("lgtm", "sgtm", "+1", "shipit", "ship", "merge", "done", "ready", "good", "great", "fine",
	"accept", "accepted", "ok", "okay", "changes", "reject", "rejected", "security", "proceed", "ahead")
