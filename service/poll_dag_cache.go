package service

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/relations"
)

// relationCache keeps the poller's reads of GitHub relations from one cycle
// to the next (docs/dag.md, "What the poller reads"). A ticket is read
// again when it may have changed:
//
//   - the issue listing of its repository (which the cycle reads anyway)
//     shows it changed: its updated time moved, it appeared, or it left the
//     open issues — and then every kept read that names it is read again
//     too;
//   - it is in a repository no polling source lists (another repository,
//     another host's reference is never kept): read every cycle;
//   - dag.fullReadMinutes passed since its last read, whatever the listing
//     says.
//
// Everything due is read together, in one GraphQL query per hundred
// tickets. A read that failed is kept for the cycle only. Reads no item
// asked for in the last cycle are dropped.
type relationCache struct {
	rr      integrations.RelationBatchReader
	host    string
	recheck time.Duration
	now     func() time.Time
	log     func() *slog.Logger

	mu      sync.Mutex
	cycle   int
	entries map[string]*relEntry
	// listed is each listed repository's last listing: ticket key ->
	// updated time, by lower-case OWNER/REPO.
	listed   map[string]map[string]time.Time
	fallback string
}

type relEntry struct {
	rel     integrations.Relations
	err     error
	readAt  time.Time
	cycle   int      // the cycle of the read
	stale   bool     // a listing showed it may have changed
	used    int      // the last cycle that asked for it
	repo    string   // lower-case OWNER/REPO ("" for another host)
	related []string // keys of the tickets the read names
}

func newRelationCache(rr integrations.RelationBatchReader, host string, recheck time.Duration, now func() time.Time, log func() *slog.Logger) *relationCache {
	return &relationCache{rr: rr, host: host, recheck: recheck, now: now, log: log,
		entries: map[string]*relEntry{}, listed: map[string]map[string]time.Time{}}
}

// begin starts a cycle: reads no item asked for in the last one, and
// failures, are dropped.
func (c *relationCache) begin(recheck time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recheck = recheck
	for k, e := range c.entries {
		if e.used < c.cycle || e.err != nil {
			delete(c.entries, k)
		}
	}
	c.cycle++
}

// key is the cache's key of a GitHub ref (its host made the configured one
// when it names none).
func (c *relationCache) key(ref integrations.Ref) string {
	if ref.Host == "" {
		ref.Host = c.host
	}
	return relations.Key(ref)
}

// repoOf is ref's lower-case OWNER/REPO on the configured host, else "".
func (c *relationCache) repoOf(ref integrations.Ref) string {
	if ref.Host != "" && !strings.EqualFold(ref.Host, c.host) {
		return ""
	}
	return strings.ToLower(ref.Owner + "/" + ref.Repo)
}

// listedRepo notes a complete listing of the open issues of OWNER/REPO and
// marks stale every kept read it shows may have changed. The first listing
// of a repository marks every read of it: they were made before there was
// a listing to compare with.
func (c *relationCache) listedRepo(container string, issues []integrations.Issue) {
	owner, repo, ok := strings.Cut(container, "/")
	if !ok {
		return
	}
	now := make(map[string]time.Time, len(issues))
	for _, is := range issues {
		n := is.Number
		if n == 0 {
			n = is.Ref.Number
		}
		now[c.key(integrations.Ref{System: "github", Owner: owner, Repo: repo, Number: n})] = is.UpdatedAt
	}
	name := strings.ToLower(container)
	c.mu.Lock()
	defer c.mu.Unlock()
	prev, had := c.listed[name]
	c.listed[name] = now
	changed := map[string]bool{}
	for k, at := range now {
		if was, ok := prev[k]; !ok || !was.Equal(at) {
			changed[k] = true
		}
	}
	for k := range prev {
		if _, ok := now[k]; !ok {
			changed[k] = true
		}
	}
	for k, e := range c.entries {
		if (!had && e.repo == name) || changed[k] || namesAny(e.related, changed) {
			e.stale = true
		}
	}
}

func namesAny(keys []string, set map[string]bool) bool {
	for _, k := range keys {
		if set[k] {
			return true
		}
	}
	return false
}

// fresh reports whether e answers this cycle, under c.mu.
func (c *relationCache) fresh(e *relEntry) bool {
	switch {
	case e == nil || e.stale:
		return false
	case e.cycle == c.cycle:
		return true
	case e.err != nil:
		return false
	}
	_, listed := c.listed[e.repo]
	return listed && c.now().Sub(e.readAt) < c.recheck
}

// ReadRelations answers from the kept read of ref, reading it (with every
// other read due) when it is not fresh.
func (c *relationCache) ReadRelations(ctx context.Context, ref integrations.Ref) (integrations.Relations, error) {
	k := c.key(ref)
	c.mu.Lock()
	e := c.entries[k]
	ok := c.fresh(e)
	c.mu.Unlock()
	if !ok {
		c.Prefetch(ctx, []integrations.Ref{ref})
		c.mu.Lock()
		e = c.entries[k]
		c.mu.Unlock()
		if e == nil { // the read was cancelled
			if err := context.Cause(ctx); err != nil {
				return integrations.Relations{}, err
			}
			return c.rr.ReadRelations(ctx, ref)
		}
	}
	c.mu.Lock()
	e.used = c.cycle
	c.mu.Unlock()
	return copyRelations(e.rel), e.err
}

// Prefetch reads, in one batch, the refs whose kept read is not fresh and
// every other kept read that is due.
func (c *relationCache) Prefetch(ctx context.Context, refs []integrations.Ref) {
	c.mu.Lock()
	var due []integrations.Ref
	asked := map[string]bool{}
	for _, ref := range refs {
		k := c.key(ref)
		if asked[k] || c.fresh(c.entries[k]) {
			continue
		}
		asked[k] = true
		due = append(due, ref)
	}
	if len(due) > 0 {
		for k, e := range c.entries {
			if !asked[k] && !c.fresh(e) && e.err == nil {
				asked[k] = true
				due = append(due, e.rel.Item.Ref)
			}
		}
	}
	c.mu.Unlock()
	if len(due) == 0 {
		return
	}
	got := c.rr.ReadRelationsBatch(ctx, due)
	if got.Fallback != "" && got.Fallback != c.fallback {
		c.log().Warn("github "+hostOrDotCom(c.host)+": relations are read one issue at a time over REST: "+got.Fallback, "issues", len(due))
	}
	if ctx.Err() != nil {
		return
	}
	at := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fallback = got.Fallback
	for i, r := range got.Reads {
		if i >= len(due) {
			break
		}
		e := &relEntry{rel: r.Relations, err: r.Err, readAt: at, cycle: c.cycle, repo: c.repoOf(due[i])}
		if old := c.entries[c.key(due[i])]; old != nil {
			e.used = old.used
		}
		for _, list := range [][]integrations.Related{r.Relations.Children, r.Relations.BlockedBy, r.Relations.Blocking} {
			for _, rel := range list {
				e.related = append(e.related, c.key(rel.Ref))
			}
		}
		if p := r.Relations.Parent; p != nil {
			e.related = append(e.related, c.key(p.Ref))
		}
		c.entries[c.key(due[i])] = e
	}
}

func hostOrDotCom(host string) string {
	if host == "" {
		return "github.com"
	}
	return host
}

// relationsFor is the GitHub reader of this cycle: the kept reads when the
// provider reads in batches, else a read of each ticket once per cycle.
func (p *Poller) relationsFor(rr integrations.RelationReader, host string) integrations.RelationReader {
	br, ok := rr.(integrations.RelationBatchReader)
	if !ok {
		p.rels = nil
		return onceEach(rr)
	}
	recheck := p.Svc.cfg.DAG.FullReadInterval()
	if p.rels == nil || p.rels.rr != br || p.rels.host != host {
		p.rels = newRelationCache(br, host, recheck, p.Svc.now, p.log)
	}
	p.rels.begin(recheck)
	return p.rels
}

// listedForDependencies hands a complete listing of a GitHub repository's
// open issues to the kept relation reads.
func (p *Poller) listedForDependencies(system, container string, issues []integrations.Issue) {
	if system == "github" && p.rels != nil && p.deps.seen != nil {
		p.rels.listedRepo(container, issues)
	}
}

// batchOnce is a GitHub reader for one collection: the tickets of each
// level of the graph read in one batch when the provider reads in batches.
func (s *Service) batchOnce(rr integrations.RelationReader, host string) integrations.RelationReader {
	br, ok := rr.(integrations.RelationBatchReader)
	if !ok {
		return rr
	}
	c := newRelationCache(br, host, 0, s.now, s.log)
	c.begin(0)
	return c
}
