package service

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/store"
)

// ReadyRecheck is how long a node parked on ready-to-ship waits, with
// nothing moving on its pull requests, before the poller evaluates it
// again: resolving a review thread moves nothing GitHub lists.
const ReadyRecheck = 5 * time.Minute

// pullWatch is what the poller remembers about pull requests: what it saw
// of each (head, updated time, checks verdict), the work items their events
// touched in the current cycle, when each parked item was last evaluated,
// and the cycle's index of linked pull requests.
type pullWatch struct {
	// comments are the open pull requests' conversations, listed again
	// only when a pull request moved.
	comments  commentMemo
	mu        sync.Mutex
	seen      map[string]pullSeen
	touched   map[string]bool
	evaluated map[string]time.Time
	// parkedAt marks the park the item's record held at that evaluation
	// (parkMark): another one is a new park (a session's claim).
	parkedAt map[string]string
	index    *pullIndex
}

type pullSeen struct {
	head    string
	updated time.Time
	checks  integrations.ChecksVerdict
}

// pullOwner is a work item a pull request is linked to: the checkout of
// the source that watches it, the container its tree is kept under ("" when
// it lives in the checkout) and the repository it lives in (its tree, or
// the checkout).
type pullOwner struct {
	checkout  string
	container string
	repo      string
	id        string
	ref       string
	link      runtime.PullRequestLink
}

// indexedItem is a started work item of a checkout, as the store has it.
type indexedItem struct {
	checkout  string
	container string
	repo      string
	id, ref   string
	terminal  bool
}

// pullIndex is every linked pull request and started item of the polled
// checkouts, read from the store once per cycle.
type pullIndex struct {
	byPull map[string][]pullOwner // lower(OWNER/REPO#N)
	items  []indexedItem
}

func pullKey(repo string, n int) string { return strings.ToLower(fmt.Sprintf("%s#%d", repo, n)) }

func itemKey(checkout, id string) string { return checkout + "\x00" + id }

// reset starts a cycle: the index is read again and nothing is touched.
func (w *pullWatch) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.index, w.touched = nil, map[string]bool{}
}

func (w *pullWatch) touch(checkout, id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.touched == nil {
		w.touched = map[string]bool{}
	}
	w.touched[itemKey(checkout, id)] = true
}

func (w *pullWatch) get(key string) (pullSeen, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.seen[key]
	return s, ok
}

func (w *pullWatch) put(key string, s pullSeen) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen == nil {
		w.seen = map[string]pullSeen{}
	}
	w.seen[key] = s
}

// due says whether a node parked outside the agent's hands (on the inner
// loops or on ready-to-ship) is evaluated this cycle: one waiting on the
// inner loops always (it reads the disk); one waiting on ready-to-ship
// when its pull requests' events touched the item, when it was parked
// anew since it was last evaluated (a session's claim parks it, and a
// waiting evaluation commits nothing that would move its pull request:
// its park differs from the one the last evaluation saw),
// or ReadyRecheck after it was last evaluated.
// It records the evaluation: ask once per item and cycle.
func (w *pullWatch) due(checkout, id string, n *runtime.Node, st *runtime.State, now time.Time) bool {
	if n == nil || st.Parked == nil || st.Parked.Node != n.ID {
		return false
	}
	if hasExitHook(n, "await-inner-loops") {
		return true
	}
	if !hasExitHook(n, "ready-to-ship") {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	k := itemKey(checkout, id)
	if last, ok := w.evaluated[k]; ok && !w.touched[k] && now.Sub(last) < ReadyRecheck && w.parkedAt[k] == parkMark(st) {
		return false
	}
	w.noteRead(k, st, now)
	return true
}

// read notes that the item's node, whose state is st, was read now.
func (w *pullWatch) read(checkout, id string, st *runtime.State, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.noteRead(itemKey(checkout, id), st, now)
}

// noteRead records an evaluation of key at now (under w.mu).
func (w *pullWatch) noteRead(k string, st *runtime.State, now time.Time) {
	if w.evaluated == nil {
		w.evaluated = map[string]time.Time{}
	}
	if w.parkedAt == nil {
		w.parkedAt = map[string]string{}
	}
	w.evaluated[k] = now
	w.parkedAt[k] = parkMark(st)
}

// parkMark tells one park of st from another: its node, the visit, when
// and why ("" when st is not parked).
func parkMark(st *runtime.State) string {
	if st == nil || st.Parked == nil {
		return ""
	}
	entries := 0
	if rec := st.Nodes[st.Parked.Node]; rec != nil {
		entries = rec.Entries
	}
	return fmt.Sprintf("%s\x00%d\x00%s\x00%s", st.Parked.Node, entries, st.Parked.Since, st.Parked.Reason)
}

func hasExitHook(n *runtime.Node, hook string) bool {
	for _, e := range n.Exit {
		if e.Hook == hook {
			return true
		}
	}
	return false
}

// pullIndexFor returns the cycle's index, reading it on first use.
func (p *Poller) pullIndexFor(ctx context.Context) *pullIndex {
	p.pulls.mu.Lock()
	idx := p.pulls.index
	p.pulls.mu.Unlock()
	if idx != nil {
		return idx
	}
	idx = &pullIndex{byPull: map[string][]pullOwner{}}
	containers := map[string][]string{}
	var checkouts []string
	for _, src := range p.Sources {
		if src.Checkout == "" {
			continue
		}
		if _, ok := containers[src.Checkout]; !ok {
			checkouts = append(checkouts, src.Checkout)
		}
		cs := src.Repos
		if src.System == "jira" {
			cs = src.Projects
		}
		containers[src.Checkout] = append(containers[src.Checkout], cs...)
	}
	for _, checkout := range checkouts {
		if err := p.indexCheckout(ctx, checkout, containers[checkout], idx); err != nil {
			p.log().Warn("could not read the linked pull requests", "checkout", checkout, "err", err)
		}
	}
	p.pulls.mu.Lock()
	p.pulls.index = idx
	p.pulls.mu.Unlock()
	return idx
}

// indexCheckout adds the started items of checkout — those living in it,
// and those living in the working trees of its containers — and their
// linked pull requests to idx.
func (p *Poller) indexCheckout(ctx context.Context, checkout string, containers []string, idx *pullIndex) error {
	st, release, err := p.Svc.readStore(ctx)
	if err != nil {
		return err
	}
	defer release()
	if st == nil {
		return nil // no store yet: nothing is started
	}
	type place struct{ dir, container string }
	places := []place{{dir: checkout}}
	if t := p.Svc.deps.Trees; t != nil {
		for _, c := range containers {
			for _, d := range t.Dirs(c) {
				places = append(places, place{dir: d, container: c})
			}
		}
	}
	for _, pl := range places {
		repo, err := p.Svc.openItemRepo(ctx, pl.dir)
		if err != nil {
			if pl.dir == checkout {
				return err
			}
			continue // a tree being created or removed
		}
		items, err := p.storedStates(ctx, st, repo)
		if err != nil {
			return err
		}
		for _, it := range items {
			if strings.Contains(it.ID, "/") || it.CurrentNode == "" {
				continue // an inner loop, or an item not started
			}
			state, err := runtime.ParseState(it.State, it.ID)
			if err != nil {
				continue
			}
			g, _, err := loopFor(state)
			if err != nil {
				continue
			}
			n, ok := g.Node(state.CurrentNode)
			idx.items = append(idx.items, indexedItem{checkout: checkout, container: pl.container, repo: repo.Root, id: it.ID, ref: state.Ref, terminal: ok && n.Terminal})
			for _, l := range state.PullRequests {
				k := pullKey(l.Repo, l.Number)
				idx.byPull[k] = append(idx.byPull[k], pullOwner{checkout: checkout, container: pl.container, repo: repo.Root, id: it.ID, ref: state.Ref, link: *l})
			}
		}
	}
	return nil
}

// storedStates are the stored states of repo's items: the cycle's one read
// of them when there is one (the index is made as the cycle begins), else
// a read of the store.
func (p *Poller) storedStates(ctx context.Context, st *store.Store, repo *repoconfig.Repo) ([]store.ItemState, error) {
	if rs := cycleOf(ctx).read(ctx, st, repo); rs != nil {
		return rs.items, nil
	}
	return st.States(ctx, repo.Root)
}
