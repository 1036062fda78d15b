package classify

import "fmt"

// doneCore are the statements that declare a task complete.
var doneCore = compileAll(
	"[{SUBJ_BE}|{SUBJ}|that's|thats|that_is|it's|its|it_is|this_is|all] [{ADV}] (done|finished|complete|completed) [here|now|with_it|with_this] [{TAIL}]",
	"(all|we're|we_are|i'm|i_am) set",
	"(that's|thats|that_is|that_was) (all|it|everything) [{TAIL}]",
	"(nothing|no) (else|more|further) [needed|required|to_do|from_me|for_now]",
	"[you_can|please|go_ahead_and] close (it|this|the_issue|the_ticket)",
	"(works|working) [{DEG}] (well|fine|great|now) [{TAIL}]",
	"task (done|complete|completed|finished)",
)

// DoneOutcome is what a reply to finished work asks for.
type DoneOutcome string

// The outcomes of ReadDone.
const (
	// Done: the reply plainly declares the task complete.
	Done DoneOutcome = "done"
	// MoreWork: the reply says or asks something beyond completion.
	MoreWork DoneOutcome = "more-work"
	// NotYet: nothing can be read from the reply (empty, emoji only,
	// thanks only, or unreadable characters); the gate waits.
	NotYet DoneOutcome = "undecided"
)

// ReadDone reads a reply to finished work. It is done only when every
// clause is a completion statement ("done", "all set", "that's all",
// "nothing else", "close it", or an accepted approval such as "LGTM") or
// thanks, and nothing in the reply withholds it (a negation, condition,
// question, reported speech, pending qualifier, mention or emoji, as for
// approvals). A reply that cannot be read, or that holds only emoji or
// thanks, is undecided. Every other reply asks for more work.
func ReadDone(body string) (DoneOutcome, string) {
	r := parse(body)
	switch {
	case r.err != nil:
		return NotYet, fmt.Sprintf("the reply is not read: %v", r.err)
	case len(r.words()) == 0:
		return NotYet, "the reply holds no words (emoji and symbols are never read), so it neither ends the task nor asks for more"
	}
	core := cores(r, doneCore, approvalCore)
	if len(core) == 0 && isCourtesy(r.words()) {
		return NotYet, "the reply only thanks, so it neither ends the task nor asks for more"
	}
	if len(core) == 0 {
		return MoreWork, "the reply declares no completion, so it is more work"
	}
	if why := withheld(r, core); why != "" {
		return MoreWork, "the reply does not plainly declare the task done: " + why
	}
	ids := idsOf(core)
	for _, s := range r.sentences {
		for _, c := range s.clauses {
			if !ids[c.id] && !isCourtesy(c.words) {
				return MoreWork, "the reply says more than that the task is done, so it is more work"
			}
			if c.joined != "" && c.joined != "and" && c.joined != "so" {
				return MoreWork, fmt.Sprintf("%q adds to it, so it is more work", c.joined)
			}
		}
	}
	return Done, "the reply declares the task done and asks for nothing more"
}

// DeclaresDone reports whether a reply to finished work declares the task
// complete (ReadDone's Done), with the reason.
func DeclaresDone(body string) (bool, string) {
	o, why := ReadDone(body)
	return o == Done, why
}
