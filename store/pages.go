package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Bounds of the conditional-request cache.
const (
	// PageRetention is how long a cached page is kept after it was last
	// saved or confirmed unchanged: pages of issues no longer watched age
	// out, so the cache follows what is watched.
	PageRetention = 7 * 24 * time.Hour
	// MaxPages caps the number of cached pages; the least recently used go
	// first.
	MaxPages = 20000
	// pruneEvery is how many saves pass between two prunes.
	pruneEvery = 64
)

// Page is one cached answer of a conditional GET: the validator, the
// headers and the body of the last 200. The providers' HTTP transport
// keeps its pages here (service adapts the store to its page cache).
type Page struct {
	ETag   string
	Header http.Header
	Body   []byte
}

// LoadPage returns the cached answer of a conditional GET under key,
// including one saved but not yet written.
func (s *Store) LoadPage(ctx context.Context, key string) (Page, bool, error) {
	if p, ok := s.pages.pending(key); ok {
		return p, true, nil
	}
	var p Page
	var header string
	err := s.read.QueryRowContext(ctx, `SELECT etag, header, body FROM http_pages WHERE key = ?`, storedPageKey(key)).Scan(&p.ETag, &header, &p.Body)
	if errors.Is(err, sql.ErrNoRows) {
		return Page{}, false, nil
	}
	if err != nil {
		return Page{}, false, describe(s.path, "read a cached page from", err)
	}
	if err := json.Unmarshal([]byte(header), &p.Header); err != nil {
		return Page{}, false, nil // an unreadable entry is a miss
	}
	if p.Header == nil {
		p.Header = http.Header{}
	}
	return p, true, nil
}

// SavePage stores p under key, replacing what was there. The page is
// written in the background, batched with others, and never inside the caller's
// transaction: a provider called from an Update (whose transaction holds
// the write connection) must not wait for that connection. A page not yet
// written when the process dies is only a cache miss.
func (s *Store) SavePage(_ context.Context, key string, p Page) error {
	if key == "" || p.ETag == "" {
		return errors.New("save a cached page: the key and the ETag are required")
	}
	if s.readOnly {
		return fmt.Errorf("save a cached page: store %s: %w", s.path, ErrReadOnly)
	}
	p.Header = p.Header.Clone()
	s.pages.start(s)
	s.pages.put(key, pageOp{page: &p})
	return nil
}

// TouchPage records that the page under key was confirmed unchanged, so
// it stays (written in the background, like SavePage).
func (s *Store) TouchPage(_ context.Context, key string) error {
	if s.readOnly {
		return fmt.Errorf("touch a cached page: store %s: %w", s.path, ErrReadOnly)
	}
	s.pages.start(s)
	s.pages.put(key, pageOp{})
	return nil
}

// pageOp is one queued change: a page to save, or (page nil) a touch.
type pageOp struct{ page *Page }

// pageWriter queues page changes and writes them in batches from one
// goroutine; Close flushes what is queued.
type pageWriter struct {
	once      sync.Once
	closeOnce sync.Once
	writeMu   sync.Mutex // one batch at a time, in queue order
	mu        sync.Mutex
	queue     map[string]pageOp
	// writing is the batch being committed: still visible to pending
	// until the commit ends, so a read never falls between queue and table.
	writing map[string]pageOp
	wake    chan struct{}
	stop    chan struct{}
	stopped chan struct{}
	dropped bool
}

func (w *pageWriter) start(s *Store) {
	w.once.Do(func() {
		w.wake = make(chan struct{}, 1)
		w.stop = make(chan struct{})
		w.stopped = make(chan struct{})
		go w.run(s)
	})
}

func (w *pageWriter) put(key string, op pageOp) {
	w.mu.Lock()
	if w.queue == nil {
		w.queue = map[string]pageOp{}
	}
	if have, ok := w.queue[key]; ok && op.page == nil && have.page != nil {
		op = have // a touch of a page still queued: the save stamps it anyway
	}
	if _, ok := w.queue[key]; !ok && len(w.queue) >= MaxPages {
		if !w.dropped {
			slog.Warn("the conditional-request cache is not keeping up with the database; dropping cache writes (requests stay correct, only less often free)")
			w.dropped = true
		}
		w.mu.Unlock()
		return
	}
	w.queue[key] = op
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *pageWriter) pending(key string) (Page, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	op, ok := w.queue[key]
	if !ok {
		op, ok = w.writing[key]
	}
	if !ok || op.page == nil {
		return Page{}, false
	}
	p := *op.page
	p.Header = p.Header.Clone()
	return p, true
}

func (w *pageWriter) take() map[string]pageOp {
	w.mu.Lock()
	defer w.mu.Unlock()
	q := w.queue
	w.queue = nil
	w.writing = q
	w.dropped = false
	return q
}

// written ends the visibility of the batch take returned.
func (w *pageWriter) written() {
	w.mu.Lock()
	w.writing = nil
	w.mu.Unlock()
}

func (w *pageWriter) run(s *Store) {
	defer close(w.stopped)
	for {
		select {
		case <-w.wake:
			w.flush(s)
		case <-w.stop:
			w.flush(s)
			return
		}
	}
}

// flush writes what is queued now, in the calling goroutine.
func (w *pageWriter) flush(s *Store) {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	if q := w.take(); len(q) > 0 {
		s.writePages(q)
	}
	w.written()
}

// FlushPages writes the queued cache pages now. It must not be called
// from inside an Update callback (the write connection is taken there).
// pageKeyEscapes writes a page's key so that any byte of it can be stored:
// PostgreSQL's text holds no NUL, and the HTTP cache separates the URL from
// the Accept header with one. Injective: a backslash is doubled first.
var pageKeyEscapes = strings.NewReplacer(`\`, `\\`, "\x00", `\0`)

// storedPageKey is the key column's value for the cache key key.
func storedPageKey(key string) string { return pageKeyEscapes.Replace(key) }

func (s *Store) FlushPages() { s.pages.flush(s) }

// close flushes the queue and stops the writer (a no-op when it never ran;
// a writer cannot start after it).
func (w *pageWriter) close() {
	w.once.Do(func() {})
	w.closeOnce.Do(func() {
		if w.stop != nil {
			close(w.stop)
			<-w.stopped
		}
	})
}

// writePages writes a batch in one transaction, pruning every pruneEvery
// saves. A failure is logged: the cache only loses entries.
func (s *Store) writePages(q map[string]pageOp) {
	ctx := context.Background()
	err := func() error {
		tx, err := s.beginWrite(ctx, "save cached pages")
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		now := s.now().UTC()
		stamp := now.Format(time.RFC3339Nano)
		saves := int64(0)
		for key, op := range q {
			if op.page == nil {
				if _, err := tx.ExecContext(ctx, `UPDATE http_pages SET used_at = ? WHERE key = ?`, stamp, storedPageKey(key)); err != nil {
					return err
				}
				continue
			}
			header, err := json.Marshal(op.page.Header)
			if err != nil {
				return fmt.Errorf("encode headers: %w", err)
			}
			body := op.page.Body
			if body == nil {
				body = []byte{}
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO http_pages (key, etag, header, body, used_at) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (key) DO UPDATE SET etag = excluded.etag, header = excluded.header, body = excluded.body, used_at = excluded.used_at`,
				storedPageKey(key), op.page.ETag, string(header), body, stamp); err != nil {
				return err
			}
			saves++
		}
		if before := s.pageSaves.Load(); s.pageSaves.Add(saves)/pruneEvery != before/pruneEvery {
			if err := s.prunePages(ctx, tx, now); err != nil {
				return err
			}
		}
		return tx.Commit()
	}()
	if err != nil {
		slog.Warn("could not write the conditional-request cache; those pages are fetched again", "path", s.path, "pages", len(q), "err", err)
	}
}

// PrunePages drops cached pages unused for PageRetention and the least
// recently used beyond MaxPages.
func (s *Store) PrunePages(ctx context.Context) error {
	tx, err := s.beginWrite(ctx, "prune cached pages")
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := s.prunePages(ctx, tx, s.now().UTC()); err != nil {
		return describe(s.path, "prune cached pages in", err)
	}
	if err := tx.Commit(); err != nil {
		return describe(s.path, "commit pruned pages to", err)
	}
	return nil
}

func (s *Store) prunePages(ctx context.Context, tx *sql.Tx, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM http_pages WHERE used_at < ?`, now.Add(-PageRetention).Format(time.RFC3339Nano)); err != nil {
		return err
	}
	all := `LIMIT -1 ` // SQLite's "no limit"; PostgreSQL needs none before OFFSET
	if s.pg != nil {
		all = ``
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM http_pages WHERE key IN (SELECT key FROM http_pages ORDER BY used_at DESC `+all+`OFFSET ?)`, MaxPages)
	return err
}
