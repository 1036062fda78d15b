package service

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/the-loop/the-loop/internal/filestamp"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/store"
)

// A long-running process (the MCP and web servers) is asked to check the
// same item again and again while nothing changes. checkMemo keeps the
// last report of each single-item check with the stamps (filestamp) of
// everything that report was computed from, taken before anything was
// read: the item's spec folder, the repository's .the-loop folder (its
// config and committed keys) and the state store's files (any process's
// write lands there). A check whose stamps all still hold answers from
// the memo; anything else computes afresh. The rest of a check's inputs
// (the service's config, its signer, its clock-free hooks) are fixed for
// the life of the process.
//
// It keeps nothing it cannot vouch for: a PostgreSQL store (no file to
// stamp), --trusted-keys-from (a git ref), a folder with a symbolic link or
// more than memoMaxTree entries, a report in which a hook failed to run, or
// a file changed less than CheckMemoSettle before the stamps were taken (two
// edits within one tick of the file system's clock can look alike).
type checkMemo struct {
	mu      sync.Mutex
	entries map[checkMemoKey]*checkMemoEntry
	hits    atomic.Int64 // checks answered from the memo
	off     bool         // benchmarks of the computation turn it off
}

// CheckMemoSettle is how long before a check every file it reads must
// have last changed for its report to be kept.
const CheckMemoSettle = filestamp.Settle

// memoSettle is CheckMemoSettle; tests shorten it.
var memoSettle = CheckMemoSettle

const (
	// memoMaxTree bounds the entries stamped under one folder.
	memoMaxTree = 512
	// memoMaxEntries bounds the memo; past it an arbitrary entry goes.
	memoMaxEntries = 1024
)

// checkMemoKey is what a check's report depends on besides its stamped
// files: path is the repository as asked (absolute, links unresolved).
type checkMemoKey struct {
	path, id, repository string
	recompute            bool
}

type checkMemoEntry struct {
	root     string // what the key's path resolved to when the report was computed
	stamps   *filestamp.Set
	res      itemResult // res.out is the report's JSON encoding, when known (guarded by checkMemo.mu)
	warnings []string   // the whole call's, repository and signer warnings first
}

// memoCall is one check's use of the memo: its key, and the stamps taken
// before the check read its artifacts under root, or the entry that
// answered it.
type memoCall struct {
	key     checkMemoKey
	root    string
	stamps  *filestamp.Set
	stamped time.Time
	entry   *checkMemoEntry // the entry that answered, on a hit
}

// recall answers key from the memo when its entry's stamps still hold and
// the repository path still resolves to the root the entry was computed
// under: it returns the entry that answered, its answer and warnings, and
// ok. It runs before the repository is opened, so what opening checks
// rests on the resolved root: the same root, the same verdict (the served
// repositories are fixed), and its config is stamped.
func (s *Service) recall(key checkMemoKey, memoize bool) (*checkMemoEntry, itemResult, []string, bool) {
	if !memoize {
		return nil, itemResult{}, nil, false
	}
	return s.memo.lookup(key, s.now())
}

// memoCallFor is the call that keeps the answer computed next for key,
// with the stamps of what it reads taken now; nil when that answer cannot
// be kept.
func (s *Service) memoCallFor(key checkMemoKey, memoize bool, repo *repoconfig.Repo, id string) *memoCall {
	if !memoize {
		return nil
	}
	stamped := time.Now()
	stamps, ok := s.checkStamps(repo, id)
	if !ok {
		return nil
	}
	return &memoCall{key: key, root: repo.Root, stamps: stamps, stamped: stamped}
}

// remembering wraps evaluate so that its answer is kept under call with
// the whole call's warnings (warnings, then the item's), unless a hook
// failed to run under the context it returns. The answer's rendering is
// kept only when it is the report's JSON encoding (encoded).
func (s *Service) remembering(ctx context.Context, call *memoCall, warnings []string, encoded bool, evaluate func(context.Context, string) itemResult) (context.Context, func(context.Context, string) itemResult) {
	ctx, hookFailed := runtime.WatchHookFailures(ctx)
	return ctx, func(ctx context.Context, id string) itemResult {
		r := evaluate(ctx, id)
		kept := r
		if !encoded {
			kept.out = nil // rendered per request
		}
		s.memo.keep(call.key, call.root, call.stamps, call.stamped, kept, append(warnings[:len(warnings):len(warnings)], r.warns...), hookFailed())
		return r
	}
}

// memoKeyFor is req's key, false when req cannot be answered from the
// memo: several items, a git ref's keys, a store that is not a file, or a
// repository path that cannot be made absolute.
func (s *Service) memoKeyFor(req CheckRequest) (checkMemoKey, bool) {
	if req.All || req.TrustedKeysFrom != "" || !filestamp.Supported || store.IsURL(s.deps.Store.Path()) {
		return checkMemoKey{}, false
	}
	path, err := filepath.Abs(s.repoDir(req.Repo))
	if err != nil {
		return checkMemoKey{}, false
	}
	return checkMemoKey{path: path, id: req.WorkItem, repository: req.Repository, recompute: req.Recompute}, true
}

// checkStamps stamps what a check of id reads; false when it cannot all
// be stamped.
func (s *Service) checkStamps(repo *repoconfig.Repo, id string) (*filestamp.Set, bool) {
	var set filestamp.Set
	if !set.AddTree(repo.SpecDir(id), memoMaxTree) || !set.AddTree(filepath.Join(repo.Root, ".the-loop"), memoMaxTree) {
		return nil, false
	}
	// A commit lands in the write-ahead log (the store's mode), or in the
	// database file itself once checkpointed or in rollback mode.
	db := s.deps.Store.Path()
	set.Add(db)
	set.Add(db + "-wal")
	return &set, true
}

// lookup returns the memo's answer to key, and its entry, when its stamps
// still hold. The answer's out is the report's JSON encoding when the
// entry knows it: the age lookup sets is not part of the JSON
// (TestTheJSONOfAReportDoesNotMoveWithTheClock).
func (m *checkMemo) lookup(key checkMemoKey, now time.Time) (*checkMemoEntry, itemResult, []string, bool) {
	if m.off {
		return nil, itemResult{}, nil, false
	}
	m.mu.Lock()
	e := m.entries[key]
	var res itemResult
	if e != nil {
		res = e.res
	}
	m.mu.Unlock()
	if e == nil || !e.stamps.Unchanged() || !filestamp.LeadsTo(key.path, e.root) {
		return nil, itemResult{}, nil, false
	}
	m.hits.Add(1)
	if d := res.rep.Dependencies; d != nil && d.ReadAt != "" {
		// Only the age of the dependency read moves with the clock.
		if at, err := time.Parse(time.RFC3339, d.ReadAt); err == nil {
			dep := *d
			dep.Age = Age(now.Sub(at))
			res.rep.Dependencies = &dep
		}
	}
	return e, res, e.warnings, true
}

// keepEncoding records out, the JSON encoding of e's report, on e while
// e is still key's entry and knows none.
func (m *checkMemo) keepEncoding(key checkMemoKey, e *checkMemoEntry, out []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries[key] == e && e.res.out == nil {
		e.res.out = out
	}
}

// keep records a computed answer, unless a stamped file changed too
// recently (before is when the stamps were taken) or a hook failed.
func (m *checkMemo) keep(key checkMemoKey, root string, stamps *filestamp.Set, before time.Time, res itemResult, warnings []string, hookFailed bool) {
	if m.off || res.err != nil || hookFailed || !stamps.SettledBefore(before.Add(-memoSettle)) {
		m.forget(key)
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries == nil {
		m.entries = map[checkMemoKey]*checkMemoEntry{}
	}
	if _, ok := m.entries[key]; !ok && len(m.entries) >= memoMaxEntries {
		for k := range m.entries {
			delete(m.entries, k)
			break
		}
	}
	m.entries[key] = &checkMemoEntry{root: root, stamps: stamps, res: res, warnings: append([]string(nil), warnings...)}
}

// answer hands a remembered report to emit the way a computed one is,
// rendered by render. When render is the report's JSON encoding
// (encoded), the memo's encoding is used, or the one made now is kept.
func (s *Service) answer(call *memoCall, r itemResult, warnings []string, encoded bool, render func(runtime.Report) ([]byte, error), emit func(runtime.Report, *runtime.Graph, []byte) error) ([]string, error) {
	warnings = append([]string(nil), warnings...)
	if encoded && r.out != nil {
		return warnings, emit(r.rep, r.g, r.out)
	}
	r.out = nil
	if render != nil {
		out, err := render(r.rep)
		if err != nil {
			return warnings, err
		}
		r.out = out
		if encoded {
			s.memo.keepEncoding(call.key, call.entry, out)
		}
	}
	return warnings, emit(r.rep, r.g, r.out)
}

func (m *checkMemo) forget(key checkMemoKey) {
	m.mu.Lock()
	delete(m.entries, key)
	m.mu.Unlock()
}
