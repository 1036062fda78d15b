package gates

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

var securityNode = &runtime.Node{ID: "security-review"}

func TestSecuritySignOff(t *testing.T) {
	tests := []struct {
		name     string
		tier     string
		comments []integrations.Comment
		status   runtime.Status
		by       string
	}{
		{"below tier 4 passes", "---\nriskTier: 3\n---\n", nil, runtime.Pass, ""},
		{"tier 4 waits", "---\nriskTier: 4\n---\n", nil, runtime.Wait, ""},
		{"tier 5 signed off", "---\nriskTier: 5\n---\n", []integrations.Comment{hooktest.Comment(1, "bob", "Security sign-off: threat model reviewed.")}, runtime.Pass, "@bob"},
		{"negated sign-off waits", "---\nriskTier: 4\n---\n", []integrations.Comment{hooktest.Comment(1, "bob", "no security sign-off yet")}, runtime.Wait, ""},
		{"unauthorized sign-off waits", "---\nriskTier: 4\n---\n", []integrations.Comment{hooktest.Comment(1, "mallory", "security approved")}, runtime.Wait, ""},
		{"self-authored sign-off waits", "---\nriskTier: 4\n---\n", []integrations.Comment{{Author: "alice", Body: integrations.MarkSelfAuthored("security sign-off")}}, runtime.Wait, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc, _ := hooktest.GateContext(t, securityNode, nil)
			hooktest.WriteArtifact(t, hc, "requirements.md", tt.tier)
			hooktest.SetEvent(hc, tt.comments...)
			r, err := SecuritySignOff(hc)
			require.NoError(t, err)
			assert.Equal(t, tt.status, r.Status, hooktest.Texts(r))
			assert.NotContains(t, r.Data, "outcome", "the sign-off never changes the node's routing")
			if tt.status == runtime.Wait {
				assert.Contains(t, hooktest.Texts(r)[0], "needs a named security sign-off")
			}
			if tt.by != "" {
				d := hooktest.DecisionOf(t, r)
				assert.Equal(t, tt.by, d.By)
				assert.Equal(t, "signed-off", d.Outcome)
				assert.Equal(t, runtime.KindGate, d.Kind)
			}
		})
	}
}

func TestSecuritySignOffRecordedAnswersCheck(t *testing.T) {
	hc, _ := hooktest.GateContext(t, securityNode, nil)
	hooktest.WriteArtifact(t, hc, "requirements.md", "---\nriskTier: 5\n---\n")
	hc.State.Decisions["security-review"] = &runtime.Decision{Outcome: "signed-off", By: "@bob"}
	hooktest.CheckOnly(hc)
	r, err := SecuritySignOff(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status)
}
