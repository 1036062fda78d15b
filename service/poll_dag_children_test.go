package service

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime/dag"
)

// armEpic arms the seeded issue #1 as a parent whose selection ticks
// arm-children, and returns it.
func (r *dagRig) armEpic(children ...integrations.Ref) integrations.Ref {
	r.t.Helper()
	epic := r.gh.Ticket()
	for _, c := range children {
		r.gh.AddSubIssue(epic, c)
	}
	r.say(epic, "alice", "the-loop start")
	r.cycle()
	r.say(epic, "alice", "- [x] arm-children\n\nthe-loop execute")
	r.cycle()
	require.NotEqual(r.t, phaseSelection, r.at("issue-1"), "the parent's own selection is recorded")
	return epic
}

// armed reports whether the work items are armed.
func (r *dagRig) armed(ids ...string) []bool {
	out := make([]bool, len(ids))
	for i, id := range ids {
		out[i] = r.at(id) != ""
	}
	return out
}

// A parent armed with arm-children arms a diamond's items in dependency
// order: the join only when both branches have finished. Each child lands
// at its own phase selection, which still needs an authorized answer.
func TestADiamondReleasesTheJoinOnlyWhenBothBranchesFinish(t *testing.T) {
	r := newDAGRig(t)
	top, left, right, join := r.issue("top"), r.issue("left"), r.issue("right"), r.issue("join")
	r.gh.AddBlocker(left, top)
	r.gh.AddBlocker(right, top)
	r.gh.AddBlocker(join, left)
	r.gh.AddBlocker(join, right)
	r.armEpic(top, left, right, join)

	r.cycles(2)
	assert.Equal(t, []bool{true, false, false, false}, r.armed("issue-2", "issue-3", "issue-4", "issue-5"), "only the top is ready")
	assert.Equal(t, phaseSelection, r.at("issue-2"), "an armed child gets its own phase selection")
	assertEvent(t, r, "issue-2", EventArmedByDAG)
	r.cycle()
	assert.Equal(t, phaseSelection, r.at("issue-2"), "no authorized answer, no selection")

	r.done(top)
	r.cycles(2)
	assert.Equal(t, []bool{true, true, false}, r.armed("issue-3", "issue-4", "issue-5"), "both branches are armed; the join waits")
	r.done(left)
	r.cycles(2)
	assert.Equal(t, []bool{false}, r.armed("issue-5"), "one branch finished is not enough")
	plan, err := r.svc.Plan(context.Background(), PlanRequest{Repo: r.repo, Item: "issue-1"})
	require.NoError(t, err)
	s, ok := plan.Plan.Find(r.canon(join))
	require.True(t, ok)
	assert.Equal(t, "blocked by #4 (at phase-selection)", s.Message())
	r.done(right)
	r.cycles(2)
	assert.Equal(t, []bool{true}, r.armed("issue-5"), "the join is armed when both branches finished")
}

// A cycle is reported and nothing in it is armed — neither by the parent
// nor by an authorized start — until a person breaks it.
func TestACycleIsReportedAndNothingInItIsArmed(t *testing.T) {
	r := newDAGRig(t)
	free, b, c := r.issue("free"), r.issue("b"), r.issue("c")
	r.gh.AddBlocker(b, c)
	r.gh.AddBlocker(c, b)
	r.armEpic(free, b, c)
	r.cycles(2)
	assert.Equal(t, []bool{true, false, false}, r.armed("issue-2", "issue-3", "issue-4"))

	plan, err := r.svc.Plan(context.Background(), PlanRequest{Repo: r.repo, Item: "#1"})
	require.NoError(t, err)
	require.Len(t, plan.Plan.Cycles, 1)
	assert.Equal(t, []integrations.Ref{r.canon(b), r.canon(c)}, plan.Plan.Cycles[0])
	s, _ := plan.Plan.Find(r.canon(b))
	assert.Equal(t, dag.VerdictCycle, s.Verdict)

	r.say(b, "alice", "the-loop start")
	acts := r.cycle()
	assert.Equal(t, "held", acts["issue-3"].Action, "an authorized start does not arm an item in a cycle")
	assert.Equal(t, "in a dependency cycle with #4; not armed until the cycle is broken", acts["issue-3"].Detail)
	assert.Equal(t, []bool{false, false}, r.armed("issue-3", "issue-4"))

	r.gh.RemoveBlocker(c, b) // a person breaks the cycle
	r.cycles(2)
	assert.Equal(t, []bool{true, true}, r.armed("issue-3", "issue-4"), "the start arms b; the parent arms c, now ready")
	assert.Equal(t, phaseSelection, r.at("issue-3"), "b still waits for c")
}
