package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
)

// An advance that finds nothing changed since the last blocked evaluation
// — the same artifacts, decisions and comments, the same findings —
// evaluates and reports, and spends no attempt: a claim followed by an
// advance on a missing artifact no longer escalates the item.
func TestAdvanceSpendsNoAttemptWhenNothingChanged(t *testing.T) {
	h := newRig(t, nil)
	h.advance(h.say("select"))
	ctx := context.Background()

	env, err := h.rt.Complete(ctx, "issue-1", "", "agent")
	require.NoError(t, err)
	require.Equal(t, "block", env.Status)
	require.Equal(t, 1, h.state().Nodes["write"].Attempts)

	for range 3 {
		rep := h.advance(nil)
		assert.Equal(t, "block", rep.Status, "it still evaluates and reports the block")
		assert.Equal(t, 1, rep.Attempts)
		assert.Contains(t, rep.Messages, Unchanged+": no attempt spent (1 of 3 so far)")
		assert.Contains(t, rep.Messages[0], "required artifact is missing", "the findings are reported")
	}
	st := h.state()
	assert.Equal(t, "write", st.CurrentNode, "never escalated")
	assert.Nil(t, st.Escalation)
	assert.Equal(t, 1, st.Nodes["write"].Attempts)
}

// What counts as a change: any artifact byte, a decision, a comment the
// gate sees. Each makes the next blocked advance an attempt again.
func TestAnyChangedInputMakesTheAdvanceAnAttempt(t *testing.T) {
	changes := map[string]func(h *rig) *Event{
		"an artifact": func(h *rig) *Event { h.write("notes.md", "new"); return nil },
		"a decision": func(h *rig) *Event {
			h.mutate(func(st *State) { st.OptIns["build"] = &Decision{Node: "build"} })
			return nil
		},
		"a comment seen":     func(h *rig) *Event { return h.say("still thinking") },
		"an edited artifact": func(h *rig) *Event { h.write("draft.md", "two"); return nil },
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			h := newRig(t, nil)
			h.advance(h.say("select"))
			h.write("draft.md", "one")
			require.Equal(t, 1, h.advance(nil).Attempts)
			ev := change(h)
			before := h.state().Nodes["write"].Attempts
			rep := h.advance(ev)
			assert.NotContains(t, rep.Messages, Unchanged+": no attempt spent (1 of 3 so far)")
			assert.Equal(t, StatusEscalated, rep.Status, "a changed input with the same finding is the same failure twice (attempts before: %d)", before)
		})
	}
}

// An agent's claim always counts: the same failing claim twice escalates.
func TestARepeatedClaimStillEscalates(t *testing.T) {
	h := newRig(t, nil)
	h.advance(h.say("select"))
	ctx := context.Background()
	_, err := h.rt.Complete(ctx, "issue-1", "", "agent")
	require.NoError(t, err)
	env, err := h.rt.Complete(ctx, "issue-1", "", "agent")
	require.NoError(t, err)
	assert.Equal(t, StatusEscalated, env.Status)
}

func TestInputsFingerprintIgnoresTheStateRecordAndTempFiles(t *testing.T) {
	h := newRig(t, nil)
	st := NewState("issue-1")
	ev := &Event{Comments: []integrations.Comment{{ID: 1, Author: "a", Body: "b", CreatedAt: time.Unix(1, 0)}}}
	a := h.rt.inputsOf("issue-1", st, ev)
	require.NotEmpty(t, a)
	h.write(StateFile, "{}")
	h.write("."+StateFile+".tmp-ABC", "x")
	assert.Equal(t, a, h.rt.inputsOf("issue-1", st, ev))
	h.write("requirements.md", "x")
	assert.NotEqual(t, a, h.rt.inputsOf("issue-1", st, ev))
}

// mutate changes the stored state of issue-1.
func (h *rig) mutate(fn func(*State)) {
	st := h.state()
	fn(st)
	h.mem.Put("issue-1", st)
}

// Withdrawing a skip: only for nodes the walk has not reached, only a
// declared one, always with a reason.
func TestWithdrawSkips(t *testing.T) {
	h := newRig(t, []byte("k"))
	ctx := context.Background()
	_, err := h.rt.DeclareSkips(ctx, "issue-1", []string{"build", "approve"}, "docs only", "@ops")
	require.NoError(t, err)
	_, err = h.rt.WithdrawSkips(ctx, "issue-1", []string{"build"}, " ", "@ops")
	require.ErrorIs(t, err, ErrReasonRequired)

	res, err := h.rt.WithdrawSkips(ctx, "issue-1", []string{"build", "write"}, "needs code after all", "@ops")
	require.NoError(t, err)
	assert.Equal(t, []string{"build"}, res.Withdrawn)
	require.Len(t, res.Rejected, 1)
	assert.Equal(t, "write", res.Rejected[0].Token)
	assert.Equal(t, "no skip is declared for it", res.Rejected[0].Why)
	st := h.state()
	assert.NotContains(t, st.Skips, "build")
	assert.Contains(t, st.Skips, "approve", "the other declaration stands")

	h.advance(h.say("select"))
	h.write("spec.md", "x")
	h.advance(nil) // write passes; approve is skipped by declaration; build is walked
	assert.Equal(t, "build", h.state().CurrentNode, "the withdrawn skip is walked")
	res, err = h.rt.WithdrawSkips(ctx, "issue-1", []string{"approve"}, "too late", "@ops")
	require.NoError(t, err)
	require.Len(t, res.Rejected, 1)
	assert.Contains(t, res.Rejected[0].Why, "the walk already passed it")
	assert.Contains(t, h.state().Skips, "approve")
}
