package lockfile

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTryLockIsExclusiveUntilReleased(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.lock")
	a, err := TryLock(path)
	require.NoError(t, err)
	_, err = TryLock(path)
	require.ErrorIs(t, err, ErrHeld, "a second holder, even in the same process, is refused")
	assert.Contains(t, err.Error(), path)
	require.NoError(t, a.WriteInfo([]byte("holder one, a long line")))
	require.NoError(t, a.WriteInfo([]byte("two")))
	info, err := ReadInfo(path)
	require.NoError(t, err)
	assert.Equal(t, "two", string(info), "the info is replaced in place")
	require.NoError(t, a.Release())
	require.NoError(t, a.Release(), "releasing twice is harmless")
	b, err := TryLock(path)
	require.NoError(t, err)
	require.NoError(t, b.Release())
}

func TestAcquireWaitsForTheHolderOrTheContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, err := TryLock(path)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Acquire(ctx, path)
	require.ErrorIs(t, err, context.Canceled)

	got := make(chan error, 1)
	go func() {
		l, err := Acquire(context.Background(), path)
		if err == nil {
			err = l.Release()
		}
		got <- err
	}()
	require.NoError(t, a.Release())
	select {
	case err := <-got:
		require.NoError(t, err)
	case <-time.After(time.Minute):
		t.Fatal("the waiter never got the released lock")
	}
}
