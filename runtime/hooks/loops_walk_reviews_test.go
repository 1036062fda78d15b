package hooks

import (
	"context"
	"fmt"

	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/critic"
	"github.com/the-loop/the-loop/runtime"
)

// walkSelfReview is a self-review record whose second round found nothing new.
const walkSelfReview = `# Self-review

| Round | Findings | New findings | Fixed in |
|---|---|---|---|
| 1 | 2 | 2 | 3f2a1c9 |
| 2 | 0 | 0 | — |
`

// selfReview writes the self-review record the agent keeps.
func (w *loopWalk) selfReview() { w.write("evidence/self-review.md", walkSelfReview) }

// criticReview is a critic round as the loop runs it: a configured critic,
// its run recorded on the item at the node it stands at (what `the-loop
// critic run --work-item` records), and the round table naming that run.
func (w *loopWalk) criticReview() {
	w.t.Helper()
	w.rt.Config.Critic.Critics = []critic.Critic{{Name: "codex", Command: []string{"codex", "exec", "-"}}}
	id := fmt.Sprintf("cr-20260301T100000Z-%012d", w.newID())
	receipt := runtime.NewCriticRunReceipt(runtime.CriticRun{ID: id, Critic: "codex", Node: w.at()}, "p", "o")
	require.NoError(w.t, w.rt.RecordCriticRun(context.Background(), walkID, receipt))
	w.write("evidence/critic-review.md", "# Critic review\n\n| Round | Critic | Run | Findings | New findings |\n|---|---|---|---|---|\n| 1 | codex | "+id+" | 0 | 0 |\n")
}
