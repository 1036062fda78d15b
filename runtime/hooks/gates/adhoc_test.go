package gates

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

var adhocNode = &runtime.Node{ID: "review", Actor: "human"}

func TestClassifyAdhocReply(t *testing.T) {
	tests := []struct {
		name     string
		comments []integrations.Comment
		status   runtime.Status
		outcome  string
	}{
		{"silence", nil, runtime.Wait, ""},
		{"done", []integrations.Comment{hooktest.Comment(1, "alice", "all done, thanks")}, runtime.Pass, "done"},
		{"more work", []integrations.Comment{hooktest.Comment(1, "alice", "now also fix the footer")}, runtime.Pass, "more-work"},
		{"not done", []integrations.Comment{hooktest.Comment(1, "alice", "not done yet")}, runtime.Pass, "more-work"},
		{"the newest authorized comment decides", []integrations.Comment{hooktest.Comment(1, "alice", "done"), hooktest.Comment(2, "bob", "one more: the README")}, runtime.Pass, "more-work"},
		{"newest done after more", []integrations.Comment{hooktest.Comment(1, "alice", "fix the footer"), hooktest.Comment(2, "bob", "that's all")}, runtime.Pass, "done"},
		{"unauthorized done is not read", []integrations.Comment{hooktest.Comment(1, "mallory", "done")}, runtime.Wait, ""},
		{"the loop cannot end its own item", []integrations.Comment{{Author: "alice", Body: integrations.MarkSelfAuthored("done")}, {Author: "the-loop-bot", Body: "done"}}, runtime.Wait, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc, _ := hooktest.GateContext(t, adhocNode, nil)
			hooktest.SetEvent(hc, tt.comments...)
			r, err := ClassifyAdhocReply(hc)
			require.NoError(t, err)
			assert.Equal(t, tt.status, r.Status)
			if tt.status == runtime.Wait {
				assert.Equal(t, []string{"no authorized reply yet"}, hooktest.Texts(r))
				return
			}
			assert.Equal(t, tt.outcome, r.Data["outcome"])
			d := hooktest.DecisionOf(t, r)
			assert.Equal(t, runtime.KindGate, d.Kind)
			assert.Equal(t, tt.outcome, d.Outcome)
			last := tt.comments[len(tt.comments)-1]
			assert.Equal(t, last.URL, d.CommentURL)
		})
	}
}

func TestAdhocReplyRecordedMoreWorkUnderCheck(t *testing.T) {
	hc, _ := hooktest.GateContext(t, adhocNode, nil)
	hc.State.Decisions["review"] = &runtime.Decision{Outcome: "more-work", Via: "comment", By: "@alice"}
	hooktest.CheckOnly(hc)
	r, err := ClassifyAdhocReply(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Wait, r.Status)
	assert.Equal(t, []string{"more work requested by @alice; the gate asks again once the work is reported back"}, hooktest.Texts(r))

	hc.State.Decisions["review"].Outcome = "done"
	r, _ = ClassifyAdhocReply(hc)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Equal(t, "done", r.Data["outcome"])
}

func TestAdhocReplyIgnoresThePreviousRound(t *testing.T) {
	hc, _ := hooktest.GateContext(t, adhocNode, nil)
	request := integrations.Comment{ID: 5, Author: "the-loop-bot", Body: integrations.MarkSelfAuthored(ReviewMarker("review"))}
	hooktest.SetEvent(hc, hooktest.Comment(1, "alice", "also fix the footer"), request)
	r, err := ClassifyAdhocReply(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Wait, r.Status, "the instruction that sent the work back is not read again")
}
