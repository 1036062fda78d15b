package dependencies

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

func blockedBy2() *runtime.Dependencies {
	return &runtime.Dependencies{Verdict: runtime.DepHeld, Hold: true, Status: "blocked by #2 (at design)",
		Blockers: []runtime.DependencyBlocker{{Ref: "github:o/r#2", At: "at design"}}}
}

func TestAwaitBlockers(t *testing.T) {
	off := false
	tests := []struct {
		name     string
		deps     *runtime.Dependencies
		selected bool
		disabled bool
		want     runtime.Status
		message  string
	}{
		{name: "never read: nothing to hold on", want: runtime.Pass},
		{name: "ready", deps: &runtime.Dependencies{Verdict: runtime.DepReady, Status: "ready"}, want: runtime.Pass},
		{name: "an unfinished blocker holds", deps: blockedBy2(), want: runtime.Wait, message: "blocked by #2 (at design)"},
		{name: "a cycle holds", deps: &runtime.Dependencies{Verdict: runtime.DepCycle, Hold: true, Status: "in a dependency cycle with #3; not armed until the cycle is broken"},
			want: runtime.Wait, message: "in a dependency cycle with #3; not armed until the cycle is broken"},
		{name: "a graph that could not be read holds", deps: &runtime.Dependencies{Verdict: runtime.DepUnread, Hold: true, Status: "dependencies could not be read (github: 502); held until they are"},
			want: runtime.Wait, message: "dependencies could not be read (github: 502); held until they are"},
		{name: "selected: reported, not enforced", deps: blockedBy2(), selected: true, want: runtime.Pass,
			message: "blocked by #2 (at design) (reported, not enforced: the phases were already selected)"},
		{name: "dag.enabled false", deps: blockedBy2(), disabled: true, want: runtime.Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := hooktest.NewContext(t, &runtime.Node{ID: "phase-selection"}, nil)
			hc.Config = config.Default()
			if tt.disabled {
				hc.Config.DAG.Enabled = &off
			}
			hc.State = runtime.NewState("issue-1")
			hc.State.Dependencies = tt.deps
			if tt.selected {
				hc.State.Decisions["phase-selection"] = &runtime.Decision{Node: "phase-selection", Kind: runtime.KindSelection, By: "@alice"}
			}
			r, err := AwaitBlockers(hc)
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.Status)
			if tt.message == "" {
				assert.Empty(t, r.Messages)
			} else {
				assert.Equal(t, []string{tt.message}, hooktest.Texts(r))
			}
		})
	}
}

// A record edited by hand can only add a hold: each part that names a
// reason to wait holds on its own, whatever the rest of it says.
func TestAnEditedRecordCanOnlyAddAHold(t *testing.T) {
	for _, d := range []*runtime.Dependencies{
		{Verdict: runtime.DepReady, Hold: true},
		{Verdict: runtime.DepReady, Blockers: []runtime.DependencyBlocker{{Ref: "github:o/r#9", At: "not started"}}},
		{Verdict: runtime.DepCycle},
		{Verdict: runtime.DepUnknown},
		{Verdict: "", Hold: true},
	} {
		hc := hooktest.NewContext(t, &runtime.Node{ID: "phase-selection"}, nil)
		hc.State = runtime.NewState("issue-1")
		hc.State.Dependencies = d
		r, err := AwaitBlockers(hc)
		require.NoError(t, err)
		assert.Equal(t, runtime.Wait, r.Status, "%+v", d)
	}
}

func TestAwaitBlockersPrintsARecordedLineSafely(t *testing.T) {
	hc := hooktest.NewContext(t, &runtime.Node{ID: "phase-selection"}, nil)
	hc.State = runtime.NewState("issue-1")
	hc.State.Dependencies = &runtime.Dependencies{Verdict: runtime.DepHeld, Status: "blocked by #2\x1b[2J\nOK: approved\u202e" + strings.Repeat("x", 1000)}
	r, err := AwaitBlockers(hc)
	require.NoError(t, err)
	require.Len(t, r.Messages, 1)
	msg := r.Messages[0].Text
	assert.NotContains(t, msg, "\x1b")
	assert.NotContains(t, msg, "\n")
	assert.NotContains(t, msg, "\u202e")
	assert.LessOrEqual(t, len([]rune(msg)), maxMessage)
}
