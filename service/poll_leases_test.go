package service

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
	"github.com/the-loop/the-loop/store/storetest"
)

// leaseTTL is the pollers' lease in these tests: short, so a takeover
// happens within the test.
const leaseTTL = 1500 * time.Millisecond

// sharedPoller is one more poller on r's store (its own service and store
// handle, as another process would have), named name.
func (r *pollRig) sharedPoller(t *testing.T, db, name string) *Poller {
	t.Helper()
	prov, err := github.New(github.Options{BaseURL: r.fake.URL(), Token: r.fake.Token()})
	require.NoError(t, err)
	svc := testService(t, r.svc.cfg, Deps{Store: store.NewHandle(db), Signer: runtime.NewSigner([]byte("test-key")),
		Providers: func(string) (integrations.Provider, error) { return prov, nil }})
	return &Poller{Svc: svc, Sources: r.svc.cfg.Polling.Sources, InstanceName: name, LeaseTTL: leaseTTL,
		StatusPath: filepath.Join(t.TempDir(), name+"-status.json")}
}

// issueOne is issue-1's action in rep.
func issueOne(t *testing.T, rep CycleReport) ItemAction {
	t.Helper()
	require.Len(t, rep.Sources, 1)
	require.Empty(t, rep.Sources[0].Error)
	for _, it := range rep.Sources[0].Items {
		if it.WorkItem == "issue-1" {
			return it
		}
	}
	t.Fatalf("issue-1 not in the cycle report: %+v", rep.Sources[0].Items)
	return ItemAction{}
}

// Two pollers on one PostgreSQL store: the item is worked by the one that
// took its lease, the other reports it as elsewhere; when the holder dies
// (it stops renewing) the other takes it over once the lease ran out,
// records the takeover, and goes on from where the first left it — the
// item is started once and its checklist posted once; a poller that stops
// releases its items at once.
func TestPollersSharingAStoreWorkEachItemOnce(t *testing.T) {
	ctx := context.Background()
	db := storetest.TempPostgres(t)
	r := newPollRig(t, "alice")
	a := r.sharedPoller(t, db, "poller-a")
	b := r.sharedPoller(t, db, "poller-b")
	// poller-b must see the lease alive after a whole cycle of each poller,
	// which takes seconds under the race detector on a loaded machine.
	ttl := 3 * leaseTTL
	a.LeaseTTL, b.LeaseTTL = ttl, ttl

	r.fake.AddComment(r.ref, "alice", "OWNER", "the-loop start")
	act := issueOne(t, a.RunOnce(ctx))
	require.Equal(t, "started", act.Action, act.Detail)
	stA, err := a.Svc.writableStore(ctx)
	require.NoError(t, err)
	a.renewLeases(ctx, stA) // as its keeper does between cycles
	act = issueOne(t, b.RunOnce(ctx))
	assert.Equal(t, ActionElsewhere, act.Action)
	assert.Contains(t, act.Detail, "worked by poller poller-a (its lease runs until ")

	// poller-a dies: it renews nothing; poller-b takes the item over once
	// the lease ran out, and does not start it again.
	time.Sleep(ttl + 200*time.Millisecond)
	act = issueOne(t, b.RunOnce(ctx))
	assert.Equal(t, "gate", act.Action, "the new holder goes on from the gate: %s", act.Detail)
	assert.Len(t, filterMarker(r.fake.Comments(r.ref), "<!-- the-loop:phase-selection -->"), 1, "the checklist is posted once")
	st, err := b.Svc.writableStore(ctx)
	require.NoError(t, err)
	evs, err := st.Events(ctx, r.repo, "issue-1")
	require.NoError(t, err)
	var takeovers int
	for _, e := range evs {
		if e.Name == "lease.taken_over" {
			takeovers++
			assert.Contains(t, string(e.Data), `"from":"poller-a"`)
			assert.Contains(t, string(e.Data), `"by":"poller-b"`)
		}
	}
	assert.Equal(t, 1, takeovers, "the takeover is recorded once")

	// poller-a comes back as the same instance: the item is poller-b's now.
	act = issueOne(t, a.RunOnce(ctx))
	assert.Equal(t, ActionElsewhere, act.Action)
	assert.Contains(t, act.Detail, "worked by poller poller-b")

	// poller-b stops: its items are free at once, without waiting the
	// lease, and it wakes the other pollers to say so.
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	wakes, err := stA.Wakes(wctx)
	require.NoError(t, err)
	b.releaseLeases()
	select {
	case ref := <-wakes:
		assert.Equal(t, store.WakeAll, ref)
		a.woken(ref)
	case <-time.After(5 * time.Second):
		t.Fatal("releasing the leases woke nobody")
	}
	act = issueOne(t, a.RunOnce(ctx))
	assert.Equal(t, "gate", act.Action, act.Detail)
	assert.Len(t, filterMarker(r.fake.Comments(r.ref), "<!-- the-loop:phase-selection -->"), 1, "still posted once")
	evs, err = st.Events(ctx, r.repo, "issue-1")
	require.NoError(t, err)
	takeovers = 0
	for _, e := range evs {
		if e.Name == "lease.taken_over" {
			takeovers++
		}
	}
	assert.Equal(t, 1, takeovers, "an item its poller released is handed over, not taken over")
}

// A write by a poller whose lease another took over is refused with
// ErrStaleFence: the state the new holder wrote stays.
func TestAPollerThatLostItsLeaseCannotWrite(t *testing.T) {
	ctx := context.Background()
	db := storetest.TempPostgres(t)
	r := newPollRig(t, "alice")
	a := r.sharedPoller(t, db, "poller-a")
	b := r.sharedPoller(t, db, "poller-b")
	r.fake.AddComment(r.ref, "alice", "OWNER", "the-loop start")
	require.Equal(t, "started", issueOne(t, a.RunOnce(ctx)).Action)

	time.Sleep(leaseTTL + 200*time.Millisecond)
	require.Equal(t, "gate", issueOne(t, b.RunOnce(ctx)).Action)

	// poller-a still believes it holds the item (a stalled process): its
	// store handle still carries the old fence.
	stA, err := a.Svc.writableStore(ctx)
	require.NoError(t, err)
	err = stA.Update(ctx, r.repo, "issue-1", func(cur *store.WorkItem) (*store.WorkItem, []store.Event, error) {
		require.NotNil(t, cur)
		next := *cur
		next.CurrentNode = "complete"
		return &next, nil, nil
	})
	require.ErrorIs(t, err, store.ErrStaleFence)
	stB, err := b.Svc.writableStore(ctx)
	require.NoError(t, err)
	it, found, err := stB.Get(ctx, r.repo, "issue-1")
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, "phase-selection", it.CurrentNode, "the stale write left nothing")
}

// Two pollers share 60 armed items on one PostgreSQL store; the first is
// killed mid-cycle, a quarter through (its context ends where it stands,
// nothing released). The second takes every item over once the leases ran
// out: each item is started once and its checklist posted once, counted on
// the fake GitHub. Sixty put the kill mid-cycle with fifteen items done
// before it and forty-five after, as two hundred did at over three times
// the cost.
func TestTwoPollersShareSixtyItemsWhenOneDiesMidCycle(t *testing.T) {
	if testing.Short() {
		t.Skip("60 items on PostgreSQL: not in -short")
	}
	const n = 60
	r := newQuotaRig(t, n)
	r.db = storetest.TempPostgres(t)
	for i := 1; i <= n; i++ {
		r.fake.AddComment(integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: i}, "alice", "OWNER", "the-loop start")
	}
	a, b := r.process(t), r.process(t)
	a.InstanceName, a.LeaseTTL = "poller-a", leaseTTL
	b.InstanceName, b.LeaseTTL = "poller-b", leaseTTL

	checklists := func() (posted map[int]int, total int) {
		posted = map[int]int{}
		for i := 1; i <= n; i++ {
			c := len(filterMarker(r.fake.Comments(integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: i}), "<!-- the-loop:phase-selection -->"))
			posted[i], total = c, total+c
		}
		return posted, total
	}
	// poller-a dies once it has posted a quarter of the checklists.
	ctx, kill := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); a.RunOnce(ctx) }()
	require.Eventually(t, func() bool { _, total := checklists(); return total >= n/4 }, time.Minute, 5*time.Millisecond)
	kill()
	<-done
	_, byA := checklists()
	require.Less(t, byA, n, "poller-a died before it finished the cycle")

	time.Sleep(leaseTTL + 200*time.Millisecond)
	started := 0
	for range 3 {
		for _, src := range b.RunOnce(context.Background()).Sources {
			require.Empty(t, src.Error)
			for _, it := range src.Items {
				require.NotEqual(t, ActionElsewhere, it.Action, "poller-a is dead: %s", it.Detail)
				require.NotEqual(t, "error", it.Action, "%s: %s", it.WorkItem, it.Detail)
				if it.Action == "started" {
					started++
				}
			}
		}
	}
	posted, total := checklists()
	for i := 1; i <= n; i++ {
		assert.Equal(t, 1, posted[i], "issue #%d's checklist is posted once", i)
	}
	assert.Equal(t, n, total)
	// poller-b starts the items poller-a had not started: the one poller-a
	// died in may have had its checklist posted and not its state saved.
	assert.InDelta(t, n-byA, started, 1, "poller-b starts the items poller-a had not started")
}
