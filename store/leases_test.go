package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestALeaseIsHeldByOneOwnerAndChangesHandsOnlyWhenItExpires(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	a, ok, err := s.TakeLease(ctx, "github:acme/widgets#7", "poller-a", time.Hour)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, int64(1), a.Fence)
	assert.False(t, a.TakenOver)

	held, ok, err := s.TakeLease(ctx, "github:acme/widgets#7", "poller-b", time.Hour)
	require.NoError(t, err)
	assert.False(t, ok, "another owner's unexpired lease is not taken")
	assert.Equal(t, "poller-a", held.Owner)

	again, ok, err := s.TakeLease(ctx, "github:acme/widgets#7", "poller-a", 300*time.Millisecond)
	require.NoError(t, err)
	require.True(t, ok, "the holder renews")
	assert.Equal(t, int64(1), again.Fence, "a renewal keeps the fence")

	time.Sleep(400 * time.Millisecond)
	b, ok, err := s.TakeLease(ctx, "github:acme/widgets#7", "poller-b", time.Hour)
	require.NoError(t, err)
	require.True(t, ok, "an expired lease is taken")
	assert.Equal(t, int64(2), b.Fence, "a change of hands grows the fence")
	assert.True(t, b.TakenOver)
	assert.Equal(t, "poller-a", b.From)

	_, ok, err = s.TakeLease(ctx, "github:acme/widgets#7", "poller-a", time.Hour)
	require.NoError(t, err)
	assert.False(t, ok, "the old holder cannot take it back while the new one holds it")

	renewed, err := s.RenewLeases(ctx, "poller-b", time.Hour)
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"github:acme/widgets#7": 2}, renewed)
	renewed, err = s.RenewLeases(ctx, "poller-a", time.Hour)
	require.NoError(t, err)
	assert.Empty(t, renewed, "a lease that changed hands is not renewed for its old holder")
	live, err := s.LiveOwners(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{"poller-b": true}, live)

	require.NoError(t, s.ReleaseLeases(ctx, "poller-b"))
	c, ok, err := s.TakeLease(ctx, "github:acme/widgets#7", "poller-c", time.Hour)
	require.NoError(t, err)
	require.True(t, ok, "a released lease is taken at once")
	assert.Equal(t, int64(3), c.Fence)
	assert.False(t, c.TakenOver, "a released lease is handed over, not taken over")
	assert.Empty(t, c.From)

	require.NoError(t, s.BreakLeases(ctx, "poller-d"))
	d, ok, err := s.TakeLease(ctx, "github:acme/widgets#7", "poller-d", time.Hour)
	require.NoError(t, err)
	require.True(t, ok, "a broken lease is taken at once")
	assert.True(t, d.TakenOver, "a lease another poller ended (its owner may have been killed) is taken over")
	assert.Equal(t, "poller-c", d.From)
}

func TestAStaleFenceIsRefusedAndTheNewHolderWrites(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	other, err := Open(ctx, s.Path()) // the second poller's own handle
	require.NoError(t, err)
	t.Cleanup(func() { _ = other.Close() })

	a, ok, err := s.TakeLease(ctx, "github:acme/widgets#7", "poller-a", 200*time.Millisecond)
	require.NoError(t, err)
	require.True(t, ok)
	s.Fence("/trees/acme-widgets/issue-7", "issue-7", a)
	require.NoError(t, s.Update(ctx, "/trees/acme-widgets/issue-7", "issue-7", increment), "the holder writes")

	time.Sleep(300 * time.Millisecond)
	b, ok, err := other.TakeLease(ctx, "github:acme/widgets#7", "poller-b", time.Hour)
	require.NoError(t, err)
	require.True(t, ok)
	other.Fence("/trees/acme-widgets/issue-7", "issue-7", b)

	err = s.Update(ctx, "/trees/acme-widgets/issue-7", "issue-7", increment)
	require.ErrorIs(t, err, ErrStaleFence, "the old holder's late write is refused")
	assert.Contains(t, err.Error(), "now poller-b holds fence 2")
	err = s.Update(ctx, "/trees/acme-widgets/issue-7", "issue-7/pr-loops/pr-3", increment)
	require.ErrorIs(t, err, ErrStaleFence, "so is a write of one of its inner loops")
	err = s.StartSession(ctx, Session{ID: "s-late", Repo: "/trees/acme-widgets/issue-7", WorkItem: "issue-7", Node: "design",
		Harness: "fake", StartedAt: time.Now()})
	require.ErrorIs(t, err, ErrStaleFence, "and a session it would launch")

	require.NoError(t, other.Update(ctx, "/trees/acme-widgets/issue-7", "issue-7", increment), "the new holder writes")
	require.NoError(t, other.StartSession(ctx, Session{ID: "s-new", Repo: "/trees/acme-widgets/issue-7", WorkItem: "issue-7", Node: "design",
		Harness: "fake", StartedAt: time.Now()}))
	got, found, err := other.GetSession(ctx, "s-new")
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, "poller-b", got.Owner, "a session carries the owner it was launched under")
	assert.Equal(t, 2, assertCounterConsistent(t, other, "/trees/acme-widgets/issue-7", "issue-7"))
	_, found, err = other.GetSession(ctx, "s-late")
	require.NoError(t, err)
	assert.False(t, found)

	s.Unfence("/trees/acme-widgets/issue-7", "issue-7")
	require.NoError(t, s.Update(ctx, "/trees/acme-widgets/issue-7", "issue-8", increment), "an item not fenced is not checked")
}

func TestConcurrentTakersGetEachItemOnce(t *testing.T) {
	ctx := context.Background()
	first := openTemp(t)
	const owners, keys = 4, 200
	stores := []*Store{first}
	for range owners - 1 {
		s, err := Open(ctx, first.Path())
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		stores = append(stores, s)
	}
	got := make([][]string, owners)
	var wg sync.WaitGroup
	for o := range owners {
		wg.Go(func() {
			for k := range keys {
				key := fmt.Sprintf("github:acme/widgets#%d", (k+o*37)%keys)
				l, ok, err := stores[o].TakeLease(ctx, key, fmt.Sprintf("poller-%d", o), time.Hour)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					require.Equal(t, int64(1), l.Fence)
					got[o] = append(got[o], key)
				}
			}
		})
	}
	wg.Wait()
	seen := map[string]int{}
	for _, keys := range got {
		for _, k := range keys {
			seen[k]++
		}
	}
	assert.Len(t, seen, keys, "every item was taken")
	for k, n := range seen {
		assert.Equal(t, 1, n, "%s taken by %d owners", k, n)
	}
	b, _ := json.Marshal(len(got[0]))
	t.Logf("the first owner took %s items", b)
}
