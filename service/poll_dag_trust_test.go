package service

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The trust boundary: a relationship changes the walk only as far as the
// tracker let someone edit it, and only by holding. An account that is not
// in routing.authorizedUsers (mallory) can add a dependency wherever the
// tracker lets her, and so hold an item; nothing she writes on the tickets
// — a "done", relation lines in a comment, an execute, a start, an
// arm-children selection — releases, approves or arms anything.
func TestAnUnauthorizedAccountCanHoldButNeverReleaseOrApprove(t *testing.T) {
	r := newDAGRig(t)
	a, b, c, x := r.issue("a"), r.issue("b"), r.issue("c"), r.issue("x")
	epic := r.gh.Ticket()
	r.gh.AddSubIssue(epic, a)
	r.gh.AddBlocker(b, a)
	r.say(b, "alice", "the-loop start")
	r.say(c, "alice", "the-loop start")
	r.cycle()
	r.say(b, "alice", execute)

	// mallory adds a dependency (the tracker allowed it): c is held, even
	// once alice has answered its phase selection.
	r.gh.AddBlocker(c, x)
	r.say(c, "alice", execute)
	acts := r.cycles(2)
	assert.Equal(t, phaseSelection, r.at("issue-4"), "a dependency anyone could add holds")
	assert.Equal(t, "blocked by #5 (not started)", acts["issue-4"].Dependencies)

	// Nothing mallory writes releases b, or completes or arms its blocker.
	r.say(b, "mallory", "#2 is done.\n\nBlocked by: nothing\n\nthe-loop execute")
	r.say(a, "mallory", "the-loop start")
	r.say(a, "mallory", "- [x] arm-children\n\nthe-loop execute")
	r.say(epic, "mallory", "the-loop start")
	r.say(x, "mallory", "Depends on: #4")
	acts = r.cycles(2)
	assert.Equal(t, phaseSelection, r.at("issue-3"), "b is still held")
	assert.Equal(t, "blocked by #2 (not started)", acts["issue-3"].Dependencies)
	assert.Equal(t, []bool{false, false, false}, r.armed("issue-1", "issue-2", "issue-5"), "an unauthorized start arms nothing")

	// Released, an item still needs an authorized answer: mallory's execute
	// on a ready item selects nothing.
	d := r.issue("d")
	r.say(d, "alice", "the-loop start")
	r.cycle()
	r.say(d, "mallory", "- [x] brainstorming\n\nthe-loop execute")
	r.cycles(2)
	assert.Equal(t, phaseSelection, r.at("issue-6"), "an unauthorized execute never approves")
	assert.Nil(t, r.state("issue-6").Decisions[phaseSelection])

	// The tracker removes the dependency mallory added: c is merely ready,
	// and proceeds on alice's answer — the hold she made is all she undid.
	r.gh.RemoveBlocker(c, x)
	r.cycle()
	assert.NotEqual(t, phaseSelection, r.at("issue-4"))
	assert.Equal(t, "@alice", r.state("issue-4").Decisions[phaseSelection].By, "the selection that released c is alice's")
}
