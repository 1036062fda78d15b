package gates

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

func TestMergeCommentsDropsRepeats(t *testing.T) {
	a := []integrations.Comment{{ID: 1, URL: "u1"}, {ID: 2}}
	b := []integrations.Comment{{URL: "u1"}, {ID: 2, URL: "u2"}, {ID: 3}}
	var got []int64
	for _, c := range gateMergeComments(a, b) {
		got = append(got, c.ID)
	}
	assert.Equal(t, []int64{1, 2, 3}, got)
}

// TestAnEmptyAuthorizedListAnswersNoGate: with nobody authorized, an
// approval keeps the gate waiting.
func TestAnEmptyAuthorizedListAnswersNoGate(t *testing.T) {
	hc, _ := hooktest.GateContext(t, nil, nil)
	hc.Config.Routing.AuthorizedUsers = nil
	hooktest.SetEvent(hc, hooktest.Comment(1, "alice", "approved"))
	r, err := ClassifyFeedback(hc)
	assert.NoError(t, err)
	assert.Equal(t, "wait", string(r.Status))
}
