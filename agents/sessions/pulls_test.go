package sessions

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/store"
)

// itemWant is a want for item's own loop, the item living in its tree (as
// the poller's items do).
func (r *rig) itemWant(item, node, prompt string) Want {
	r.t.Helper()
	w := r.want(item, node, prompt, 1)
	w.Repo = w.Workdir
	return w
}

// prWant is a want for pull request repo#n's loop of item on node: with
// own, in a tree of its own; without, in the item's tree.
func (r *rig) prWant(item string, repo string, n int, node, prompt string, own bool) Want {
	r.t.Helper()
	w := r.itemWant(item, node, prompt)
	w.PR, w.PRRepo, w.Own = n, repo, own
	if own {
		name := item + ".pr"
		tree, ok := r.trees[name]
		if !ok {
			var err error
			tree, err = r.ws.Add(context.Background(), name, "the-loop/"+name)
			require.NoError(r.t, err)
			r.trees[name] = tree
		}
		w.Workdir = tree.Dir
	}
	return w
}

func TestAPullRequestOfItsOwnGetsASessionBesideTheItems(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(Config{}, nil)
	item := r.itemWant("issue-9", "implementation", "fake: hang-runs=9\n")
	infra := r.prWant("issue-9", "octo/infra", 7, "implementation", "fake: hang-runs=9\n", true)
	rep, err := s.Cycle(ctx, []Want{item, infra})
	require.NoError(t, err)
	require.Len(t, rep.Started, 2, "one session per key: the item's, and the pull request's own")
	byPR := map[int]Status{}
	for _, st := range rep.Started {
		byPR[st.PR] = st
	}
	assert.Equal(t, "octo/infra", byPR[7].PRRepo)
	assert.Empty(t, byPR[0].PRRepo)

	rec, found, err := r.store.GetSession(ctx, byPR[7].Session)
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, 7, rec.PR)
	assert.Equal(t, "octo/infra", rec.PRRepo)
	evs, err := r.store.Events(ctx, item.Repo, "issue-9")
	require.NoError(t, err)
	var pulls []any
	for _, e := range evs {
		var data map[string]any
		require.NoError(t, json.Unmarshal(e.Data, &data))
		pulls = append(pulls, data["pullRequest"])
	}
	assert.ElementsMatch(t, []any{nil, "octo/infra#7"}, pulls, "the start of the pull request's session names it")

	rep, err = s.Cycle(ctx, []Want{item, infra})
	require.NoError(t, err)
	assert.Empty(t, rep.Started, "both keys have their session: nothing more is launched")
	assert.Len(t, rep.Live, 2)

	id, working := s.Retire(item.Repo, "issue-9", "octo/infra", 7, "implementation")
	assert.Empty(t, id)
	assert.True(t, working, "the pull request's session works its node")
	id, working = s.Retire(item.Repo, "issue-9", "octo/infra", 7, "verification")
	assert.Equal(t, byPR[7].Session, id, "a claim on the pull request's loop relieves its session, not the item's")
	assert.False(t, working)
}

func TestTheItemsSessionFollowsItAcrossPullRequestLoops(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(Config{}, nil)
	origin := r.prWant("issue-9", "octo/widgets", 41, "implementation", "fake: hang-runs=9\n", false)
	rep, err := s.Cycle(ctx, []Want{origin})
	require.NoError(t, err)
	require.Len(t, rep.Started, 1)
	assert.Equal(t, 41, rep.Started[0].PR, "the item's session works the pull request's loop")

	infra := r.prWant("issue-9", "octo/infra", 7, "implementation", "fake: hang-runs=9\n", false)
	rep, err = s.Cycle(ctx, []Want{infra})
	require.NoError(t, err)
	assert.Empty(t, rep.Started, "one session per item: the next pull request's node waits for the drain")
	r.clock.Advance(time.Hour)
	rep = cycleUntil(t, s, fixed(infra), func(rep Report) bool { return len(rep.Started) > 0 })
	assert.Equal(t, "octo/infra", rep.Started[0].PRRepo, "the same node name of another pull request's loop is other work")
	old, _, err := r.store.GetSession(ctx, "s-001")
	require.NoError(t, err)
	assert.Equal(t, store.SessionStopped, old.State)
	assert.Equal(t, "the item moved from octo/widgets#41 implementation to octo/infra#7 implementation", old.Reason)
}

func TestOneBudgetCoversTheItemAndItsPullRequests(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(Config{Budget: Budget{Tokens: 5000}}, nil)
	item := r.itemWant("issue-9", "implementation", "fake: hang-runs=9 tokens=3000\n")
	infra := r.prWant("issue-9", "octo/infra", 7, "implementation", "fake: hang-runs=9 tokens=3000\n", true)
	rep, err := s.Cycle(ctx, []Want{item, infra})
	require.NoError(t, err)
	require.Len(t, rep.Started, 2)
	r.ready("issue-9", 1)
	r.ready("issue-9.pr-7", 1)

	rep, err = s.Cycle(ctx, []Want{item, infra})
	require.NoError(t, err)
	require.NotEmpty(t, rep.Escalations, "3000 tokens each are within the budget alone, over it together")
	e := rep.Escalations[0]
	assert.Equal(t, item.Repo+" issue-9 is over its session budget: 6000 tokens of 5000 allowed", e.Reason)
	assert.Equal(t, int64(6000), e.Spent.Tokens)
}
