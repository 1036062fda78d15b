package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hammer runs workers goroutines, each calling Update(increment) n times on
// one of the stores (round robin), and returns every error seen.
func hammer(ctx context.Context, stores []*Store, workers, n int, repo, id string) []error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for w := range workers {
		s := stores[w%len(stores)]
		wg.Go(func() {
			for range n {
				if err := s.Update(ctx, repo, id, increment); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return errs
}

func TestUpdateConcurrentGoroutines(t *testing.T) {
	const workers, n = 32, 8 // 256 updates, 32 at once: a lost update shows in every run
	s := openTemp(t)
	errs := hammer(context.Background(), []*Store{s}, workers, n, "r", "shared")
	require.Empty(t, errs)
	assert.Equal(t, workers*n, assertCounterConsistent(t, s, "r", "shared"))
}

func TestUpdateConcurrentHandlesSameStore(t *testing.T) {
	const workers, n = 32, 8
	ctx := context.Background()
	path := tempLocation(t)
	var stores []*Store
	for range 2 {
		s, err := Open(ctx, path)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		stores = append(stores, s)
	}
	// Readers run alongside and must never fail either.
	stop := make(chan struct{})
	var readErr error
	var rwg sync.WaitGroup
	rwg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, _, err := stores[1].Get(ctx, "r", "shared"); err != nil {
				readErr = err
				return
			}
		}
	})
	errs := hammer(ctx, stores, workers, n, "r", "shared")
	close(stop)
	rwg.Wait()
	require.Empty(t, errs)
	require.NoError(t, readErr)
	for _, s := range stores {
		assert.Equal(t, workers*n, assertCounterConsistent(t, s, "r", "shared"))
	}
}

func TestUpdateLockedByAnotherProcess(t *testing.T) {
	ctx := context.Background()
	o := defaultOptions()
	o.busyTimeout = 50 * time.Millisecond
	o.beginAttempts = 2
	s, err := openStore(ctx, filepath.Join(t.TempDir(), "db"), o)
	require.NoError(t, err)
	defer s.Close()

	// Another writer (a separate pool, as another process would be) holds
	// the write lock.
	other, err := sql.Open(driverName, dsn(s.Path(), writePragmas(defaultOptions()), "_txlock=immediate"))
	require.NoError(t, err)
	defer other.Close()
	holder, err := other.BeginTx(ctx, nil)
	require.NoError(t, err)

	called := false
	err = s.Update(ctx, "r", "i", func(cur *WorkItem) (*WorkItem, []Event, error) {
		called = true
		return increment(cur)
	})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrLocked)
	assert.Contains(t, err.Error(), s.Path())
	assert.Contains(t, err.Error(), "another process")
	assert.False(t, called, "fn must not run without the write lock")
	assert.ErrorIs(t, s.AppendEvents(ctx, "r", "i", []Event{{Name: "x"}}), ErrLocked)

	// Readers are not blocked by the writer (WAL).
	_, _, err = s.Get(ctx, "r", "i")
	require.NoError(t, err)

	require.NoError(t, holder.Rollback())
	require.NoError(t, s.Update(ctx, "r", "i", increment))
	assert.Equal(t, 1, counterOf(t, s, "r", "i"))
}
