package service

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
)

// armAtRequirements arms issue-1 and answers phase-selection, so it stands
// at requirements-definition, an agent's node.
func armAtRequirements(t *testing.T, r *pollRig) {
	t.Helper()
	r.fake.AddComment(r.ref, "alice", "OWNER", "the-loop start")
	r.cycle()
	r.fake.AddComment(r.ref, "alice", "OWNER", "- [ ] brainstorming\n- [x] requirements-definition\n\nthe-loop execute")
	r.cycle()
	require.Equal(t, "requirements-definition", r.state().CurrentNode)
}

// A stop on the ticket holds the item everywhere, not only in the poller: a
// claim, an advance, a critic run and the launch check all refuse it with
// the same message, naming who stopped it and how to lift it; a resume
// lifts it.
func TestAStoppedItemRefusesEveryActUntilResumed(t *testing.T) {
	r := newPollRig(t, "alice")
	armAtRequirements(t, r)
	ctx := context.Background()
	item := ItemRequest{Repo: r.repo, WorkItem: "issue-1"}

	r.fake.AddComment(r.ref, "alice", "OWNER", "the-loop stop")
	assert.Equal(t, "paused", r.cycle().Action)
	st := r.state()
	require.NotNil(t, st.Control)
	assert.Equal(t, runtime.ControlStop, st.Control.Command)
	assert.Equal(t, "alice", st.Control.By)
	assert.NotEmpty(t, st.Control.Comment, "the hold names the comment that gave it")
	want := runtime.Held(r.svc.cfg, st).Error()
	assert.Contains(t, want, "issue-1 is stopped: @alice stopped it on the ticket")
	assert.Contains(t, want, "commenting `the-loop start` on the ticket")

	claim, err := r.svc.Complete(ctx, CompleteRequest{ItemRequest: item, Actor: "mcp"})
	require.NoError(t, err)
	assert.Equal(t, runtime.StatusRefused, claim.Status)
	assert.Equal(t, []string{want}, claim.Messages)

	adv, err := r.svc.Advance(ctx, item)
	require.NoError(t, err)
	assert.Equal(t, runtime.StatusRefused, adv.Status)
	assert.Equal(t, []string{want}, adv.Messages)

	err = r.svc.Held(ctx, item)
	assert.True(t, errors.Is(err, runtime.ErrHeld))
	assert.Equal(t, want, err.Error(), "whatever launches a session asks the same rule")

	gs, err := r.svc.Status(ctx, item)
	require.NoError(t, err)
	assert.Contains(t, gs.GraphContext, "STOPPED: "+want)
	assert.Equal(t, st.Control, gs.Control)

	assert.Equal(t, "paused", r.cycle().Action, "a held item stays held cycle after cycle")
	assert.Equal(t, "requirements-definition", r.state().CurrentNode)

	r.fake.AddComment(r.ref, "alice", "OWNER", "the-loop resume")
	r.cycle()
	assert.Nil(t, r.state().Control, "an authorized resume lifts the hold")
	require.NoError(t, r.svc.Held(ctx, item))
	claim, err = r.svc.Complete(ctx, CompleteRequest{ItemRequest: item, Actor: "mcp"})
	require.NoError(t, err)
	assert.Equal(t, "block", claim.Status, "the claim is evaluated again: requirements.md is missing")
}

func TestAPauseFromAnUnauthorizedUserHoldsNothing(t *testing.T) {
	r := newPollRig(t, "alice")
	armAtRequirements(t, r)
	r.fake.AddComment(r.ref, "mallory", "NONE", "the-loop pause")
	r.cycle()
	assert.Nil(t, r.state().Control)
	require.NoError(t, r.svc.Held(context.Background(), ItemRequest{Repo: r.repo, WorkItem: "issue-1"}))
}
