package service

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
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

// launchRig arms issue-1 at requirements-definition with one harness
// configured, so the launch rule alone decides whether a session is wanted.
func launchRig(t *testing.T) (*pollRig, *session) {
	t.Helper()
	r := newPollRig(t, "alice")
	r.svc.cfg.Harnesses = map[string]harness.Config{"agent": {Adapter: "command"}}
	armAtRequirements(t, r)
	return r, r.open()
}

func (r *pollRig) open() *session {
	r.t.Helper()
	sess, err := r.svc.open(context.Background(), r.repo, "issue-1", "")
	require.NoError(r.t, err)
	return sess
}

// The launch rule is one rule for the poller and `the-loop run`: the
// ticket's stop holds a launch with the hold's own message.
func TestTheLaunchRuleRefusesAStoppedItemWithTheHoldsMessage(t *testing.T) {
	r, sess := launchRig(t)
	w, waits := r.svc.sessionWant(context.Background(), sess, "issue-1", r.repo, nil, nil)
	require.NotNil(t, w, "an item on an agent node, not held, wants a session: %s", waits)
	assert.Equal(t, "requirements-definition", w.Node)

	r.fake.AddComment(r.ref, "alice", "OWNER", "the-loop stop")
	act := r.cycle()
	assert.Equal(t, "paused", act.Action)
	sess = r.open()
	want := runtime.Held(r.svc.cfg, sess.state).Error()
	assert.Equal(t, want, act.Detail, "the cycle report says who held it and how to lift it")
	w, waits = r.svc.sessionWant(context.Background(), sess, "issue-1", r.repo, nil, nil)
	assert.Nil(t, w, "a stopped item gets no session")
	assert.Equal(t, "a human: "+want, waits)
}

// An operator's stop of a session is a takeover: the same launch rule
// holds launches on that node, naming who stopped which session and how the
// hold lifts; claims go on (the human claims the node), and once the item
// moves on the takeover holds nothing.
func TestATakeoverHoldsLaunchesOnItsNodeOnly(t *testing.T) {
	r, sess := launchRig(t)
	ctx := context.Background()
	st, err := r.svc.writableStore(ctx)
	require.NoError(t, err)
	entered := visitStart(sess.state, "requirements-definition")
	require.False(t, entered.IsZero())
	require.NoError(t, st.RequestSessionStop(ctx, store.SessionStop{Session: "s-8", Repo: sess.repo.Root, WorkItem: "issue-1",
		Node: "requirements-definition", Reason: "an earlier visit", RequestedAt: entered.Add(-time.Hour)}))
	taken, err := r.svc.settleStops(ctx, nil)
	require.NoError(t, err)
	assert.Nil(t, r.svc.launchHold(sess, "issue-1", taken), "a stop requested in an earlier visit of the node holds nothing now")

	require.NoError(t, st.RequestSessionStop(ctx, store.SessionStop{Session: "s-9", Repo: sess.repo.Root, WorkItem: "issue-1",
		Node: "requirements-definition", Reason: "taking it over", By: "carol", RequestedAt: entered}))
	taken, err = r.svc.settleStops(ctx, nil)
	require.NoError(t, err)
	want := "issue-1 is taken over on requirements-definition: operator carol stopped session s-9 (taking it over, " + entered.UTC().Format(time.RFC3339) + "). " +
		"While it is held there the loop launches no session for it; a human works requirements-definition and claims it " +
		"(`the-loop graph complete issue-1`), and the hold lifts once the item moves on"
	w, waits := r.svc.sessionWant(ctx, sess, "issue-1", r.repo, nil, taken)
	assert.Nil(t, w)
	assert.Equal(t, "a human: "+want, waits)
	h := r.svc.launchHold(sess, "issue-1", taken)
	require.NotNil(t, h)
	assert.True(t, errors.Is(h, runtime.ErrHeld))
	assert.True(t, h.LaunchesOnly())

	gs, err := r.svc.Status(ctx, ItemRequest{Repo: r.repo, WorkItem: "issue-1"})
	require.NoError(t, err)
	assert.Contains(t, gs.GraphContext, "TAKEN OVER: "+want)
	require.NotNil(t, gs.Control)
	assert.Equal(t, runtime.ControlTakeover, gs.Control.Command)
	assert.Equal(t, "s-9", gs.Control.Session)
	require.NoError(t, r.svc.Held(ctx, ItemRequest{Repo: r.repo, WorkItem: "issue-1"}), "a takeover holds launches, not the other acts")

	writeFile(t, filepath.Join(r.repo, "docs", "specs", "issue-1", "requirements.md"), requirementsByHand)
	claim, err := r.svc.Complete(ctx, CompleteRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: "issue-1"}, Actor: "carol"})
	require.NoError(t, err)
	assert.True(t, claim.Moved, "the human's claim is what a takeover waits for: %v", claim.Messages)
	sess = r.open()
	assert.Nil(t, r.svc.launchHold(sess, "issue-1", taken), "once the item moved on, the takeover holds nothing")
}

const requirementsByHand = "# Requirements\n\n## Requirements\n\n- R1: written by hand.\n\n## Security considerations\n\nNo new trust boundary: the change is local.\n"

// A takeover holds the visit of its node during which it was requested;
// a visit that began after it (a gate sent the item back, a force) is not
// held, and a visit whose start is unknown is.
func TestATakeoverHoldsTheVisitItWasRequestedIn(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	hold := runtime.TakenOver("issue-1", runtime.Control{Node: "design", Session: "s-1"})
	taken := takeovers{{repo: "r", item: "issue-1", node: "design"}: {hold: hold, at: at}}
	tests := []struct {
		name    string
		node    string
		entered time.Time
		held    bool
	}{
		{"the visit it was requested in", "design", at.Add(-time.Minute), true},
		{"entered in the same second", "design", at, true},
		{"a later visit", "design", at.Add(time.Second), false},
		{"an unknown visit start", "design", time.Time{}, true},
		{"another node", "requirements-definition", at.Add(-time.Minute), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := taken.on("r", "issue-1", tt.node, tt.entered)
			assert.Equal(t, tt.held, got != nil)
		})
	}
}
