package dag_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime/dag"
)

func issue(n int) integrations.Ref {
	return integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: n}
}

func ticket(key string) integrations.Ref { return integrations.Ref{System: "jira", Key: key} }

func open(ref integrations.Ref, title string) integrations.Related {
	return integrations.Related{Ref: ref, Title: title, State: integrations.StateOpen}
}

// progress is a lookup over a fixed table.
type progress map[integrations.Ref]dag.Progress

func (p progress) lookup(ref integrations.Ref) dag.Progress { return p[ref] }

func at(node string) dag.Progress {
	return dag.Progress{Armed: true, Loop: "pdlc", Node: node, Started: node != "phase-selection"}
}

var done = dag.Progress{Armed: true, Loop: "pdlc", Node: "complete", Started: true, Complete: true}

// messages maps each item to its status message.
func messages(p dag.Plan) map[integrations.Ref]string {
	out := map[integrations.Ref]string{}
	for _, s := range p.Items {
		out[s.Ref] = s.Message()
	}
	return out
}

func verdicts(p dag.Plan) map[integrations.Ref]dag.Verdict {
	out := map[integrations.Ref]dag.Verdict{}
	for _, s := range p.Items {
		out[s.Ref] = s.Verdict
	}
	return out
}

// chain: epic #1 lists #4, #3, #2 as children; #3 waits for #2, #4 for #3.
func chain() *dag.DependencyGraph {
	g := dag.New()
	g.AddNode(dag.Node{Ref: issue(1), Title: "Epic", State: integrations.StateOpen})
	for _, n := range []int{4, 3, 2} {
		g.AddNode(dag.Node{Ref: issue(n), Title: "step", State: integrations.StateOpen})
		g.AddChild(issue(1), issue(n), "sub-issue")
	}
	g.AddBlocker(issue(3), issue(2), "dependency")
	g.AddBlocker(issue(4), issue(3), "dependency")
	return g
}

func TestThreeItemChain(t *testing.T) {
	tests := []struct {
		name     string
		progress progress
		closed   map[int]bool
		want     map[integrations.Ref]string
		next     []integrations.Ref
	}{
		{"nothing armed: only the first is ready", progress{}, nil, map[integrations.Ref]string{
			issue(2): "ready", issue(3): "blocked by #2 (not started)", issue(4): "blocked by #3 (not started)",
		}, []integrations.Ref{issue(2)}},
		{"the first at design holds the second", progress{issue(2): at("design"), issue(3): at("phase-selection")}, nil, map[integrations.Ref]string{
			issue(2): "working", issue(3): "blocked by #2 (at design)", issue(4): "blocked by #3 (at phase-selection)",
		}, nil},
		{"the first complete releases the second", progress{issue(2): done, issue(3): at("phase-selection")}, nil, map[integrations.Ref]string{
			issue(2): "complete", issue(3): "ready", issue(4): "blocked by #3 (at phase-selection)",
		}, nil},
		{"closing the first as done also releases", progress{}, map[int]bool{2: true}, map[integrations.Ref]string{
			issue(2): "complete", issue(3): "ready", issue(4): "blocked by #3 (not started)",
		}, []integrations.Ref{issue(3)}},
		{"two complete: the third is next", progress{issue(2): done, issue(3): done}, nil, map[integrations.Ref]string{
			issue(2): "complete", issue(3): "complete", issue(4): "ready",
		}, []integrations.Ref{issue(4)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := chain()
			for n := range tt.closed {
				g.AddNode(dag.Node{Ref: issue(n), State: integrations.StateDone, Reason: "completed"})
			}
			plan := g.Evaluate(tt.progress.lookup)
			got := messages(plan)
			for ref, want := range tt.want {
				assert.Equal(t, want, got[ref], "%s", ref)
			}
			assert.Equal(t, tt.next, plan.NextToArm(issue(1)))
			order, inCycle := plan.ArmingOrder(issue(1))
			assert.Equal(t, []integrations.Ref{issue(2), issue(3), issue(4)}, order, "dependency order, not the listed order")
			assert.Empty(t, inCycle)
		})
	}
}

func TestDiamondReleasesTheJoinWhenBothBranchesFinish(t *testing.T) {
	g := dag.New()
	for n := 1; n <= 4; n++ {
		g.AddNode(dag.Node{Ref: issue(n), State: integrations.StateOpen})
	}
	g.AddBlocker(issue(2), issue(1), "dependency")
	g.AddBlocker(issue(3), issue(1), "dependency")
	g.AddBlocker(issue(4), issue(2), "dependency")
	g.AddBlocker(issue(4), issue(3), "dependency")
	tests := []struct {
		name     string
		progress progress
		want     string
		verdict  dag.Verdict
	}{
		{"neither branch done", progress{issue(1): done, issue(2): at("design"), issue(3): at("tasks")}, "blocked by #2 (at design), #3 (at tasks)", dag.VerdictHeld},
		{"one branch done", progress{issue(1): done, issue(2): done, issue(3): at("tasks")}, "blocked by #3 (at tasks)", dag.VerdictHeld},
		{"both branches done", progress{issue(1): done, issue(2): done, issue(3): done}, "ready", dag.VerdictReady},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := g.Evaluate(tt.progress.lookup).Find(issue(4))
			require.True(t, ok)
			assert.Equal(t, tt.want, s.Message())
			assert.Equal(t, tt.verdict, s.Verdict)
			assert.Equal(t, tt.verdict == dag.VerdictHeld, s.Hold)
		})
	}
}

func TestCycleIsReportedAndNothingInItIsArmed(t *testing.T) {
	g := dag.New()
	g.AddNode(dag.Node{Ref: issue(1), State: integrations.StateOpen})
	for n := 2; n <= 6; n++ {
		g.AddNode(dag.Node{Ref: issue(n), State: integrations.StateOpen})
		g.AddChild(issue(1), issue(n), "sub-issue")
	}
	g.AddBlocker(issue(2), issue(3), "dependency")
	g.AddBlocker(issue(3), issue(4), "dependency")
	g.AddBlocker(issue(4), issue(2), "link:Blocks")
	g.AddBlocker(issue(5), issue(4), "dependency") // downstream of the cycle
	g.AddBlocker(issue(7), issue(7), "body")       // a self-loop is a cycle of one

	assert.Equal(t, [][]integrations.Ref{{issue(2), issue(3), issue(4)}, {issue(7)}}, g.Cycles())
	plan := g.Evaluate(progress{}.lookup)
	v := verdicts(plan)
	for _, n := range []int{2, 3, 4, 7} {
		assert.Equal(t, dag.VerdictCycle, v[issue(n)], "#%d: every member of a cycle is reported", n)
		s, _ := plan.Find(issue(n))
		assert.True(t, s.Hold, "#%d is held", n)
	}
	m := messages(plan)
	assert.Equal(t, "in a dependency cycle with #3 and #4; not armed until the cycle is broken", m[issue(2)])
	assert.Equal(t, "blocked by #4 (in a cycle)", m[issue(5)])
	assert.Equal(t, "ready", m[issue(6)])
	assert.Equal(t, []integrations.Ref{issue(6)}, plan.NextToArm(issue(1)))
	order, inCycle := plan.ArmingOrder(issue(1))
	assert.Equal(t, []integrations.Ref{issue(2), issue(3), issue(4)}, inCycle)
	assert.Equal(t, []integrations.Ref{issue(5), issue(6)}, order)
}

func TestStartedItemInACycleIsReportedNotHeld(t *testing.T) {
	g := dag.New()
	g.AddNode(dag.Node{Ref: issue(2), State: integrations.StateOpen})
	g.AddNode(dag.Node{Ref: issue(3), State: integrations.StateOpen})
	g.AddBlocker(issue(2), issue(3), "dependency")
	g.AddBlocker(issue(3), issue(2), "dependency")
	s, _ := g.Evaluate(progress{issue(2): at("implementation")}.lookup).Find(issue(2))
	assert.Equal(t, dag.VerdictCycle, s.Verdict)
	assert.False(t, s.Hold)
	assert.Equal(t, "in a dependency cycle with #3 (reported, not enforced: work had started)", s.Message())
}

func TestRemovedDependencyReleasesOnTheNextRead(t *testing.T) {
	blocker, item := open(issue(2), "Schema"), open(issue(3), "API")
	before := []integrations.Relations{
		{Item: blocker, Blocking: []integrations.Related{item}},
		{Item: item, BlockedBy: []integrations.Related{blocker}},
	}
	after := []integrations.Relations{{Item: blocker}, {Item: item}}
	lookup := progress{issue(2): at("design"), issue(3): at("phase-selection")}.lookup

	s, _ := dag.FromRelations(before).Evaluate(lookup).Find(issue(3))
	assert.Equal(t, "blocked by #2 (at design)", s.Message())
	assert.True(t, s.Hold)
	s, _ = dag.FromRelations(after).Evaluate(lookup).Find(issue(3))
	assert.Equal(t, "ready", s.Message())
	assert.False(t, s.Hold)
}

func TestCrossTrackerEdges(t *testing.T) {
	items := []integrations.Relations{
		{Item: open(issue(2), "Client"), BlockedBy: []integrations.Related{{Ref: ticket("PROJ-3"), State: integrations.StateUnknown, Via: "body"}}},
		{Item: open(ticket("PROJ-3"), "Contract")},
		{Item: open(ticket("PROJ-4"), "Rollout"), Mentions: nil, BlockedBy: []integrations.Related{{Ref: issue(2), Via: "remote-link"}}},
	}
	plan := dag.FromRelations(items).Evaluate(progress{ticket("PROJ-3"): at("design")}.lookup)
	m := messages(plan)
	assert.Equal(t, "blocked by jira:PROJ-3 (at design)", m[issue(2)])
	assert.Equal(t, "blocked by github:octo/widgets#2 (not started)", m[ticket("PROJ-4")])
	assert.Equal(t, dag.VerdictWorking, verdicts(plan)[ticket("PROJ-3")], "the neighbour's unknown hint never overrides the item's own read")
	assert.Equal(t, []integrations.Ref{ticket("PROJ-3"), issue(2), ticket("PROJ-4")}, refsOf(plan.Items))
}

func refsOf(items []dag.Status) []integrations.Ref {
	var out []integrations.Ref
	for _, s := range items {
		out = append(out, s.Ref)
	}
	return out
}

func TestNewBlockerHoldsOnlyWhatHasNotStarted(t *testing.T) {
	g := dag.New()
	g.AddNode(dag.Node{Ref: issue(2), State: integrations.StateOpen})
	g.AddNode(dag.Node{Ref: issue(3), State: integrations.StateOpen})
	g.AddNode(dag.Node{Ref: issue(4), State: integrations.StateOpen})
	g.AddBlocker(issue(3), issue(2), "dependency")
	g.AddBlocker(issue(4), issue(2), "dependency")
	plan := g.Evaluate(progress{issue(2): at("design"), issue(3): at("implementation"), issue(4): at("phase-selection")}.lookup)
	started, _ := plan.Find(issue(3))
	assert.Equal(t, dag.VerdictWorking, started.Verdict)
	assert.False(t, started.Hold, "a blocker added after work started is not enforced")
	assert.Equal(t, "working; blocked by #2 (at design) (reported, not enforced: work had started)", started.Message())
	waiting, _ := plan.Find(issue(4))
	assert.Equal(t, dag.VerdictHeld, waiting.Verdict)
	assert.True(t, waiting.Hold)
}

func TestBlockerStatesThatNeverRelease(t *testing.T) {
	tests := []struct {
		name    string
		blocker dag.Node
		want    string
	}{
		{"closed as not planned", dag.Node{State: integrations.StateNotDone, Reason: "not_planned"}, "blocked by #2 (closed as not_planned)"},
		{"closed without a reason", dag.Node{State: integrations.StateNotDone}, "blocked by #2 (closed, not done)"},
		{"unreadable", dag.Node{State: integrations.StateUnknown, Reason: "was not found"}, "blocked by #2 (unreadable)"},
		{"open and armed without a node", dag.Node{State: integrations.StateOpen}, "blocked by #2 (armed)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := dag.New()
			tt.blocker.Ref = issue(2)
			g.AddNode(tt.blocker)
			g.AddNode(dag.Node{Ref: issue(3), State: integrations.StateOpen})
			g.AddBlocker(issue(3), issue(2), "dependency")
			s, _ := g.Evaluate(progress{issue(2): {Armed: true}}.lookup).Find(issue(3))
			assert.Equal(t, tt.want, s.Message())
			assert.True(t, s.Hold)
		})
	}
}

func TestItemsThatAreNeverArmed(t *testing.T) {
	g := dag.New()
	g.AddNode(dag.Node{Ref: issue(1), State: integrations.StateOpen})
	g.AddNode(dag.Node{Ref: issue(2), State: integrations.StateNotDone, Reason: "duplicate"})
	g.AddNode(dag.Node{Ref: issue(3), State: integrations.StateUnknown, Reason: "was not found"})
	g.AddChild(issue(1), issue(2), "sub-issue")
	g.AddChild(issue(1), issue(3), "task-list")
	plan := g.Evaluate(progress{}.lookup)
	m := messages(plan)
	assert.Equal(t, "closed as duplicate; not armed", m[issue(2)])
	assert.Equal(t, "unreadable (was not found); not armed", m[issue(3)])
	s, _ := plan.Find(issue(3))
	assert.True(t, s.Hold)
	assert.Empty(t, plan.NextToArm(issue(1)))
}

func TestGitHubRefsAreCaseInsensitive(t *testing.T) {
	g := dag.New()
	g.AddNode(dag.Node{Ref: issue(2), State: integrations.StateOpen, Title: "first spelling"})
	g.AddNode(dag.Node{Ref: issue(3), State: integrations.StateOpen})
	upper := integrations.Ref{System: "github", Owner: "Octo", Repo: "Widgets", Number: 2}
	g.AddBlocker(issue(3), upper, "body")
	assert.Equal(t, 2, g.Len())
	s, _ := g.Evaluate(progress{}.lookup).Find(issue(3))
	assert.Equal(t, "blocked by #2 (not started)", s.Message())
}
