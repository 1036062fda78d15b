package runtime

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
)

// A held item refuses a claim and an advance alike, with one message naming
// who held it and how to lift the hold; lifting it restores both.
func TestAHeldItemRefusesClaimsAndAdvances(t *testing.T) {
	for _, c := range []Control{
		{Command: ControlStop, By: "alice", At: "2026-03-01T10:00:00Z", Comment: "https://example.test/c/9"},
		{Command: ControlPause, By: "@bob"},
	} {
		t.Run(c.Command, func(t *testing.T) {
			h := newRig(t, []byte("k"))
			ctx := context.Background()
			h.advance(h.say("select"))
			require.Equal(t, "write", h.state().CurrentNode)

			changed, err := h.rt.SetControl(ctx, "issue-1", &c, "")
			require.NoError(t, err)
			assert.True(t, changed)
			changed, err = h.rt.SetControl(ctx, "issue-1", &c, "")
			require.NoError(t, err)
			assert.False(t, changed, "the same hold is recorded once")

			h.write("spec.md", "# Spec\n")
			env, err := h.rt.Complete(ctx, "issue-1", "", "mcp")
			require.NoError(t, err)
			assert.Equal(t, StatusRefused, env.Status)
			assert.Equal(t, "held", env.Reason)
			assert.False(t, env.Moved)
			require.Len(t, env.Messages, 1)
			want := Held(nil, h.state()).Error()
			assert.Equal(t, want, env.Messages[0])
			assert.Contains(t, want, "@"+trimAt(c.By))
			assert.Equal(t, "write", h.state().CurrentNode, "a refused claim evaluates nothing")
			assert.Empty(t, h.state().Completions, "a refused claim is not recorded")

			rep := h.advance(nil)
			assert.Equal(t, StatusRefused, rep.Status)
			assert.Equal(t, []string{want}, rep.Messages)
			assert.Equal(t, "write", h.state().CurrentNode)

			changed, err = h.rt.SetControl(ctx, "issue-1", nil, "carol")
			require.NoError(t, err)
			assert.True(t, changed)
			env, err = h.rt.Complete(ctx, "issue-1", "", "mcp")
			require.NoError(t, err)
			assert.True(t, env.Moved, "%v", env.Messages)
		})
	}
}

func trimAt(s string) string {
	if len(s) > 0 && s[0] == '@' {
		return s[1:]
	}
	return s
}

func TestTheHoldMessageNamesWhoAndHowToLift(t *testing.T) {
	st := NewState("issue-7")
	assert.Nil(t, Held(nil, st), "an item without a control record is not held")

	st.Control = &Control{Command: ControlPause, By: "alice", At: "2026-03-01T10:00:00Z", Comment: "https://example.test/c/1"}
	h := Held(nil, st)
	require.NotNil(t, h)
	assert.True(t, errors.Is(h, ErrHeld))
	assert.Equal(t, "issue-7 is paused: @alice paused it on the ticket (2026-03-01T10:00:00Z, https://example.test/c/1). "+
		"While it is held the loop refuses claims, advances, gate evaluations, critic runs and session launches for it; "+
		"an authorized user lifts it by commenting `the-loop resume` on the ticket", h.Error())

	st.Control = &Control{Command: ControlStop, By: "alice"}
	assert.Contains(t, Held(nil, st).Error(), "issue-7 is stopped: @alice stopped it on the ticket. ")
	assert.Contains(t, Held(nil, st).Error(), "by commenting `the-loop start` on the ticket")

	cfg := config.Default()
	cfg.Routing.Control.Keywords = map[string]string{"start": ""}
	assert.Contains(t, Held(cfg, st).Error(), "the start keyword is disabled, so an operator must set routing.control.keywords.start")
}
