package service

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/the-loop/the-loop/store"
)

// DefaultLeaseTTL is how long an item's lease lasts without renewal
// (polling.leaseSeconds): how long the items of a poller that died wait
// before another takes them over.
const DefaultLeaseTTL = 30 * time.Second

// ActionElsewhere is the cycle report's action for an item another poller
// holds the lease of: this poller leaves it alone.
const ActionElsewhere = "elsewhere"

// pollLeases is the poller's share of a store other pollers may use too:
// the instance's name, the leases it holds, and whether an item was taken
// over from a poller that is gone (its sessions are then settled).
type pollLeases struct {
	mu    sync.Mutex
	owner string
	// held are the leases this poller holds, until when; elsewhere the
	// items another poller holds, until when: neither is asked of the
	// store again before then (a write about an item still checks its
	// fence, so a stale entry here can never let a write through).
	held      map[string]store.Lease
	elsewhere map[string]store.Lease
	tookOver  bool
	broken    bool // SQLite: the leases of earlier pollers were ended once
	// atStart are the fences of the leases held when the cycle began:
	// an item still held under the same fence was written by no other
	// poller since, so the cycle's one read of the states answers for it.
	atStart map[string]int64
}

// markCycleStart notes the leases this poller holds as a cycle begins
// (after beginLeases renewed them).
func (p *Poller) markCycleStart() {
	l := &p.leases
	l.mu.Lock()
	defer l.mu.Unlock()
	l.atStart = make(map[string]int64, len(l.held))
	for k, h := range l.held {
		l.atStart[k] = h.Fence
	}
}

// heldSinceCycleStart reports whether lease is the one this poller held
// on ref when the cycle began: no other poller can have written the item
// since. A lease taken, taken over or changed this cycle is not.
func (p *Poller) heldSinceCycleStart(ref string, lease store.Lease) bool {
	l := &p.leases
	l.mu.Lock()
	defer l.mu.Unlock()
	f, ok := l.atStart[ref]
	return ok && !lease.TakenOver && lease.Owner == l.owner && f == lease.Fence
}

// Instance names this poller in the leases it takes: the host, the
// process and a random part, so a restarted poller is a new instance.
func (p *Poller) Instance() string {
	l := &p.leases
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.owner == "" {
		l.owner = p.InstanceName
		if l.owner == "" {
			host, _ := os.Hostname()
			l.owner = fmt.Sprintf("%s/%d/%s", host, os.Getpid(), strings.ToLower(rand.Text()[:6]))
		}
	}
	return l.owner
}

func (p *Poller) leaseTTL() time.Duration {
	if p.LeaseTTL > 0 {
		return p.LeaseTTL
	}
	return DefaultLeaseTTL
}

// beginLeases renews this poller's leases at the start of a cycle, and on
// a SQLite store — which one poller owns, under the poll lock — ends the
// leases earlier pollers left, so a restarted poller takes its items at
// once instead of after their time to live.
func (p *Poller) beginLeases(ctx context.Context) {
	st, err := p.Svc.writableStore(ctx)
	if err != nil {
		return // the items' own steps report the store
	}
	owner := p.Instance()
	p.leases.mu.Lock()
	breakOld := !p.leases.broken && !st.Postgres()
	p.leases.broken = true
	p.leases.mu.Unlock()
	if breakOld {
		if err := st.BreakLeases(ctx, owner); err != nil {
			p.log().Warn("could not end the leases an earlier poller left", "err", err)
		}
	}
	p.renewLeases(ctx, st)
}

func (p *Poller) renewLeases(ctx context.Context, st *store.Store) {
	until := p.Svc.now().Add(p.leaseTTL())
	renewed, err := st.RenewLeases(ctx, p.Instance(), p.leaseTTL())
	if err != nil {
		p.log().Warn("could not renew this poller's item leases; another poller may take its items over", "err", err)
		return
	}
	p.leases.mu.Lock()
	defer p.leases.mu.Unlock()
	for k, l := range p.leases.held {
		if fence, ok := renewed[k]; !ok || fence != l.Fence {
			// Another poller took it over while this one stalled: ask the
			// store again before working the item.
			delete(p.leases.held, k)
			p.log().Info("lost an item's lease to another poller", "ref", k, "fence", l.Fence)
			continue
		}
		l.Expires = until
		p.leases.held[k] = l
	}
}

// keepLeases renews the leases every third of their time to live until
// ctx ends, whatever a cycle is doing.
func (p *Poller) keepLeases(ctx context.Context) {
	t := time.NewTicker(p.leaseTTL() / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if st, err := p.Svc.writableStore(ctx); err == nil {
				p.renewLeases(ctx, st)
			}
		}
	}
}

// releaseLeases hands this poller's items over at once when it stops.
func (p *Poller) releaseLeases() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := p.Svc.writableStore(ctx)
	if err != nil {
		return
	}
	if err := st.ReleaseLeases(ctx, p.Instance()); err != nil {
		p.log().Warn("could not release this poller's item leases; other pollers take its items when they expire", "err", err)
		return
	}
	p.leases.mu.Lock()
	held := len(p.leases.held)
	clear(p.leases.held)
	p.leases.mu.Unlock()
	if held > 0 {
		// The other pollers take the items at once, not when they would
		// have asked again.
		if err := st.Wake(ctx, store.WakeAll); err != nil {
			p.log().Warn("could not wake the other pollers after releasing the item leases", "err", err)
		}
	}
}

// woken forgets which poller holds the item ref names (every item for
// store.WakeAll), so the next cycle asks the store: a wake says something
// changed, perhaps a lease was released.
func (p *Poller) woken(ref string) {
	p.leases.mu.Lock()
	defer p.leases.mu.Unlock()
	if ref == store.WakeAll {
		clear(p.leases.elsewhere)
		return
	}
	delete(p.leases.elsewhere, ref)
}

// takeItem takes (or renews) the lease of the item ref names. When
// another poller holds it, ok is false and why says who, for the report.
func (p *Poller) takeItem(ctx context.Context, ref string) (l store.Lease, ok bool, why string) {
	now, margin := p.Svc.now(), p.leaseTTL()/3
	p.leases.mu.Lock()
	if h, found := p.leases.held[ref]; found && h.Expires.After(now.Add(margin)) {
		p.leases.mu.Unlock()
		return h, true, ""
	}
	if e, found := p.leases.elsewhere[ref]; found && e.Expires.After(now) {
		p.leases.mu.Unlock()
		return e, false, elsewhere(e)
	}
	p.leases.mu.Unlock()
	st, err := p.Svc.writableStore(ctx)
	if err != nil {
		return store.Lease{}, false, err.Error()
	}
	l, ok, err = st.TakeLease(ctx, ref, p.Instance(), p.leaseTTL())
	switch {
	case err != nil:
		return store.Lease{}, false, fmt.Sprintf("could not take the item's lease: %v", err)
	case !ok:
		p.leases.mu.Lock()
		if p.leases.elsewhere == nil {
			p.leases.elsewhere = map[string]store.Lease{}
		}
		p.leases.elsewhere[ref] = l
		delete(p.leases.held, ref)
		p.leases.mu.Unlock()
		return l, false, elsewhere(l)
	}
	p.leases.mu.Lock()
	if p.leases.held == nil {
		p.leases.held = map[string]store.Lease{}
	}
	delete(p.leases.elsewhere, ref)
	p.leases.held[ref] = l
	if l.TakenOver {
		p.leases.tookOver = true
	}
	p.leases.mu.Unlock()
	if l.TakenOver {
		p.log().Info("took over an item whose poller is gone", "ref", ref, "from", l.From, "fence", l.Fence)
	}
	return l, true, ""
}

func elsewhere(l store.Lease) string {
	return fmt.Sprintf("worked by poller %s (its lease runs until %s)", l.Owner, l.Expires.Format(time.RFC3339))
}

// holds reports whether this poller works the item ref names, taking its
// lease when it is free.
func (p *Poller) holds(ctx context.Context, ref string) bool {
	if ref == "" {
		return true
	}
	_, ok, _ := p.takeItem(ctx, ref)
	return ok
}

// fenceItem makes every write about repo's item id check l, and records a
// takeover in the item's event log once.
func (p *Poller) fenceItem(ctx context.Context, repo, id string, l store.Lease) {
	st, err := p.Svc.writableStore(ctx)
	if err != nil || l.Key == "" {
		return
	}
	st.Fence(repo, id, l)
	if !l.TakenOver {
		return
	}
	data, _ := json.Marshal(map[string]any{"from": l.From, "by": l.Owner, "fence": l.Fence})
	if err := st.AppendEvents(ctx, repo, id, []store.Event{{Name: "lease.taken_over", Data: data}}); err != nil {
		p.log().Warn("could not record a takeover", "workItem", id, "err", err)
	}
	p.leases.mu.Lock()
	if h, ok := p.leases.held[l.Key]; ok && h.Fence == l.Fence {
		h.TakenOver = false // recorded once
		p.leases.held[l.Key] = h
	}
	p.leases.mu.Unlock()
}

// forgetLease drops what this poller remembers of ref's lease after a
// write was refused for a stale fence: the next cycle asks the store.
func (p *Poller) forgetLease(ref string) {
	p.leases.mu.Lock()
	delete(p.leases.held, ref)
	p.leases.mu.Unlock()
}

// settleFor is the filter of the sessions this poller settles as lost: on
// SQLite (one poller) every one it does not supervise; on PostgreSQL only
// those whose owner holds no live lease (a poller that is gone), never
// another live poller's.
func (p *Poller) settleFor(ctx context.Context) (func(store.Session) bool, error) {
	st, err := p.Svc.writableStore(ctx)
	if err != nil {
		return nil, err
	}
	if !st.Postgres() {
		return nil, nil
	}
	live, err := st.LiveOwners(ctx)
	if err != nil {
		return nil, err
	}
	me := p.Instance()
	return func(s store.Session) bool { return s.Owner == "" || s.Owner == me || !live[s.Owner] }, nil
}

// takeoverPending reports (and clears) a takeover this cycle made.
func (p *Poller) takeoverPending() bool {
	p.leases.mu.Lock()
	defer p.leases.mu.Unlock()
	t := p.leases.tookOver
	p.leases.tookOver = false
	return t
}
