package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/runtime"
)

// The execution log the review chain fills in, one section per node.
const walkExecutionLog = `# Execution log

## Review cycles

- cycle 1 (self): no finding.
- cycle 2 (critic, another model): the job's token scope was too wide; narrowed.

## Security review (gate)

The workflow gets contents: read only; no secret is echoed.

## Final validation evidence

The workflow ran green on the branch.

## Capability docs

The export job is listed in the operations guide.

## Documentation

README gained a "CSV export" paragraph.

## Pull requests

- o/r#7 — the export job.
`

// TestWorkItemLoopWalkReviewChainAtTierFour walks the work-item loop with
// the spec chain declared skipped from a checklist inside the execute reply:
// implementation writes the only task list, which names a workflow file, so
// the risk tier is 4 and the security review holds until a reviewer signs
// it off by name.
func TestWorkItemLoopWalkReviewChainAtTierFour(t *testing.T) {
	w := newLoopWalk(t, graphs.Default)
	w.begin("phase-selection")
	w.answer("alice", "the-loop execute\n- [ ] spec-chain", "selected", "implementation")
	st := w.state()
	specChain := w.rt.Graph.SkipSets["spec-chain"]
	for _, n := range specChain {
		require.Contains(t, st.Skips, n)
		assert.Equal(t, "spec-chain", st.Skips[n].Token, n)
		assert.Equal(t, "@alice", st.Skips[n].By, n)
	}
	assert.Equal(t, "reply", st.Decisions["phase-selection"].Via)
	assert.Empty(t, st.OptIns, "the design critic was not ticked")

	w.write("tasks.md", "# Tasks\n\n## Task list\n\n- [x] T1 add the export job to .github/workflows/export.yml\n")
	w.shipPull()
	w.claim("implementation", "verification")
	// testing-plan.md was planned away with test-planning: the evidence file stands in.
	w.claimBlocked("verification", "evidence/verification.md")
	w.write("evidence/verification.md", "# Verification\n\n## Verification results\n\nThe job ran on a fork: exit 0.\n")
	w.claim("verification", "self-review")
	w.write("execution-log.md", walkExecutionLog)
	w.selfReview()
	w.claim("self-review", "critic-review")
	w.criticReview()
	w.claim("critic-review", "security-review")

	env := w.complete("security-review")
	assert.Equal(t, string(runtime.Wait), env.Status, env.Messages)
	assert.Contains(t, env.Messages[0], "risk tier 4 needs a named security sign-off")
	w.step()
	rep := w.reply(w.newID(), "alice", "I have not done the security sign-off yet.")
	assert.Equal(t, string(runtime.Wait), rep.Status, "a negated sign-off signs nothing: %v", rep.Messages)
	w.step()
	rep = w.reply(w.newID(), "mallory", "Security sign-off.")
	assert.Equal(t, string(runtime.Wait), rep.Status, "mallory is not authorized: %v", rep.Messages)
	w.step()
	w.answer("bob", "Security sign-off: the token scope is read-only.", "pass", "evidence")
	signOff := w.state().Decisions["security-review"]
	require.NotNil(t, signOff)
	assert.Equal(t, "@bob", signOff.By)
	assert.Equal(t, "signed-off", signOff.Outcome)

	w.claim("evidence", "capability-docs")
	w.claim("capability-docs", "reviewer-briefing")
	w.claim("reviewer-briefing", "human-approval")
	rep = w.poll()
	assert.Equal(t, string(runtime.Wait), rep.Status, "tier 4 is never approved by rule: %v", rep.Messages)
	w.step()
	w.answer("alice", "Approved.", "approved", "complete")

	st, byNode := w.finish([]string{
		"phase-selection", "implementation", "verification", "verification", "self-review", "critic-review",
		"security-review", "security-review", "security-review", "security-review", "evidence",
		"capability-docs", "reviewer-briefing", "human-approval", "human-approval", "complete",
	})
	assert.Equal(t, "comment", st.Decisions["human-approval"].Via)
	assert.Equal(t, "@alice", st.Decisions["human-approval"].By)
	for _, n := range specChain {
		assert.Equal(t, "skip", byNode[n].Status, n)
	}
	assert.Equal(t, "skip", byNode["design-critic-review"].Status)
	assert.Contains(t, byNode["design-critic-review"].Messages[0], "not selected")
	assert.Equal(t, "pass", byNode["security-review"].Status)
}
