package service

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store/storetest"
)

// cycleCounts is what one poll cycle read: the queries reading items'
// states and the repository configs opened.
type cycleCounts struct{ stateReads, repoOpens int64 }

func countCycle(t testing.TB, p *Poller) (cycleCounts, CycleReport) {
	t.Helper()
	st, err := p.Svc.writableStore(context.Background())
	require.NoError(t, err)
	reads, opens := st.StateReads(), p.Svc.repoOpens.Load()
	rep := p.RunOnce(context.Background())
	for _, s := range rep.Sources {
		require.Empty(t, s.Error)
	}
	return cycleCounts{st.StateReads() - reads, p.Svc.repoOpens.Load() - opens}, rep
}

// An idle cycle over many issues, some of them armed and waiting at their
// human gate, opens the repository's config once and reads every item's
// state in one query, whatever the number of items; a cycle outside the
// poller (a command) still reads its item on its own.
func TestAnIdleCycleReadsTheConfigOnceAndTheStatesInOneQuery(t *testing.T) {
	for _, n := range []int{5, 40} {
		t.Run(fmt.Sprintf("issues=%d", n), func(t *testing.T) {
			r := newQuotaRig(t, n)
			p := r.process(t)
			for i := 1; i <= 3; i++ {
				r.fake.AddComment(integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: i}, "alice", "OWNER", "the-loop start")
			}
			_, rep := countCycle(t, p) // arms three, takes every lease
			started := 0
			for _, it := range rep.Sources[0].Items {
				if it.Action == "started" {
					started++
				}
			}
			require.Equal(t, 3, started, "%+v", rep.Sources[0].Items)
			countCycle(t, p) // the armed items' first reading at their gate
			for range 2 {
				got, rep := countCycle(t, p)
				assert.Equal(t, cycleCounts{stateReads: 1, repoOpens: 1}, got)
				gates := 0
				for _, it := range rep.Sources[0].Items {
					require.NotEqual(t, "error", it.Action, it.Detail)
					if it.Node != "" {
						gates++
					}
				}
				assert.Equal(t, 3, gates, "the armed items are read at their node: %+v", rep.Sources[0].Items)
			}
		})
	}
}

// An item whose lease this poller takes during a cycle (here: taken over
// from a poller that wrote the item after this cycle had read the states,
// then died) is read from the store, not from the cycle's read: the new
// holder goes on from what the old one wrote.
func TestAnItemTakenOverDuringACycleIsReadAfresh(t *testing.T) {
	ctx := context.Background()
	db := storetest.TempPostgres(t)
	r := newPollRig(t, "alice")
	r.fake.SeedIssue("second", nil, true)
	r.fake.SeedIssue("third", nil, true)
	b := r.sharedPoller(t, db, "poller-b")
	bst, err := b.Svc.writableStore(ctx)
	require.NoError(t, err)
	ref1 := "github:octo/widgets#1"
	lease, ok, err := bst.TakeLease(ctx, ref1, b.Instance(), leaseTTL)
	require.NoError(t, err)
	require.True(t, ok)

	var hook func()
	a := r.sharedPoller(t, db, "poller-a")
	prov, err := github.New(github.Options{BaseURL: r.fake.URL(), Token: r.fake.Token()})
	require.NoError(t, err)
	a.Svc.deps.Providers = func(string) (integrations.Provider, error) {
		return &listHook{Provider: prov, on: func(ref integrations.Ref) {
			if ref.Number == 2 && hook != nil {
				hook()
			}
		}}, nil
	}
	act := issueOne(t, a.RunOnce(ctx))
	require.Equal(t, ActionElsewhere, act.Action, act.Detail)

	// Cycle 2 reads the states at its first item (#3). While it works #2,
	// poller-b arms issue-1 under its lease and dies; its lease runs out
	// before poller-a reaches #1.
	hook = func() {
		hook = nil
		bst.Fence(r.repo, "issue-1", lease)
		res, err := b.Svc.Start(ctx, StartRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: "issue-1"}, Ref: ref1})
		require.NoError(t, err)
		require.NotEmpty(t, res.Node)
		time.Sleep(leaseTTL + 300*time.Millisecond)
	}
	r.fake.AddComment(integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 2}, "bob", "NONE", "news")
	act = issueOne(t, a.RunOnce(ctx))
	require.Nil(t, hook, "the hook ran")
	sess, err := a.Svc.open(ctx, r.repo, "issue-1", "")
	require.NoError(t, err)
	require.NotEmpty(t, sess.state.CurrentNode)
	assert.NotEqual(t, "none", act.Action, "poller-a saw what poller-b wrote: %+v", act)
	assert.Equal(t, sess.state.CurrentNode, act.Node, "%+v", act)
}

// listHook is a GitHub provider that calls on before listing an issue's
// comments.
type listHook struct {
	*github.Provider
	on func(integrations.Ref)
}

func (h *listHook) ListComments(ctx context.Context, ref integrations.Ref) ([]integrations.Comment, error) {
	h.on(ref)
	return h.Provider.ListComments(ctx, ref)
}

// A state served from the cycle's read is checked when the item is
// written: when another process wrote it since (a command, a session's
// claim), the write is refused and nothing is saved; a state that did not
// move is written as usual, and so is a state read outside a cycle.
func TestAWriteOverAStateTheCycleReadStaleIsRefused(t *testing.T) {
	ctx := context.Background()
	r := newPollRig(t, "alice")
	other := testService(t, r.svc.cfg, Deps{Store: r.svc.deps.Store, Signer: runtime.NewSigner([]byte("test-key"))})
	_, err := other.Start(ctx, StartRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: "issue-1"}})
	require.NoError(t, err)

	touch := func(sess *session) error {
		return sess.rt.Persist.Update(ctx, "issue-1", func(st *runtime.State) ([]runtime.EventRecord, error) {
			return []runtime.EventRecord{{Name: "test.touched"}}, nil
		})
	}
	cycled := func() (context.Context, *cycleCache) {
		cctx, cycle := withCycleCache(ctx)
		cycle.trust(r.repo, "issue-1")
		return cctx, cycle
	}

	cctx, cycle := cycled()
	sess, err := r.svc.open(cctx, r.repo, "issue-1", "")
	require.NoError(t, err)
	require.NotNil(t, cycleReadOf(sess.rt.Persist, "issue-1"), "the state came from the cycle's read")
	require.NoError(t, touch(sess), "nothing moved: the write goes through")
	cycle.end()

	cctx, cycle = cycled()
	sess, err = r.svc.open(cctx, r.repo, "issue-1", "")
	require.NoError(t, err)
	before := sess.state.CurrentNode
	_, err = other.Force(ctx, ForceRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: "issue-1"}, To: "brainstorming", Reason: "a human moved it"})
	require.NoError(t, err)
	err = touch(sess)
	require.ErrorIs(t, err, errStaleCycleRead)
	fresh, err := r.svc.open(cctx, r.repo, "issue-1", "")
	require.NoError(t, err)
	assert.Equal(t, "brainstorming", fresh.state.CurrentNode, "read again from the store after the refusal (was %s)", before)
	assert.Nil(t, cycleReadOf(fresh.rt.Persist, "issue-1"))
	cycle.end()

	// Outside a cycle (and after it ended) nothing is served from a read.
	sess, err = r.svc.open(cctx, r.repo, "issue-1", "")
	require.NoError(t, err)
	assert.Nil(t, cycleReadOf(sess.rt.Persist, "issue-1"))
	require.NoError(t, touch(sess))
	assert.False(t, errors.Is(touch(sess), errStaleCycleRead))
}

// A state that moves between the cycle's read and the poller's decision
// (here a human forces the item from its gate back to an agent's node
// while the poller lists the item's comments) is not decided on: the
// gate's write is refused, the item is read again and left to its agent —
// the poller never evaluates an agent's node.
func TestAGateIsNotDecidedOnAStateThatMovedDuringTheCycle(t *testing.T) {
	ctx := context.Background()
	r := newPollRig(t, "alice")
	var hook func()
	prov, err := github.New(github.Options{BaseURL: r.fake.URL(), Token: r.fake.Token()})
	require.NoError(t, err)
	r.svc.deps.Providers = func(string) (integrations.Provider, error) {
		return &listHook{Provider: prov, on: func(ref integrations.Ref) {
			if h := hook; h != nil {
				hook = nil
				h()
			}
		}}, nil
	}
	r.fake.AddComment(r.ref, "alice", "OWNER", "the-loop start")
	require.Equal(t, "started", r.cycle().Action)
	act := r.cycle()
	require.Equal(t, "gate", act.Action, act.Detail)
	require.Equal(t, "phase-selection", act.Node)

	other := testService(t, r.svc.cfg, Deps{Store: r.svc.deps.Store, Signer: runtime.NewSigner([]byte("test-key"))})
	hook = func() {
		_, err := other.Force(ctx, ForceRequest{ItemRequest: ItemRequest{Repo: r.repo, WorkItem: "issue-1"}, To: "brainstorming", Reason: "a human moved it"})
		require.NoError(t, err)
	}
	st, err := r.svc.writableStore(ctx)
	require.NoError(t, err)
	evs, err := st.Events(ctx, r.repo, "issue-1")
	require.NoError(t, err)
	seen := len(evs)
	r.fake.AddComment(r.ref, "bob", "NONE", "any news?")
	act = r.cycle()
	require.Nil(t, hook, "the hook ran")
	assert.Equal(t, "idle", act.Action, "%+v", act)
	assert.Equal(t, "brainstorming", act.Node)
	evs, err = st.Events(ctx, r.repo, "issue-1")
	require.NoError(t, err)
	for _, e := range evs[seen:] {
		if e.Name == "graph.forced" {
			continue // the human's move
		}
		assert.NotEqual(t, "brainstorming", e.Node, "nothing evaluated the agent's node: %s %s", e.Name, e.Data)
	}
}

// cycleReadOf is what the persister's Load took from the cycle's read for
// the item key (nil: it read the store).
func cycleReadOf(p runtime.Persister, key string) *cachedRead {
	pp := p.(*persister)
	pp.readsMu.Lock()
	defer pp.readsMu.Unlock()
	return pp.reads[key]
}
