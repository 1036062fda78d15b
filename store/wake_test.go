package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nextWake waits for one wake on ch, failing after d.
func nextWake(t *testing.T, ch <-chan string, d time.Duration) string {
	t.Helper()
	select {
	case ref, ok := <-ch:
		require.True(t, ok, "the wakes channel closed")
		return ref
	case <-time.After(d):
		t.Fatalf("no wake within %s", d)
		return ""
	}
}

func TestAWakeReachesEveryListenerOfTheStore(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := openTemp(t)
	b, err := Open(ctx, tempLocationOf(t, a)) // another process's view of the same store
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })

	here, err := a.Wakes(ctx)
	require.NoError(t, err)
	there, err := b.Wakes(ctx)
	require.NoError(t, err)

	require.NoError(t, a.Wake(ctx, "github:acme/widgets#42"))
	assert.Equal(t, "github:acme/widgets#42", nextWake(t, here, time.Second), "the posting store's own listener")
	assert.Equal(t, "github:acme/widgets#42", nextWake(t, there, 2*time.Second), "a listener on another handle of the store")

	require.NoError(t, b.Wake(ctx, WakeAll))
	assert.Equal(t, WakeAll, nextWake(t, here, 2*time.Second))
	assert.Equal(t, WakeAll, nextWake(t, there, time.Second))
	select {
	case ref := <-here:
		t.Fatalf("a wake was delivered twice: %q", ref)
	case <-time.After(3 * WakePollInterval):
	}

	lctx, lcancel := context.WithCancel(ctx)
	late, err := a.Wakes(lctx)
	require.NoError(t, err)
	lcancel()
	require.Eventually(t, func() bool { _, open := <-late; return !open }, time.Second, 10*time.Millisecond,
		"a listener's channel closes when its context ends")
}

func TestAWakeRefIsChecked(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	assert.ErrorContains(t, s.Wake(ctx, ""), "the ref is empty")
	assert.ErrorContains(t, s.Wake(ctx, strings.Repeat("x", MaxWakeRef+1)), "more than 512")
}

// tempLocationOf is where s lives, for a second handle on it.
func tempLocationOf(t *testing.T, s *Store) string {
	t.Helper()
	return s.Path()
}
