package dag_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime/dag"
)

// TestRelationsCanOnlyHold is the trust boundary in code: whoever edits a
// dependency in a tracker changes the walk only by holding an item that
// has not started. Over many generated graphs, adding relations never
// completes, releases or advances an item compared with the same item
// without relations.
func TestRelationsCanOnlyHold(t *testing.T) {
	allowed := map[dag.Verdict][]dag.Verdict{
		dag.VerdictComplete: {dag.VerdictComplete},
		dag.VerdictClosed:   {dag.VerdictClosed},
		dag.VerdictUnknown:  {dag.VerdictUnknown, dag.VerdictCycle},
		dag.VerdictWorking:  {dag.VerdictWorking, dag.VerdictCycle},
		dag.VerdictReady:    {dag.VerdictReady, dag.VerdictHeld, dag.VerdictCycle},
	}
	states := []integrations.ItemState{integrations.StateOpen, integrations.StateOpen, integrations.StateDone, integrations.StateNotDone, integrations.StateUnknown}
	progresses := []dag.Progress{{}, at("phase-selection"), at("design"), done}
	rng := rand.New(rand.NewPCG(14, 14))
	for round := range 300 {
		n := 2 + rng.IntN(7)
		nodes := make([]dag.Node, n)
		look := progress{}
		for i := range nodes {
			nodes[i] = dag.Node{Ref: issue(i + 1), State: states[rng.IntN(len(states))]}
			look[issue(i+1)] = progresses[rng.IntN(len(progresses))]
		}
		bare, linked := dag.New(), dag.New()
		for _, nd := range nodes {
			bare.AddNode(nd)
			linked.AddNode(nd)
		}
		for range rng.IntN(2 * n) {
			a, b := rng.IntN(n), rng.IntN(n)
			if rng.IntN(3) == 0 {
				linked.AddChild(issue(a+1), issue(b+1), "sub-issue")
			} else {
				linked.AddBlocker(issue(a+1), issue(b+1), "dependency")
			}
		}
		base, with := bare.Evaluate(look.lookup), linked.Evaluate(look.lookup)
		for _, s := range with.Items {
			b, _ := base.Find(s.Ref)
			assert.True(t, slices.Contains(allowed[b.Verdict], s.Verdict), "round %d %s: %s became %s", round, s.Ref, b.Verdict, s.Verdict)
			assert.False(t, b.Hold && !s.Hold, "round %d %s: a relation released a hold", round, s.Ref)
			assert.Equal(t, b.Progress, s.Progress, "relations never change the loop's progress")
		}
	}
}
