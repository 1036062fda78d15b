package hooks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
)

// posted returns what the loop posted that carries marker.
func postedWith(fake *gateFake, marker string) []string {
	var out []string
	for _, p := range fake.posted {
		if strings.Contains(p, marker) {
			out = append(out, p)
		}
	}
	return out
}

// rerun evaluates a gate again with the thread as it now stands (the
// loop's own notices included), as the next poll cycle does.
func rerun(t *testing.T, hc *runtime.HookContext, fake *gateFake, gate func(*runtime.HookContext) (runtime.Result, error), replies ...integrations.Comment) runtime.Result {
	t.Helper()
	gateEvent(hc, append(append([]integrations.Comment(nil), replies...), fake.thread...)...)
	r, err := gate(hc)
	require.NoError(t, err)
	return r
}

func TestUndecidableReplyGetsOneHelpCommentPerVisit(t *testing.T) {
	hc, fake := gateCtx(t, approvalNode, nil)
	reply := gateComment(1, "alice", "Approved? Not quite, LGTM once the tests pass.")
	for i := 0; i < 3; i++ {
		r := rerun(t, hc, fake, classifyFeedback, reply)
		assert.Equal(t, runtime.Wait, r.Status)
	}
	help := postedWith(fake, gateHelpMarker("requirements-approval"))
	require.Len(t, help, 1, "said once, never each cycle")
	assert.Contains(t, help[0], "`Approved.`")
	assert.True(t, integrations.IsSelfAuthored(help[0]))

	chatter, fake2 := gateCtx(t, approvalNode, nil)
	rerun(t, chatter, fake2, classifyFeedback, gateComment(1, "alice", "Interesting choice of data model."))
	assert.Empty(t, fake2.posted, "a reply that does not try to decide gets no help")
}

func TestEditedCommentIsNeverADecision(t *testing.T) {
	hc, fake := gateCtx(t, approvalNode, nil)
	edited := editedComment(gateComment(1, "alice", "Approved."))
	for i := 0; i < 2; i++ {
		r := rerun(t, hc, fake, classifyFeedback, edited)
		assert.Equal(t, runtime.Wait, r.Status)
		assert.NotContains(t, r.Data, "decision")
	}
	notice := postedWith(fake, gateEditedMarker("requirements-approval", edited))
	require.Len(t, notice, 1, "one marked comment per edited comment")
	assert.Contains(t, notice[0], "@alice")

	r := rerun(t, hc, fake, classifyFeedback, edited, gateComment(2, "alice", "Approved."))
	assert.Equal(t, runtime.Pass, r.Status, "a fresh reply decides")
}

func TestDecisionRecordsTheEvidenceItRestsOn(t *testing.T) {
	hc, _ := gateCtx(t, approvalNode, nil)
	c := gateComment(7, "Alice", "Approved.")
	gateEvent(hc, c)
	r, err := classifyFeedback(hc)
	require.NoError(t, err)
	d := gateDecisionOf(t, r)
	ev := d.Data[EvidenceKey].([]any)
	require.Len(t, ev, 1)
	e := ev[0].(map[string]any)
	assert.Equal(t, BodyHash("Approved."), e["sha256"])
	assert.Equal(t, "7", e["id"])
	assert.Equal(t, c.URL, e["url"])
	assert.Equal(t, "alice", e["author"])
	assert.NotEmpty(t, e["createdAt"])
	assert.Equal(t, e["createdAt"], e["updatedAt"])
}

func TestSecuritySignOffNewestMentionDecides(t *testing.T) {
	tier4 := "---\nriskTier: 4\n---\n"
	tests := []struct {
		name     string
		comments []integrations.Comment
		want     runtime.Status
	}{
		{"sign-off", []integrations.Comment{gateComment(1, "bob", "Security sign-off.")}, runtime.Pass},
		{"waiting for it", []integrations.Comment{gateComment(1, "bob", "Waiting for security sign-off.")}, runtime.Wait},
		{"withdrawn later", []integrations.Comment{gateComment(1, "bob", "Security sign-off."), gateComment(2, "alice", "My security sign-off is withdrawn.")}, runtime.Wait},
		{"unrelated chatter after it", []integrations.Comment{gateComment(1, "bob", "Security sign-off."), gateComment(2, "alice", "thanks")}, runtime.Pass},
		{"edited", []integrations.Comment{editedComment(gateComment(1, "bob", "Security sign-off."))}, runtime.Wait},
		{"emoji", []integrations.Comment{gateComment(1, "bob", "Security sign-off ✅")}, runtime.Wait},
		{"reported", []integrations.Comment{gateComment(1, "bob", "Dana gave the security sign-off.")}, runtime.Wait},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc, _ := gateCtx(t, &runtime.Node{ID: "security-review"}, nil)
			gateWrite(t, hc, "requirements.md", tier4+"# R\n")
			gateEvent(hc, tt.comments...)
			r, err := securitySignOff(hc)
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.Status, gateMessages(r))
		})
	}
}

func TestAdhocReplyThatCannotBeReadWaits(t *testing.T) {
	for _, body := range []string{"👍", "Thanks!", "\u202edone\u202c"} {
		hc, fake := gateCtx(t, adhocNode, nil)
		r := rerun(t, hc, fake, classifyAdhocReply, gateComment(1, "alice", body))
		assert.Equal(t, runtime.Wait, r.Status, body)
		assert.Len(t, postedWith(fake, gateHelpMarker("review")), 1, body)
	}
	hc, fake := gateCtx(t, adhocNode, nil)
	r := rerun(t, hc, fake, classifyAdhocReply, editedComment(gateComment(1, "alice", "Done.")))
	assert.Equal(t, runtime.Wait, r.Status, "an edited done is never read")
	hc, fake = gateCtx(t, adhocNode, nil)
	r = rerun(t, hc, fake, classifyAdhocReply, gateComment(1, "alice", "Done: no"))
	assert.Equal(t, "more-work", r.Data["outcome"], "a negated done is not done")
}
