package classify

import (
	"fmt"
	"sync"
)

// doneCore are the statements that declare a task complete.
var doneCore = sync.OnceValue(func() []pattern {
	return compileAll(
		"[{SUBJ_BE}|{SUBJ}|that's|thats|that_is|it's|its|it_is|this_is|all|we're_all|i'm_all] [{ADV}] (done|finished|complete|completed) [here|now|with_it|with_this|for_now_and_for_good] [{TAIL}]",
		"(all|we're|we_are|i'm|i_am) set [{TAIL}]",
		"(that's|thats|that_is|that_was) (all|it|everything) [{TAIL}]",
		"(nothing|no) (else|more|further) [needed|required|to_do|from_me] [{TAIL}]",
		"[you_can|please|go_ahead_and|feel_free_to] close (it|this|the_issue|the_ticket|it_out|this_out) [{TAIL}]",
		"(works|working) [{DEG}] (well|fine|great|now) [{TAIL}]",
		"task (done|complete|completed|finished) [{TAIL}]",
	)
})

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
// company (thanks, an emoji of assent), and nothing in the reply withholds
// it (a negation, condition, question, someone else's words, a deferral, a
// symbol, as for approvals). A reply that cannot be read, or that holds only
// emoji or thanks, is undecided. Every other reply asks for more work.
func ReadDone(body string) (DoneOutcome, string) {
	r := parse(body)
	switch {
	case r.err != nil:
		return NotYet, notRead(r.err).Reason
	case len(r.words()) == 0:
		return NotYet, "the reply holds no words (emoji and symbols are never read), so it neither ends the task nor asks for more"
	}
	done := 0
	for _, c := range r.clauses {
		if !inCore(c.words, doneCore()) {
			if ok, _, _ := approvalIn(c.words); !ok {
				continue
			}
		}
		s := c.sentence
		if q, ok := questionOpener(c.words); s.question || ok {
			if q == "" {
				q = "?"
			}
			return MoreWork, "the reply does not plainly declare the task done: " + withhold(kindQuestion, q).reason()
		}
		if cond, _, ok := conditionOf(s); ok {
			return MoreWork, "the reply does not plainly declare the task done: " + withhold(kindCondition, cond).reason()
		}
		if k := labelKind(c.label); k != labelNone && k != labelVerdict {
			return MoreWork, "the reply does not plainly declare the task done: the label before the colon qualifies it"
		}
		done++
	}
	for _, c := range r.clauses {
		if inCore(c.words, doneCore()) {
			continue
		}
		if ok, _, _ := approvalIn(c.words); ok {
			continue
		}
		rd := read(c, nil)
		switch {
		case rd.role == roleWithhold && done > 0:
			return MoreWork, "the reply does not plainly declare the task done: " + rd.reason()
		case rd.role != roleCompany:
			return MoreWork, "the reply says more than that the task is done, so it is more work"
		case c.joined != "" && c.joined != "and" && done > 0:
			return MoreWork, fmt.Sprintf("%q adds to it, so it is more work", c.joined)
		}
	}
	if done == 0 {
		return NotYet, "the reply only thanks, so it neither ends the task nor asks for more"
	}
	if w := withheldBeside(r, make([]reading, len(r.clauses))); w != nil {
		return MoreWork, "the reply does not plainly declare the task done: " + w.reason()
	}
	return Done, "the reply declares the task done and asks for nothing more"
}

// DeclaresDone reports whether a reply to finished work declares the task
// complete (ReadDone's Done), with the reason.
func DeclaresDone(body string) (bool, string) {
	o, why := ReadDone(body)
	return o == Done, why
}
