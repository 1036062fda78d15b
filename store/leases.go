package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Leases let several pollers share one store: an item is worked by the one
// instance holding its lease. A lease is a row (key, owner, fence,
// expires), taken with one atomic upsert that succeeds only when the row is
// free, expired or already the taker's; its fence grows by one every time
// the lease changes hands. The holder renews its leases well within their
// time to live; an instance that dies stops renewing, and another takes
// its items once their leases expire. Every write the holder makes about a
// leased item (its state, a session it launches) checks, in the write's own
// transaction, that the lease still has the holder's fence: a holder that
// lost its lease (it stalled past the expiry, another took over) is refused
// with ErrStaleFence instead of overwriting the new holder's work.

// leasesSchema is migration 12 on SQLite: the item leases, and which
// instance launched each session.
var leasesSchema = []string{
	`CREATE TABLE item_leases (
		key        TEXT PRIMARY KEY CHECK (key <> ''),
		owner      TEXT NOT NULL CHECK (owner <> ''),
		fence      INTEGER NOT NULL CHECK (fence >= 1),
		expires_ms INTEGER NOT NULL,
		taken_at   TEXT NOT NULL
	) STRICT`,
	`CREATE INDEX item_leases_by_owner ON item_leases (owner, expires_ms)`,
	`ALTER TABLE sessions ADD COLUMN owner TEXT NOT NULL DEFAULT ''`,
}

var pgLeases = []string{
	`CREATE TABLE item_leases (
		key        ` + pgText + ` PRIMARY KEY CHECK (key <> ''),
		owner      ` + pgText + ` NOT NULL CHECK (owner <> ''),
		fence      bigint NOT NULL CHECK (fence >= 1),
		expires_ms bigint NOT NULL,
		taken_at   ` + pgText + ` NOT NULL
	)`,
	`CREATE INDEX item_leases_by_owner ON item_leases (owner, expires_ms)`,
	`ALTER TABLE sessions ADD COLUMN owner ` + pgText + ` NOT NULL DEFAULT ''`,
}

// Lease is one instance's hold on an item.
type Lease struct {
	// Key names the item (the poller uses its ticket reference).
	Key string
	// Owner is the instance holding it.
	Owner string
	// Fence grows by one every time the lease changes hands.
	Fence int64
	// Expires is when another instance may take it, unless renewed.
	Expires time.Time
	// TakenOver reports a take that ended another owner's lease (TakeLease
	// only): what that owner left running is the taker's to settle.
	TakenOver bool
	// From is the owner a take ended ("" when the lease was free or the
	// taker's own).
	From string
}

// ErrStaleFence reports a write refused because the writer no longer holds
// the item's lease: another instance took it over.
var ErrStaleFence = errors.New("this instance no longer holds the item's lease (another poller took it over); the write was refused")

// nowMillis is the database clock in milliseconds since the epoch: one
// clock for every instance, whatever its host's.
func (s *Store) nowMillis() string {
	if s.pg != nil {
		return `(extract(epoch from clock_timestamp()) * 1000)::bigint`
	}
	return `CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`
}

// TakeLease takes (or renews) the lease of key for owner for ttl: ok is
// false, with the holder's lease, when another owner holds it unexpired.
func (s *Store) TakeLease(ctx context.Context, key, owner string, ttl time.Duration) (Lease, bool, error) {
	if err := checkLease(key, owner, ttl); err != nil {
		return Lease{}, false, err
	}
	tx, err := s.beginWrite(ctx, "take a lease")
	if err != nil {
		return Lease{}, false, err
	}
	defer func() { _ = tx.Rollback() }()
	var prev sql.NullString
	var prevExpires int64
	lock := ""
	if s.pg != nil {
		lock = ` FOR UPDATE`
	}
	err = tx.QueryRowContext(ctx, `SELECT owner, expires_ms FROM item_leases WHERE key = ?`+lock, key).Scan(&prev, &prevExpires)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Lease{}, false, describe(s.path, "take a lease in", err)
	}
	l := Lease{Key: key, Owner: owner}
	var expires int64
	err = tx.QueryRowContext(ctx, `INSERT INTO item_leases (key, owner, fence, expires_ms, taken_at) VALUES (?, ?, 1, `+s.nowMillis()+` + ?, ?)
		ON CONFLICT (key) DO UPDATE SET
			fence = CASE WHEN item_leases.owner = excluded.owner THEN item_leases.fence ELSE item_leases.fence + 1 END,
			taken_at = CASE WHEN item_leases.owner = excluded.owner THEN item_leases.taken_at ELSE excluded.taken_at END,
			owner = excluded.owner, expires_ms = excluded.expires_ms
		WHERE item_leases.owner = excluded.owner OR item_leases.expires_ms < `+s.nowMillis()+`
		RETURNING fence, expires_ms`, key, owner, ttl.Milliseconds(), stamp(s.now())).Scan(&l.Fence, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		held, _, herr := leaseOf(ctx, tx, key)
		if herr != nil {
			return Lease{}, false, describe(s.path, "read a lease in", herr)
		}
		return held, false, nil
	}
	if err != nil {
		return Lease{}, false, describe(s.path, "take a lease in", err)
	}
	if err := tx.Commit(); err != nil {
		return Lease{}, false, describe(s.path, "take a lease in", err)
	}
	l.Expires = time.UnixMilli(expires).UTC()
	if prev.Valid && prev.String != owner && prevExpires != releasedMillis {
		// A lease its owner released was handed over, not taken over:
		// that owner stopped what it ran before it let go.
		l.TakenOver, l.From = true, prev.String
	}
	return l, true, nil
}

// RenewLeases extends every lease owner still holds by ttl and returns
// them, key → fence: a lease missing from it changed hands (its holder
// stalled past the expiry and another instance took it).
func (s *Store) RenewLeases(ctx context.Context, owner string, ttl time.Duration) (map[string]int64, error) {
	if err := checkLease("-", owner, ttl); err != nil {
		return nil, err
	}
	tx, err := s.beginWrite(ctx, "renew leases")
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	rows, err := tx.QueryContext(ctx, `UPDATE item_leases SET expires_ms = `+s.nowMillis()+` + ? WHERE owner = ? RETURNING key, fence`,
		ttl.Milliseconds(), owner)
	if err != nil {
		return nil, describe(s.path, "renew leases in", err)
	}
	held := map[string]int64{}
	for rows.Next() {
		var key string
		var fence int64
		if err := rows.Scan(&key, &fence); err != nil {
			_ = rows.Close()
			return nil, describe(s.path, "renew leases in", err)
		}
		held[key] = fence
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, describe(s.path, "renew leases in", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, describe(s.path, "renew leases in", err)
	}
	return held, nil
}

// ReleaseLeases ends owner's leases (all of them when keys is empty), so
// another instance may take the items at once: a poller that stops
// cleanly hands its items over without waiting for the expiry.
func (s *Store) ReleaseLeases(ctx context.Context, owner string, keys ...string) error {
	if owner == "" {
		return errors.New("release leases: the owner is empty")
	}
	q, args := `UPDATE item_leases SET expires_ms = ? WHERE owner = ?`, []any{releasedMillis, owner}
	if len(keys) > 0 {
		q += ` AND key IN (?` + strings.Repeat(`, ?`, len(keys)-1) + `)`
		for _, k := range keys {
			args = append(args, k)
		}
	}
	if _, err := s.write.ExecContext(ctx, q, args...); err != nil {
		return describe(s.path, "release leases in", err)
	}
	return nil
}

// releasedMillis is the expiry of a lease its owner released: taking it is
// no takeover. A lease that ran out, or one BreakLeases ended, keeps an
// expiry of 0 or more.
const releasedMillis = -1

// BreakLeases ends every lease not owned by keep. Only for a store one
// poller owns (SQLite, under the poll lock): the leases a killed poller
// left there hold nothing back.
func (s *Store) BreakLeases(ctx context.Context, keep string) error {
	if _, err := s.write.ExecContext(ctx, `UPDATE item_leases SET expires_ms = 0 WHERE owner <> ?`, keep); err != nil {
		return describe(s.path, "end old leases in", err)
	}
	return nil
}

// LeaseOf returns the lease of key; found is false when none was ever
// taken.
func (s *Store) LeaseOf(ctx context.Context, key string) (Lease, bool, error) {
	l, found, err := leaseOf(ctx, s.read, key)
	if err != nil {
		return Lease{}, false, describe(s.path, "read a lease in", err)
	}
	return l, found, nil
}

// LiveOwners returns the owners holding at least one unexpired lease.
func (s *Store) LiveOwners(ctx context.Context) (map[string]bool, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT DISTINCT owner FROM item_leases WHERE expires_ms >= `+s.nowMillis())
	if err != nil {
		return nil, describe(s.path, "read leases in", err)
	}
	defer func() { _ = rows.Close() }()
	out := map[string]bool{}
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			return nil, describe(s.path, "read leases in", err)
		}
		out[o] = true
	}
	return out, rows.Err()
}

func leaseOf(ctx context.Context, q queryRower, key string) (Lease, bool, error) {
	l := Lease{Key: key}
	var expires int64
	err := q.QueryRowContext(ctx, `SELECT owner, fence, expires_ms FROM item_leases WHERE key = ?`, key).Scan(&l.Owner, &l.Fence, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return Lease{}, false, nil
	}
	if err != nil {
		return Lease{}, false, err
	}
	l.Expires = time.UnixMilli(expires).UTC()
	return l, true, nil
}

func checkLease(key, owner string, ttl time.Duration) error {
	switch {
	case key == "":
		return errors.New("lease: the key is empty; name the item")
	case owner == "":
		return errors.New("lease: the owner is empty; name this instance")
	case ttl < time.Millisecond:
		return fmt.Errorf("lease: a time to live of %s is too short", ttl)
	}
	return nil
}

// fences are the leases this process works items under, by item: every
// write about a fenced item checks its lease's fence.
type fences struct {
	mu sync.Mutex
	by map[[2]string]Lease
}

// Fence makes every later write about repo's item id (its state, its inner
// loops' states, the sessions launched for it) check, in its own
// transaction, that l still holds: the poller calls it once it holds the
// item's lease and knows the item's repository.
func (s *Store) Fence(repo, id string, l Lease) {
	s.fences.mu.Lock()
	defer s.fences.mu.Unlock()
	if s.fences.by == nil {
		s.fences.by = map[[2]string]Lease{}
	}
	s.fences.by[[2]string{repo, id}] = l
}

// Unfence ends the checks Fence started for repo's item id.
func (s *Store) Unfence(repo, id string) {
	s.fences.mu.Lock()
	defer s.fences.mu.Unlock()
	delete(s.fences.by, [2]string{repo, id})
}

// fenceOf returns the lease repo's item id (or the inner loop id/…) is
// fenced by.
func (s *Store) fenceOf(repo, id string) (Lease, bool) {
	s.fences.mu.Lock()
	defer s.fences.mu.Unlock()
	if len(s.fences.by) == 0 {
		return Lease{}, false
	}
	if l, ok := s.fences.by[[2]string{repo, id}]; ok {
		return l, true
	}
	if i := strings.IndexByte(id, '/'); i > 0 {
		l, ok := s.fences.by[[2]string{repo, id[:i]}]
		return l, ok
	}
	return Lease{}, false
}

// checkFence refuses, inside tx, a write about a fenced item whose lease
// has changed hands. On PostgreSQL it locks the lease row until tx ends,
// so a take cannot slip between the check and the commit.
func (s *Store) checkFence(ctx context.Context, tx *sql.Tx, repo, id string) (string, error) {
	l, ok := s.fenceOf(repo, id)
	if !ok {
		return "", nil
	}
	lock := ""
	if s.pg != nil {
		lock = ` FOR SHARE`
	}
	var owner string
	var fence int64
	err := tx.QueryRowContext(ctx, `SELECT owner, fence FROM item_leases WHERE key = ?`+lock, l.Key).Scan(&owner, &fence)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", fmt.Errorf("%s %s (lease %s): %w", repo, id, l.Key, ErrStaleFence)
	case err != nil:
		return "", describe(s.path, "check a lease in", err)
	case owner != l.Owner || fence != l.Fence:
		return "", fmt.Errorf("%s %s (lease %s, fence %d; now %s holds fence %d): %w", repo, id, l.Key, l.Fence, owner, fence, ErrStaleFence)
	}
	return l.Owner, nil
}
