package service

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/store"
)

// A poll cycle reads each repository's config once and the stored states
// of a repository's items in one query, instead of once per item: the
// cycle cache holds both for the cycle it is made for (the poller puts it
// in the cycle's context; nothing else sees it, and it answers nothing
// once the cycle ended).
//
// A stored state is served from the cycle's read only for an item the
// poller trusts it for: one whose lease the poller held, under the same
// fence, since before the cycle began (see Poller.trustCycleRead). Any
// other item — its lease taken this cycle, taken over from a poller that
// is gone, or not leased at all — is read from the store on its own, so a
// state another poller wrote is never missed. A state the cycle itself
// writes is dropped from the cache at once; a tree the cycle syncs is
// opened anew. And a state served from the cache is checked again when
// the item is written (persister.Update): if the stored state moved since
// the cycle's read, the write is refused with errStaleCycleRead and the
// poller works the item again from a fresh read.
type cycleCache struct {
	mu      sync.Mutex
	ended   bool
	repos   map[string]*repoconfig.Repo // by the directory asked for
	states  map[string]*repoStates      // by repository key
	trusted map[[2]string]bool          // (repository dir or key, item id)
	signers map[string]cycleSigner      // by repository key
}

// repoStates is one repository's stored states and spec folders as the
// cycle found them.
type repoStates struct {
	items []store.ItemState // sorted by id
	blobs map[string][]byte // work item (or inner loop) id → state
	stale map[string]bool   // written this cycle: read from the store
	specs map[string]bool   // ids with a spec folder (nil: unknown)
}

type cycleCacheKey struct{}

// withCycleCache returns ctx carrying a fresh cycle cache, and the cache.
func withCycleCache(ctx context.Context) (context.Context, *cycleCache) {
	c := &cycleCache{repos: map[string]*repoconfig.Repo{}, states: map[string]*repoStates{}, trusted: map[[2]string]bool{}}
	return context.WithValue(ctx, cycleCacheKey{}, c), c
}

func cycleOf(ctx context.Context) *cycleCache {
	c, _ := ctx.Value(cycleCacheKey{}).(*cycleCache)
	return c
}

// end closes the cache: from now on it answers nothing, so a context that
// outlives its cycle reads everything afresh.
func (c *cycleCache) end() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	c.repos, c.states, c.trusted, c.signers = nil, nil, nil, nil
}

// repo returns the repository at dir, opened once per cycle.
func (c *cycleCache) repo(dir string, open func(string) (*repoconfig.Repo, error)) (*repoconfig.Repo, error) {
	if c == nil {
		return open(dir)
	}
	c.mu.Lock()
	r, ok := c.repos[dir]
	ended := c.ended
	c.mu.Unlock()
	if ok {
		return r, nil
	}
	r, err := open(dir)
	if err != nil || ended {
		return r, err
	}
	c.mu.Lock()
	if !c.ended {
		c.repos[dir] = r
	}
	c.mu.Unlock()
	return r, nil
}

// cycleSigner is a repository's signer and what reading its keys warned.
type cycleSigner struct {
	signer *runtime.Signer
	warns  []string
}

// signer returns the signer of the repository at root, read once per
// cycle.
func (c *cycleCache) signer(root string, read func() (*runtime.Signer, []string)) (*runtime.Signer, []string) {
	if c == nil {
		return read()
	}
	c.mu.Lock()
	sg, ok := c.signers[root]
	c.mu.Unlock()
	if ok {
		return sg.signer, sg.warns
	}
	sg.signer, sg.warns = read()
	c.mu.Lock()
	if !c.ended {
		if c.signers == nil {
			c.signers = map[string]cycleSigner{}
		}
		c.signers[root] = sg
	}
	c.mu.Unlock()
	return sg.signer, sg.warns
}

// forgetRepo drops what the cycle read of the repository at dir (a tree
// that was just synced may hold another config).
func (c *cycleCache) forgetRepo(dir string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for d, r := range c.repos {
		if d == dir || r.Root == dir {
			delete(c.repos, d)
			delete(c.states, r.Root)
			delete(c.signers, r.Root)
		}
	}
	delete(c.states, dir)
	delete(c.signers, dir)
}

// trust lets the cycle's read of the states answer for item id of the
// repository at dir.
func (c *cycleCache) trust(dir, id string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ended {
		c.trusted[[2]string{dir, id}] = true
	}
}

// untrust ends trust: item id of the repository at dir is read from the
// store from now on.
func (c *cycleCache) untrust(dir, id string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.trusted, [2]string{dir, id})
}

// trusts reports whether the cycle's read answers for item id of the
// repository asked for at dir and rooted at root.
func (c *cycleCache) trusts(dir, root, id string) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.ended && (c.trusted[[2]string{dir, id}] || c.trusted[[2]string{root, id}])
}

// read returns the stored states of repo's items as the cycle's one read
// found them (nil when the cache cannot answer: read the store).
func (c *cycleCache) read(ctx context.Context, st *store.Store, repo *repoconfig.Repo) *repoStates {
	if c == nil || st == nil {
		return nil
	}
	c.mu.Lock()
	rs, ended := c.states[repo.Root], c.ended
	c.mu.Unlock()
	if ended {
		return nil
	}
	if rs != nil {
		return rs
	}
	items, err := st.States(ctx, repo.Root)
	if err != nil {
		return nil // each item reads, and reports, on its own
	}
	rs = &repoStates{items: items, blobs: make(map[string][]byte, len(items)), stale: map[string]bool{}, specs: specFolders(repo)}
	for _, it := range items {
		rs.blobs[it.ID] = it.State
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return nil
	}
	if have := c.states[repo.Root]; have != nil {
		return have
	}
	c.states[repo.Root] = rs
	return rs
}

// state is the stored state of repo's item id as the cycle's one read of
// the repository found it: found reports a stored state, known that the
// cache can answer at all (false: read the store); noRecord that id has no
// spec folder, so it has no portable record either.
func (c *cycleCache) state(ctx context.Context, st *store.Store, repo *repoconfig.Repo, id string) (blob []byte, found, noRecord, known bool) {
	rs := c.read(ctx, st, repo)
	if rs == nil {
		return nil, false, false, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if rs.stale[id] {
		return nil, false, false, false
	}
	blob, found = rs.blobs[id]
	noRecord = rs.specs != nil && !rs.specs[id]
	return blob, found, noRecord, true
}

// storedState is the stored state of repo's item id for a read that
// decides nothing about the item itself (where a dependency stands): the
// poll cycle's one read when there is one, else the store.
func storedState(ctx context.Context, st *store.Store, repo *repoconfig.Repo, id string) ([]byte, bool, error) {
	if blob, found, _, known := cycleOf(ctx).state(ctx, st, repo, id); known {
		return blob, found, nil
	}
	return st.StateBlob(ctx, repo.Root, id)
}

// forget marks repo's item id as written this cycle: it is read from the
// store from now on.
func (c *cycleCache) forget(repoKey, id string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if rs := c.states[repoKey]; rs != nil {
		rs.stale[id] = true
	}
}

// specFolders lists the spec folders of repo once (nil when the listing
// fails: then every item's record is looked for).
func specFolders(repo *repoconfig.Repo) map[string]bool {
	entries, err := os.ReadDir(filepath.Join(repo.Root, filepath.FromSlash(repo.SpecRoot)))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}
	}
	if err != nil {
		return nil
	}
	out := make(map[string]bool, len(entries))
	for _, e := range entries {
		out[e.Name()] = true
	}
	return out
}
