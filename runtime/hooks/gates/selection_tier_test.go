package gates

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

const tierSelectionYAML = `
name: pdlc-work-item-loop
start: phase-selection
nodes:
  - {id: phase-selection, actor: human, required: true, exit: [classify-phase-selection]}
  - {id: brainstorming, skippable: true}
  - {id: design-approval, actor: human, skippable: true}
  - {id: complete, terminal: true}
edges:
  - {from: phase-selection, to: brainstorming, on: selected}
  - {from: brainstorming, to: design-approval, on: pass}
  - {from: brainstorming, to: design-approval, on: skipped}
  - {from: design-approval, to: complete, on: approved}
  - {from: design-approval, to: complete, on: skipped}
`

func TestRiskTierFiveKeepsTheSpecApprovals(t *testing.T) {
	for _, tt := range []struct {
		tier        string
		wantSkips   []string
		wantRefused bool
	}{
		{tier: "3", wantSkips: []string{"brainstorming", "design-approval"}},
		{tier: "5", wantSkips: []string{"brainstorming"}, wantRefused: true},
	} {
		t.Run("tier "+tt.tier, func(t *testing.T) {
			g := hooktest.Compile(t, "pdlc-work-item-loop", []byte(tierSelectionYAML))
			n, _ := g.Node("phase-selection")
			hc, _ := hooktest.GateContext(t, n, nil)
			hc.Graph = g
			require.NoError(t, os.WriteFile(filepath.Join(hc.WorkItem.SpecDir, "requirements.md"),
				[]byte("---\nriskTier: "+tt.tier+"\n---\n# R\n"), 0o644))
			hooktest.SetEvent(hc, hooktest.Comment(1, "alice", "- [ ] brainstorming\n- [ ] design-approval\n\nthe-loop execute"))
			r, err := ClassifyPhaseSelection(hc)
			require.NoError(t, err)
			require.Equal(t, runtime.Pass, r.Status)
			assert.Equal(t, tt.wantSkips, skipNodes(r))
			refused, _ := r.Data["decision"].(*runtime.Decision).Data["refused"].([]string)
			if tt.wantRefused {
				assert.Contains(t, refused, "design-approval", "at tier 5 a human approves the spec too")
			} else {
				assert.NotContains(t, refused, "design-approval")
			}
		})
	}
}
