package artifacts

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

func TestSuccessCriteriaMustEachBeTicked(t *testing.T) {
	goal := &runtime.Decision{Node: "goal-definition", Kind: runtime.KindGoal, Outcome: "defined",
		Data: map[string]any{"goal": map[string]any{"goal": "faster export", "criteria": []any{"Export of 10k rows takes under 2s", "No new dependency"}}}}
	tests := []struct {
		name, file, text string
		goal             *runtime.Decision
		status           runtime.Status
		want             string
	}{
		{"all ticked", "contribution.md", "## Success criteria\n\n- [x] Export of 10k rows takes under 2s.\n- [X] no new  dependency\n", goal, runtime.Pass, ""},
		{"evidence after the criterion", "contribution.md", "- [x] Export of 10k rows takes under 2s — 1.4s measured\n- [x] No new dependency (go.mod unchanged)\n", goal, runtime.Pass, ""},
		{"a longer word is another criterion", "contribution.md", "- [x] Export of 10k rows takes under 2s\n- [x] No new dependencyless thing\n", goal, runtime.Block, "No new dependency"},
		{"one unticked", "contribution.md", "- [x] Export of 10k rows takes under 2s\n- [ ] No new dependency\n", goal, runtime.Block, "success criterion is not ticked: No new dependency"},
		{"criteria rewritten away", "contribution.md", "## Success criteria\n\nsee above\n", goal, runtime.Block, "success criterion is not ticked: Export of 10k rows takes under 2s"},
		{"a quoted tick is not a tick", "contribution.md", "> - [x] Export of 10k rows takes under 2s\n- [x] No new dependency\n", goal, runtime.Block, "not ticked: Export"},
		{"falls back to the evidence file", "evidence/verification.md", "- [x] Export of 10k rows takes under 2s\n- [x] No new dependency\n", goal, runtime.Pass, ""},
		{"no file", "", "", goal, runtime.Block, "no file lists the success criteria"},
		{"no recorded goal", "contribution.md", "- [x] anything\n", nil, runtime.Block, "no recorded goal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := hooktest.NewContext(t, &runtime.Node{ID: "verification"}, nil)
			hc.State = runtime.NewState("issue-1")
			if tt.goal != nil {
				hc.State.Decisions["goal-definition"] = tt.goal
			}
			if tt.file != "" {
				hooktest.WriteArtifact(t, hc, tt.file, tt.text)
			}
			r, err := CheckSuccessCriteria(hc)
			require.NoError(t, err)
			assert.Equal(t, tt.status, r.Status)
			if tt.want != "" {
				assert.Contains(t, r.Render(), tt.want)
			}
		})
	}
}
