package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/gates"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
	"github.com/the-loop/the-loop/runtime/hooks/work"
)

// TestPRLoopWalk walks one pull request's inner loop: the review chain, a
// change request at pr-approval that sends it back to implementation, and
// the approval. Its finished record then releases the outer loop's
// await-inner-loops, which honours only a signed approval.
func TestPRLoopWalk(t *testing.T) {
	w := newLoopWalk(t, "pdlc-pr-loop")
	w.begin("implementation")
	assert.Empty(t, w.fake.Labels, "the inner loop sets no phase label")

	chain := func() {
		w.claim("implementation", "verification")
		w.claim("verification", "self-review")
		w.claim("self-review", "critic-review")
		w.criticReview()
		w.claim("critic-review", "security-review")
		w.claim("security-review", "reviewer-briefing")
		w.claim("reviewer-briefing", "pr-approval")
	}
	w.claim("implementation", "verification")
	w.claim("verification", "self-review")
	w.claimBlocked("self-review", "evidence/self-review.md is missing or empty")
	w.write("execution-log.md", walkExecutionLog)
	w.selfReview()
	w.claim("self-review", "critic-review")
	w.criticReview()
	w.claim("critic-review", "security-review")
	w.claim("security-review", "reviewer-briefing")
	w.claimBlocked("reviewer-briefing", "pr-briefing.md is missing")
	w.write("pr-briefing.md", filledBriefing)
	w.claimBlocked("reviewer-briefing", "evidence/documentation.md is missing")
	w.write("evidence/documentation.md", "# Documentation\n\n## Capability docs\n\nnone affected.\n\n## Documentation\n\nnone: internal only.\n")
	w.claim("reviewer-briefing", "pr-approval")
	assert.Contains(t, w.lastPosted().Body, gates.ReviewMarker("pr-approval"))
	assert.Equal(t, 1, w.briefings(), "the briefing is one comment on the pull request")
	pending := w.state()

	w.answer("bob", "Changes requested: the job must not run on forks.", "changes-requested", "implementation")
	chain()
	rep := w.poll()
	assert.Equal(t, string(runtime.Wait), rep.Status, "the first visit's change request does not answer the second: %v", rep.Messages)
	w.step()
	w.answer("bob", "Approved.", "approved", "complete")

	st, _ := w.finish([]string{
		"implementation", "verification", "self-review", "self-review", "critic-review", "security-review",
		"reviewer-briefing", "reviewer-briefing", "reviewer-briefing", "pr-approval",
		"implementation", "verification", "self-review", "critic-review", "security-review", "reviewer-briefing", "pr-approval",
		"pr-approval", "complete",
	})
	assert.Equal(t, 1, w.briefings(), "a second pass edits the briefing in place, never a second comment")
	require.Contains(t, st.Decisions, "pr-approval")
	assert.Equal(t, "@bob", st.Decisions["pr-approval"].By)
	assert.Equal(t, "approved", st.Decisions["pr-approval"].Outcome)

	// The outer loop's implementation waits on this record, then passes.
	node, ok := compileShipped(t, "pdlc-work-item-loop").Node("implementation")
	require.True(t, ok)
	hc, _ := hooktest.GateContext(t, node, nil)
	hc.Signer = w.rt.Signer
	for _, tt := range []struct {
		name   string
		st     *runtime.State
		status runtime.Status
	}{
		{"at pr-approval", pending, runtime.Wait},
		{"complete and approved", st, runtime.Pass},
	} {
		b, err := tt.st.Marshal()
		require.NoError(t, err)
		hooktest.WriteArtifact(t, hc, "pr-loops/pr-7/"+runtime.StateFile, string(b))
		res, err := work.AwaitInnerLoops(hc)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.status, res.Status, "%s: %v", tt.name, hooktest.Texts(res))
	}
}
