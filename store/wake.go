package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Waker carries "evaluate this now" between the processes that share one
// store: a webhook received by one `serve --http` replica wakes the poller
// that holds the item, wherever it runs. A wake is a hint, never the only
// path: the poller's sweep still reads every item, so a wake that is lost
// (a listener that was down, a full channel) only makes the item wait for
// the next sweep. *Store implements it on both backends: SQLite polls a
// table (a wake reaches another process within WakePollInterval, one in
// the same process at once), PostgreSQL uses LISTEN/NOTIFY (milliseconds).
type Waker interface {
	// Wake posts ref to every listener of every process on the store. ref
	// is opaque to the store (the poller reads a ticket reference such as
	// "github:acme/widgets#42"; WakeAll asks for a whole sweep) and at most
	// MaxWakeRef bytes.
	Wake(ctx context.Context, ref string) error
	// Wakes returns the refs posted from now on, by this process or
	// another, until ctx ends (then the channel is closed). A listener
	// that may have missed wakes (its connection to PostgreSQL dropped)
	// receives WakeAll once it listens again. Refs a slow reader has not
	// taken are coalesced, never queued without bound.
	Wakes(ctx context.Context) (<-chan string, error)
}

// WakeAll is the ref that asks for a whole sweep: anything may have
// changed.
const WakeAll = "*"

// MaxWakeRef bounds a wake's ref (PostgreSQL's NOTIFY payload is far
// larger; a ticket reference is far smaller).
const MaxWakeRef = 512

// WakePollInterval is how often a SQLite store looks for wakes another
// process posted.
const WakePollInterval = 200 * time.Millisecond

// wakeRetention is how long a SQLite wake row is kept for listeners in
// other processes; older rows are deleted when a wake is posted.
const wakeRetention = 10 * time.Minute

// wakesSchema is migration 11: the wakes a SQLite store's processes post to
// each other (PostgreSQL uses NOTIFY and keeps no rows).
var wakesSchema = []string{
	`CREATE TABLE wakes (
		seq INTEGER PRIMARY KEY AUTOINCREMENT,
		ref TEXT NOT NULL CHECK (ref <> ''),
		at  TEXT NOT NULL
	) STRICT`,
}

var _ Waker = (*Store)(nil)

func checkWakeRef(ref string) error {
	switch {
	case ref == "":
		return errors.New("wake: the ref is empty; name the item (a ticket reference) or pass store.WakeAll")
	case len(ref) > MaxWakeRef:
		return fmt.Errorf("wake: the ref is %d bytes, more than %d", len(ref), MaxWakeRef)
	}
	return nil
}

// Wake implements Waker.
func (s *Store) Wake(ctx context.Context, ref string) error {
	if err := checkWakeRef(ref); err != nil {
		return err
	}
	if s.readOnly {
		return fmt.Errorf("wake: store %s: %w", s.path, ErrReadOnly)
	}
	if s.pg != nil {
		return s.pg.notify(ctx, s, ref)
	}
	now := s.now().UTC()
	var seq int64
	err := s.write.QueryRowContext(ctx, `INSERT INTO wakes (ref, at) VALUES (?, ?) RETURNING seq`, ref, stamp(now)).Scan(&seq)
	if err != nil {
		return describe(s.path, "post a wake to", err)
	}
	if seq%64 == 0 {
		if _, err := s.write.ExecContext(ctx, `DELETE FROM wakes WHERE at < ?`, stamp(now.Add(-wakeRetention))); err != nil {
			slog.Warn("could not prune old wakes", "path", s.path, "err", err)
		}
	}
	s.wakes.publish(seq, ref)
	return nil
}

// Wakes implements Waker.
func (s *Store) Wakes(ctx context.Context) (<-chan string, error) {
	if s.readOnly {
		return nil, fmt.Errorf("listen for wakes: store %s: %w", s.path, ErrReadOnly)
	}
	if err := s.wakes.startFeed(ctx, s); err != nil {
		return nil, err
	}
	return s.wakes.subscribe(ctx), nil
}

// wakeHub fans wakes out to the listeners of one Store, from one feed:
// a SQLite table read every WakePollInterval, or a PostgreSQL LISTEN
// connection.
type wakeHub struct {
	mu     sync.Mutex
	subs   map[chan string]struct{}
	feed   bool
	stop   context.CancelFunc
	done   chan struct{}
	seen   int64            // SQLite: the highest row delivered
	posted map[int64]string // SQLite: rows this process already delivered
}

// subscribe adds a listener until ctx ends.
func (h *wakeHub) subscribe(ctx context.Context) <-chan string {
	ch := make(chan string, 64)
	h.mu.Lock()
	if h.subs == nil {
		h.subs = map[chan string]struct{}{}
	}
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	go func() {
		<-ctx.Done()
		h.mu.Lock()
		if _, ok := h.subs[ch]; ok {
			delete(h.subs, ch)
			close(ch)
		}
		h.mu.Unlock()
	}()
	return ch
}

// deliver hands ref to every listener; a listener whose buffer is full
// gets WakeAll in place of what it missed (it sweeps everything anyway).
func (h *wakeHub) deliver(ref string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- ref:
		default:
			// Full: drop the oldest and make sure a sweep is asked for.
			select {
			case <-ch:
			default:
			}
			select {
			case ch <- WakeAll:
			default:
			}
		}
	}
}

// publish delivers a wake this process posted to a SQLite store at once,
// and remembers its row so the table feed does not deliver it again.
func (h *wakeHub) publish(seq int64, ref string) {
	h.mu.Lock()
	if h.posted == nil {
		h.posted = map[int64]string{}
	}
	if seq > h.seen {
		h.posted[seq] = ref
	}
	h.mu.Unlock()
	h.deliver(ref)
}

// startFeed starts the feed of s once: the table poll of a SQLite store,
// the LISTEN connection of a PostgreSQL one. It runs until the store
// closes.
func (h *wakeHub) startFeed(ctx context.Context, s *Store) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.feed {
		return nil
	}
	feedCtx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	if s.pg != nil {
		l, err := s.pg.listen(ctx, s)
		if err != nil {
			stop()
			return err
		}
		go func() { defer close(done); l.run(feedCtx, h) }()
	} else {
		if err := s.read.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM wakes`).Scan(&h.seen); err != nil {
			stop()
			return describe(s.path, "listen for wakes in", err)
		}
		go func() { defer close(done); h.pollTable(feedCtx, s) }()
	}
	h.feed, h.stop, h.done = true, stop, done
	return nil
}

// pollTable reads the wakes other processes posted to a SQLite store.
func (h *wakeHub) pollTable(ctx context.Context, s *Store) {
	t := time.NewTicker(WakePollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		h.mu.Lock()
		listening, from := len(h.subs) > 0, h.seen
		h.mu.Unlock()
		if !listening {
			continue
		}
		rows, err := s.read.QueryContext(ctx, `SELECT seq, ref FROM wakes WHERE seq > ? ORDER BY seq LIMIT 1000`, from)
		if err != nil {
			if ctx.Err() == nil {
				slog.Warn("could not read wakes; the sweep catches what they would have said", "path", s.path, "err", err)
			}
			continue
		}
		var got []string
		for rows.Next() {
			var seq int64
			var ref string
			if rows.Scan(&seq, &ref) != nil {
				break
			}
			h.mu.Lock()
			if _, mine := h.posted[seq]; mine {
				delete(h.posted, seq)
			} else {
				got = append(got, ref)
			}
			h.seen = seq
			for p := range h.posted {
				if p <= seq {
					delete(h.posted, p)
				}
			}
			h.mu.Unlock()
		}
		_ = rows.Close()
		for _, ref := range got {
			h.deliver(ref)
		}
	}
}

// close stops the feed and ends every listener.
func (h *wakeHub) close() {
	h.mu.Lock()
	stop, done := h.stop, h.done
	h.feed, h.stop, h.done = false, nil, nil
	for ch := range h.subs {
		delete(h.subs, ch)
		close(ch)
	}
	h.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}
