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

// A takeover names the operator, the session and how the hold lifts; it
// holds launches only, so it is never read from the state as a ticket hold.
func TestATakeoverSaysWhoStoppedWhichSession(t *testing.T) {
	h := TakenOver("issue-7", Control{By: "carol", At: "2026-03-01T10:00:00Z", Node: "design", Session: "s-1", Reason: "by hand"})
	assert.True(t, errors.Is(h, ErrHeld))
	assert.True(t, h.LaunchesOnly())
	assert.Equal(t, "taken over", h.State())
	assert.Equal(t, "issue-7 is taken over on design: operator carol stopped session s-1 (by hand, 2026-03-01T10:00:00Z). "+
		"While it is held there the loop launches no session for it; a human works design and claims it "+
		"(`the-loop graph complete issue-7`), and the hold lifts once the item moves on", h.Error())
	assert.Contains(t, TakenOver("issue-7", Control{Node: "design", Session: "s-1"}).Error(), "design: an operator stopped session s-1. ")
}

// A control record the loop never writes (an edited portable record) holds
// the item as a stop does: the rule fails closed.
func TestAnUnknownControlHoldsAsAStop(t *testing.T) {
	for _, cmd := range []string{ControlTakeover, "frobnicate", ""} {
		st := NewState("issue-7")
		st.Control = &Control{Command: cmd, By: "mallory"}
		h := Held(nil, st)
		require.NotNil(t, h, cmd)
		assert.Equal(t, "stopped", h.State(), cmd)
		assert.False(t, h.LaunchesOnly(), "a record in the state holds every act: %q", cmd)
		assert.Contains(t, h.Error(), "commenting `the-loop start` on the ticket", cmd)
	}
}
