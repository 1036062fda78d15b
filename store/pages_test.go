package store

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCachedPagesRoundTripAndSurviveReopening(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	_, found, err := s.LoadPage(ctx, "k")
	require.NoError(t, err)
	assert.False(t, found)
	page := Page{ETag: `W/"1"`, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`[1]`)}
	require.NoError(t, s.SavePage(ctx, "k", page))
	require.NoError(t, s.TouchPage(ctx, "k"))
	require.NoError(t, s.Close())

	again, err := Open(ctx, s.Path())
	require.NoError(t, err)
	defer again.Close()
	got, found, err := again.LoadPage(ctx, "k")
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, page, got)

	require.Error(t, again.SavePage(ctx, "", page), "a key is required")
	require.Error(t, again.SavePage(ctx, "k", Page{}), "an ETag is required")
}

func TestCachedPagesAgeOutAndAreBounded(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	require.NoError(t, s.SavePage(ctx, "old", Page{ETag: "1"}))
	require.NoError(t, s.SavePage(ctx, "kept", Page{ETag: "1"}))
	s.FlushPages()
	now = now.Add(PageRetention - time.Hour)
	require.NoError(t, s.TouchPage(ctx, "kept"))
	s.FlushPages()
	now = now.Add(2 * time.Hour)
	require.NoError(t, s.PrunePages(ctx))
	_, found, _ := s.LoadPage(ctx, "old")
	assert.False(t, found, "a page unused for the retention period is dropped")
	_, found, _ = s.LoadPage(ctx, "kept")
	assert.True(t, found, "a page confirmed within the period stays")

	tx, err := s.write.BeginTx(ctx, nil)
	require.NoError(t, err)
	for i := range MaxPages + 10 {
		_, err := tx.ExecContext(ctx, `INSERT INTO http_pages (key, etag, header, body, used_at) VALUES (?, '1', '{}', ?, ?)`,
			fmt.Sprintf("bulk-%05d", i), []byte{}, now.Add(time.Duration(i)*time.Millisecond).Format(time.RFC3339Nano))
		require.NoError(t, err)
	}
	require.NoError(t, tx.Commit())
	require.NoError(t, s.PrunePages(ctx))
	var n int
	require.NoError(t, s.read.QueryRowContext(ctx, `SELECT count(*) FROM http_pages`).Scan(&n))
	assert.Equal(t, MaxPages, n)
	_, found, _ = s.LoadPage(ctx, "kept")
	assert.False(t, found, "the least recently used go first")
	_, found, _ = s.LoadPage(ctx, fmt.Sprintf("bulk-%05d", MaxPages+9))
	assert.True(t, found)
}

// A provider called from inside an Update (a hook listing comments while
// the transaction holds the write connection) can save and confirm pages
// without waiting for that connection.
func TestSavingAPageInsideAnUpdateDoesNotWait(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	require.NoError(t, s.SavePage(ctx, "k", Page{ETag: "1", Body: []byte("a")}))
	s.FlushPages()
	done := make(chan error, 1)
	go func() {
		done <- s.Update(ctx, "r", "i", func(cur *WorkItem) (*WorkItem, []Event, error) {
			if err := s.TouchPage(ctx, "k"); err != nil {
				return nil, nil, err
			}
			if err := s.SavePage(ctx, "k2", Page{ETag: "2", Body: []byte("b")}); err != nil {
				return nil, nil, err
			}
			got, found, err := s.LoadPage(ctx, "k2")
			if err != nil || !found || string(got.Body) != "b" {
				return nil, nil, fmt.Errorf("a queued page is read back: %v %v %q", err, found, got.Body)
			}
			return increment(cur)
		})
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(time.Minute):
		t.Fatal("the update waited on its own write connection")
	}
	require.NoError(t, s.Close())
	again, err := Open(ctx, s.Path())
	require.NoError(t, err)
	defer again.Close()
	got, found, err := again.LoadPage(ctx, "k2")
	require.NoError(t, err)
	require.True(t, found, "Close writes what is queued")
	assert.Equal(t, "b", string(got.Body))
}

// A page taken from the queue for writing stays visible until its batch is
// committed: a lookup in between is never a miss (which would send an
// unconditional request and spend quota).
func TestACachedPageBeingWrittenIsStillFound(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	page := Page{ETag: `W/"7"`, Header: http.Header{}, Body: []byte(`[7]`)}
	s.pages.writeMu.Lock() // hold the writer as if a batch were in flight
	require.NoError(t, s.SavePage(ctx, "k", page))
	q := s.pages.take()
	require.Contains(t, q, "k")
	got, found, err := s.LoadPage(ctx, "k")
	require.NoError(t, err)
	assert.True(t, found, "taken for writing, not yet committed: still found")
	assert.Equal(t, page, got)
	s.writePages(q)
	s.pages.written()
	s.pages.writeMu.Unlock()
	got, found, err = s.LoadPage(ctx, "k")
	require.NoError(t, err)
	assert.True(t, found, "committed: found in the database")
	assert.Equal(t, page.ETag, got.ETag)
}

// A page's key may hold any byte — the HTTP cache's keys hold a NUL between
// the URL and the Accept header, which PostgreSQL's text cannot — and keys
// that differ only in how they would be escaped stay apart.
func TestACachedPageKeyMayHoldAnyByte(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	keys := []string{
		"https://api.github.com/repos/octo/widgets/issues?page=2\x00application/vnd.github+json",
		`a\0b`, "a\x00b", `a\\0b`, "a\\\x00b",
	}
	for i, k := range keys {
		require.NoError(t, s.SavePage(ctx, k, Page{ETag: fmt.Sprintf(`"%d"`, i), Header: http.Header{}, Body: []byte{0, byte(i)}}))
	}
	s.FlushPages()
	require.NoError(t, s.Close())
	again, err := Open(ctx, s.Path())
	require.NoError(t, err)
	defer again.Close()
	for i, k := range keys {
		require.NoError(t, again.TouchPage(ctx, k))
		got, found, err := again.LoadPage(ctx, k)
		require.NoError(t, err, "key %q", k)
		require.True(t, found, "key %q", k)
		assert.Equal(t, fmt.Sprintf(`"%d"`, i), got.ETag, "key %q is its own entry", k)
		assert.Equal(t, []byte{0, byte(i)}, got.Body)
	}
	again.FlushPages()
}
