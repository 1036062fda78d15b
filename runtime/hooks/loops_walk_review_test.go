package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/gates"
)

const walkReview = `# Review of o/r#7

## Findings

- The retry loop in fetch.go is bounded by maxRetries (3): answered.
- The backoff ignores context cancellation: a cancelled request sleeps out its wait.

## Follow-up

Ask the author to select on ctx.Done() in the backoff.
`

func TestReviewLoopWalkToComplete(t *testing.T) {
	w := newLoopWalk(t, "pdlc-review-loop")
	w.arm("alice", "the-loop review\nQuestions:\n- is the retry bounded?\nAngles:\n- error handling\nPull requests:\n- #7\n")
	w.begin("review-brief")
	assert.Empty(t, w.fake.Posted, "the brief rode in on the arming comment, so no template is posted")
	rep := w.poll()
	require.Equal(t, "defined", rep.Outcome, rep.Messages)
	require.Equal(t, "review", w.at())
	w.step()
	brief := w.state().Decisions["review-brief"]
	require.NotNil(t, brief)
	assert.Equal(t, "@alice", brief.By)
	frozen := brief.Data["brief"].(map[string]any)
	assert.Equal(t, []any{"o/r#7"}, anyList(frozen["pullRequests"]))
	assert.Equal(t, []any{"error handling"}, anyList(frozen["angles"]))

	w.claimBlocked("review", "review.md")
	w.write("review.md", walkReview)
	w.claim("review", "follow-up")
	assert.Contains(t, w.lastPosted().Body, gates.ReviewMarker("follow-up"))
	// a follow-up question is more work; the next round answers it.
	w.answer("alice", "Does the cancellation also affect the upload path?", "more-work", "review")
	w.edit("review.md", "## Follow-up", "- The upload path shares the backoff: same fix applies.\n\n## Follow-up")
	w.claim("review", "follow-up")
	rep = w.poll()
	assert.Equal(t, string(runtime.Wait), rep.Status, "the earlier question does not answer the new round: %v", rep.Messages)
	w.step()
	w.answer("alice", "done", "done", "complete")

	st, byNode := w.finish([]string{"review-brief", "review", "review", "follow-up", "review", "follow-up", "follow-up", "complete"})
	assert.Equal(t, "@alice", st.Decisions["follow-up"].By)
	assert.Equal(t, "done", st.Decisions["follow-up"].Outcome)
	assert.Equal(t, "pass", byNode["review"].Status)
	assert.Contains(t, w.fake.Labels, "loop:complete")
}
