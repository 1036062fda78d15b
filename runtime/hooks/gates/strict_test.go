package gates

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

// posted returns what the loop posted that carries marker.
func postedWith(fake *hooktest.Fake, marker string) []string {
	var out []string
	for _, p := range fake.Posted {
		if strings.Contains(p, marker) {
			out = append(out, p)
		}
	}
	return out
}

// rerun evaluates a gate again with the thread as it now stands (the
// loop's own notices included), as the next poll cycle does.
func rerun(t *testing.T, hc *runtime.HookContext, fake *hooktest.Fake, gate func(*runtime.HookContext) (runtime.Result, error), replies ...integrations.Comment) runtime.Result {
	t.Helper()
	hooktest.SetEvent(hc, append(append([]integrations.Comment(nil), replies...), fake.Thread...)...)
	r, err := gate(hc)
	require.NoError(t, err)
	return r
}

func TestUndecidableReplyGetsOneHelpCommentPerVisit(t *testing.T) {
	hc, fake := hooktest.GateContext(t, approvalNode, nil)
	reply := hooktest.Comment(1, "alice", "Approved? Not quite, LGTM once the tests pass.")
	for i := 0; i < 3; i++ {
		r := rerun(t, hc, fake, ClassifyFeedback, reply)
		assert.Equal(t, runtime.Wait, r.Status)
	}
	help := postedWith(fake, gateHelpMarker("requirements-approval"))
	require.Len(t, help, 1, "said once, never each cycle")
	assert.Contains(t, help[0], "`Approved.`")
	assert.True(t, integrations.IsSelfAuthored(help[0]))

	chatter, fake2 := hooktest.GateContext(t, approvalNode, nil)
	rerun(t, chatter, fake2, ClassifyFeedback, hooktest.Comment(1, "alice", "Interesting choice of data model."))
	assert.Empty(t, fake2.Posted, "a reply that does not try to decide gets no help")
}

// The help comment speaks of one reply at a time: a second reply the gate
// cannot act on edits it in place, the same reply read again changes
// nothing, and it says which part could not be read and how the reply was
// taken, never quoting it.
func TestTheHelpCommentIsEditedInPlaceOncePerReply(t *testing.T) {
	hc, fake := hooktest.GateContext(t, approvalNode, nil)
	first := hooktest.Comment(1, "alice", "Approved once CI is green.")
	for i := 0; i < 3; i++ {
		rerun(t, hc, fake, ClassifyFeedback, first)
	}
	help := postedWith(fake, gateHelpMarker("requirements-approval"))
	require.Len(t, help, 1)
	assert.Contains(t, help[0], "@alice, I could not act on your [reply]("+first.URL+") at **requirements-approval**")
	assert.Contains(t, help[0], `- How I read it: it is not an approval the reader accepts: "once" makes it conditional.`)
	assert.NotContains(t, help[0], "CI is green", "the reply is never quoted back")
	assert.Zero(t, fake.Edits, "the same reply read again changes nothing")

	second := hooktest.Comment(2, "alice", "Approved󠀠󠁮󠁯󠁴")
	for i := 0; i < 3; i++ {
		r := rerun(t, hc, fake, ClassifyFeedback, first, second)
		assert.Equal(t, runtime.Wait, r.Status)
	}
	assert.Len(t, postedWith(fake, gateHelpMarker("requirements-approval")), 1, "still one help comment")
	assert.Equal(t, 1, fake.Edits, "edited in place, once for the new reply")
	var body string
	for _, c := range fake.Thread {
		if strings.Contains(c.Body, gateHelpMarker("requirements-approval")) {
			body = c.Body
		}
	}
	assert.Contains(t, body, "your [reply]("+second.URL+")")
	assert.Contains(t, body, "- What I could not read: line 1, character 9 (U+E0020).")
	assert.Contains(t, body, "invisible characters that can carry text no one sees")
	assert.True(t, integrations.IsSelfAuthored(body))
}

func TestEditedCommentIsNeverADecision(t *testing.T) {
	hc, fake := hooktest.GateContext(t, approvalNode, nil)
	edited := hooktest.Edited(hooktest.Comment(1, "alice", "Approved."))
	for i := 0; i < 2; i++ {
		r := rerun(t, hc, fake, ClassifyFeedback, edited)
		assert.Equal(t, runtime.Wait, r.Status)
		assert.NotContains(t, r.Data, "decision")
	}
	notice := postedWith(fake, gateEditedMarker("requirements-approval", edited))
	require.Len(t, notice, 1, "one marked comment per edited comment")
	assert.Contains(t, notice[0], "@alice")

	r := rerun(t, hc, fake, ClassifyFeedback, edited, hooktest.Comment(2, "alice", "Approved."))
	assert.Equal(t, runtime.Pass, r.Status, "a fresh reply decides")
}

func TestDecisionRecordsTheEvidenceItRestsOn(t *testing.T) {
	hc, _ := hooktest.GateContext(t, approvalNode, nil)
	c := hooktest.Comment(7, "Alice", "Approved.")
	hooktest.SetEvent(hc, c)
	r, err := ClassifyFeedback(hc)
	require.NoError(t, err)
	d := hooktest.DecisionOf(t, r)
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
		{"sign-off", []integrations.Comment{hooktest.Comment(1, "bob", "Security sign-off.")}, runtime.Pass},
		{"waiting for it", []integrations.Comment{hooktest.Comment(1, "bob", "Waiting for security sign-off.")}, runtime.Wait},
		{"withdrawn later", []integrations.Comment{hooktest.Comment(1, "bob", "Security sign-off."), hooktest.Comment(2, "alice", "My security sign-off is withdrawn.")}, runtime.Wait},
		{"unrelated chatter after it", []integrations.Comment{hooktest.Comment(1, "bob", "Security sign-off."), hooktest.Comment(2, "alice", "thanks")}, runtime.Pass},
		{"edited", []integrations.Comment{hooktest.Edited(hooktest.Comment(1, "bob", "Security sign-off."))}, runtime.Wait},
		{"emoji", []integrations.Comment{hooktest.Comment(1, "bob", "Security sign-off 🙄")}, runtime.Wait},
		{"emoji of assent", []integrations.Comment{hooktest.Comment(1, "bob", "Security sign-off ✅")}, runtime.Pass},
		{"reported", []integrations.Comment{hooktest.Comment(1, "bob", "Dana gave the security sign-off.")}, runtime.Wait},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc, _ := hooktest.GateContext(t, &runtime.Node{ID: "security-review"}, nil)
			hooktest.WriteArtifact(t, hc, "requirements.md", tier4+"# R\n")
			hooktest.SetEvent(hc, tt.comments...)
			r, err := SecuritySignOff(hc)
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.Status, hooktest.Texts(r))
		})
	}
}

func TestAdhocReplyThatCannotBeReadWaits(t *testing.T) {
	for _, body := range []string{"👍", "Thanks!", "\u202edone\u202c"} {
		hc, fake := hooktest.GateContext(t, adhocNode, nil)
		r := rerun(t, hc, fake, ClassifyAdhocReply, hooktest.Comment(1, "alice", body))
		assert.Equal(t, runtime.Wait, r.Status, body)
		assert.Len(t, postedWith(fake, gateHelpMarker("review")), 1, body)
	}
	hc, fake := hooktest.GateContext(t, adhocNode, nil)
	r := rerun(t, hc, fake, ClassifyAdhocReply, hooktest.Edited(hooktest.Comment(1, "alice", "Done.")))
	assert.Equal(t, runtime.Wait, r.Status, "an edited done is never read")
	hc, fake = hooktest.GateContext(t, adhocNode, nil)
	r = rerun(t, hc, fake, ClassifyAdhocReply, hooktest.Comment(1, "alice", "Done: no"))
	assert.Equal(t, "more-work", r.Data["outcome"], "a negated done is not done")
}
