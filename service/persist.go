package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/store"
)

// persister keeps state in the SQLite store (authoritative cache) and
// publishes the portable record beside the artifacts after every commit.
type persister struct {
	st   *store.Store // nil: portable record only (read-only callers)
	repo *repoconfig.Repo
	// adopt vets a state taken from the portable record when the store has
	// none: that file is agent-writable, so its pointer is not trusted.
	adopt func(ctx context.Context, st *runtime.State) []runtime.EventRecord
	// log receives a portable record that could not be written (nil: the
	// default logger).
	log *slog.Logger
	// sub, when set, is an inner loop's folder under the work item's spec
	// folder (pr-loops/pr-7): its state is stored under the item's id and
	// sub, and its portable record lives in that folder.
	sub string
	// cache is the poll cycle's one read of the repository's states (nil
	// outside a cycle, or for an item the cycle does not trust it for).
	cache *cycleCache
	// reads holds, by item key, what Load took from the cycle's read (none:
	// it read the store): the item's first Update checks the store still
	// holds it. One persister may load several items at once (check --all).
	readsMu sync.Mutex
	reads   map[string]*cachedRead
}

// setRead records (nil: forgets) what Load took from the cycle's read for
// key.
func (p *persister) setRead(key string, r *cachedRead) {
	p.readsMu.Lock()
	defer p.readsMu.Unlock()
	if r == nil {
		delete(p.reads, key)
		return
	}
	if p.reads == nil {
		p.reads = map[string]*cachedRead{}
	}
	p.reads[key] = r
}

// takeRead returns and forgets what Load took from the cycle's read for key.
func (p *persister) takeRead(key string) *cachedRead {
	p.readsMu.Lock()
	defer p.readsMu.Unlock()
	r := p.reads[key]
	delete(p.reads, key)
	return r
}

// cachedRead is a state as a poll cycle's one read of the store gave it.
type cachedRead struct {
	blob  []byte
	found bool
}

// errStaleCycleRead refuses a write about an item whose stored state moved
// after the poll cycle read it: the poller works the item again from a
// fresh read.
var errStaleCycleRead = errors.New("the item's stored state changed after this poll cycle read it; it is read again")

func (p *persister) key() string { return p.repo.Root }

// itemKey is the store id of id's state: the id, or id/sub for an inner
// loop.
func (p *persister) itemKey(id string) string {
	if p.sub == "" {
		return id
	}
	return id + "/" + p.sub
}

// recordDir is the folder of id's portable record.
func (p *persister) recordDir(id string) string {
	if p.sub == "" {
		return p.repo.SpecDir(id)
	}
	return filepath.Join(p.repo.SpecDir(id), filepath.FromSlash(p.sub))
}

// loadState returns the state of id from the store, else the portable record
// (current or legacy name), else a fresh state, with warnings.
func (p *persister) loadState(ctx context.Context, id string, cycle *cycleCache) (*runtime.State, []string, error) {
	var warns []string
	if p.st != nil {
		blob, ok, noRecord, known := cycle.state(ctx, p.st, p.repo, p.itemKey(id))
		if known {
			p.setRead(p.itemKey(id), &cachedRead{blob: blob, found: ok})
			if !ok && noRecord && p.sub == "" {
				return runtime.NewState(id), nil, nil // neither stored nor recorded: a fresh item
			}
		}
		var err error
		if !known {
			blob, ok, err = p.st.StateBlob(ctx, p.key(), p.itemKey(id))
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read state of %s from %s: %w", id, p.st.Path(), err)
		}
		if ok {
			s, err := runtime.ParseState(blob, id)
			if err == nil {
				return s, nil, nil
			}
			warns = append(warns, fmt.Sprintf("%s: the stored state in %s is unreadable (%v); falling back to the portable record", id, p.st.Path(), err))
		}
	}
	s, _, err := readPortable(p.recordDir(id), id)
	switch {
	case errors.Is(err, runtime.ErrCorruptState):
		warns = append(warns, "warning: "+err.Error())
		return runtime.NewState(id), warns, nil
	case err != nil:
		return nil, warns, err
	case s == nil:
		return runtime.NewState(id), warns, nil
	}
	return s, warns, nil
}

// readPortable reads the portable record of id from specDir (the current
// name, then the legacy one): nil when there is none, an error wrapping
// runtime.ErrCorruptState when it cannot be used (the file is kept).
func readPortable(specDir, id string) (*runtime.State, string, error) {
	data, path, err := store.ReadPortable(specDir, runtime.StateFile, runtime.LegacyStateFile)
	switch {
	case errors.Is(err, store.ErrNotRegular):
		return nil, path, fmt.Errorf("%w: %s is not a regular file (kept as is; state is reconstructed from the artifacts)", runtime.ErrCorruptState, path)
	case err != nil || data == nil:
		return nil, path, err
	}
	st, err := runtime.ParseState(data, id)
	if err != nil {
		return nil, path, fmt.Errorf("%w: %s: %v (kept as is; state is reconstructed from the artifacts)", runtime.ErrCorruptState, path, err)
	}
	return st, path, nil
}

// Load implements runtime.Persister.
func (p *persister) Load(ctx context.Context, id string) (*runtime.State, []string, error) {
	p.setRead(p.itemKey(id), nil)
	return p.loadState(ctx, id, p.cache)
}

// Update implements runtime.Persister: one write transaction per call. The
// portable record is published only after the transaction committed (see
// publish), so a failed commit never leaves a record the store did not
// keep. A call that changes nothing (a gate still waiting for the same
// reason) writes nothing.
func (p *persister) Update(ctx context.Context, id string, fn func(st *runtime.State) ([]runtime.EventRecord, error)) error {
	if p.st == nil {
		return fmt.Errorf("no state store is open; a read-only command cannot change state")
	}
	read := p.takeRead(p.itemKey(id)) // checked once: later updates follow this one's own write
	err := p.st.Update(ctx, p.key(), p.itemKey(id), func(cur *store.WorkItem) (*store.WorkItem, []store.Event, error) {
		if read != nil && (read.found != (cur != nil) || (cur != nil && !bytes.Equal(read.blob, cur.State))) {
			return nil, nil, fmt.Errorf("update %s: %w", id, errStaleCycleRead)
		}
		var s *runtime.State
		if cur != nil {
			parsed, err := runtime.ParseState(cur.State, id)
			if err != nil {
				return nil, nil, fmt.Errorf("stored state of %s is unreadable: %w", id, err)
			}
			s = parsed
		} else {
			loaded, _, err := p.loadState(ctx, id, nil) // the store has none: the portable record as it is now
			if err != nil {
				return nil, nil, err
			}
			s = loaded
		}
		var adopted []runtime.EventRecord
		if cur == nil && s.CurrentNode != "" && p.adopt != nil {
			adopted = p.adopt(ctx, s)
		}
		visit := visitOf(s)
		evs, err := fn(s)
		if err != nil {
			return nil, nil, err
		}
		evs = visit.fold(s, append(adopted, evs...))
		blob, err := s.Marshal()
		if err != nil {
			return nil, nil, fmt.Errorf("encode state of %s: %w", id, err)
		}
		if cur != nil && len(evs) == 0 && bytes.Equal(blob, cur.State) {
			return nil, nil, nil // nothing changed: no write, no event
		}
		item := &store.WorkItem{Repo: p.key(), ID: p.itemKey(id), Loop: s.Loop, CurrentNode: s.CurrentNode, State: blob}
		for node, rec := range s.Nodes {
			item.Nodes = append(item.Nodes, store.NodeRow{Node: node, Attempts: rec.Attempts, Outcome: rec.Outcome,
				EnteredAt: rec.EnteredAt, ExitedAt: rec.ExitedAt, LastBlock: rec.LastBlock, Forced: rec.Forced})
		}
		sevs, err := toStoreEvents(p.key(), p.itemKey(id), evs)
		if err != nil {
			return nil, nil, err
		}
		return item, sevs, nil
	})
	p.cache.forget(p.key(), p.itemKey(id)) // read it from the store next time, written or not
	if err != nil {
		return err
	}
	p.publish(ctx, id)
	return nil
}

// publish writes the committed state of id as the portable record. It runs
// under the store's write lock, so records land in commit order even when
// several processes update one item, and it rewrites the file only when it
// differs from the committed state. A failure is logged, not returned: the
// update is committed, the store is the authority, and the next update
// writes the record again.
func (p *persister) publish(ctx context.Context, id string) {
	path := filepath.Join(p.recordDir(id), runtime.StateFile)
	err := p.st.Hold(ctx, p.key(), p.itemKey(id), func(cur *store.WorkItem) error {
		if cur == nil || len(cur.State) == 0 {
			return nil
		}
		return store.WritePortable(p.repo.Root, path, cur.State)
	})
	if err != nil {
		p.logger().Warn("the state is recorded in the store, but the portable record could not be written; the next update writes it again",
			"workItem", id, "path", path, "err", err)
	}
}

func (p *persister) logger() *slog.Logger {
	if p.log != nil {
		return p.log
	}
	return slog.Default()
}

// visitName names a node's current visit: its count of entries and when
// the last began. The time alone has a resolution of one second, and a
// gate can send the work back within the second the node was entered.
func visitName(rec *runtime.NodeRecord) string {
	return fmt.Sprintf("%d@%s", rec.Entries, rec.LastEnteredAt)
}

// visit is what a state said about its parked wait before an update.
type visit struct {
	parked *runtime.Parked
	name   string // the parked node's visit (visitName)
}

func visitOf(s *runtime.State) visit {
	if s.Parked == nil {
		return visit{}
	}
	v := visit{parked: &runtime.Parked{Node: s.Parked.Node, Reason: s.Parked.Reason, Since: s.Parked.Since}}
	if rec, ok := s.Nodes[s.Parked.Node]; ok && rec != nil {
		v.name = visitName(rec)
	}
	return v
}

// fold drops a graph.parked event that repeats the wait the item was
// already parked on in the same visit of the same node (same reason, node
// not entered again), and keeps that wait's original start time: a gate
// evaluated every poll cycle logs one parked event per visit, not one per
// cycle.
func (v visit) fold(s *runtime.State, evs []runtime.EventRecord) []runtime.EventRecord {
	if v.parked == nil || s.Parked == nil || s.Parked.Node != v.parked.Node || s.Parked.Reason != v.parked.Reason {
		return evs
	}
	if rec, ok := s.Nodes[v.parked.Node]; !ok || rec == nil || visitName(rec) != v.name {
		return evs
	}
	out := evs[:0:0]
	for _, e := range evs {
		if e.Name == "graph.parked" && e.Node == v.parked.Node && fmt.Sprint(e.Data["reason"]) == v.parked.Reason {
			continue
		}
		out = append(out, e)
	}
	s.Parked.Since = v.parked.Since
	return out
}

func toStoreEvents(repo, id string, evs []runtime.EventRecord) ([]store.Event, error) {
	out := make([]store.Event, 0, len(evs))
	for _, e := range evs {
		var data json.RawMessage
		if e.Data != nil {
			b, err := json.Marshal(e.Data)
			if err != nil {
				return nil, fmt.Errorf("encode event %s: %w", e.Name, err)
			}
			data = b
		}
		out = append(out, store.Event{Repo: repo, WorkItem: id, At: e.At, Name: e.Name, Node: e.Node, Data: data})
	}
	return out, nil
}

// appendRaw appends evs to the log of work item id of repo straight in
// the store: repo need not be readable (a tree gone from disk), so the
// poller can say why an item it cannot open is stuck.
func (s *Service) appendRaw(ctx context.Context, repo, id string, evs []runtime.EventRecord) error {
	st, err := s.writableStore(ctx)
	if err != nil {
		return err
	}
	sevs, err := toStoreEvents(repo, id, evs)
	if err != nil {
		return err
	}
	return st.AppendEvents(ctx, repo, id, sevs)
}

// eventsRaw reads the log of work item id of repo straight from the store.
func (s *Service) eventsRaw(ctx context.Context, repo, id string) ([]runtime.EventRecord, error) {
	st, err := s.writableStore(ctx)
	if err != nil {
		return nil, err
	}
	return (&persister{st: st, repo: &repoconfig.Repo{Root: repo}}).Events(ctx, id)
}

// Append implements runtime.Persister.
func (p *persister) Append(ctx context.Context, id string, evs []runtime.EventRecord) error {
	if p.st == nil {
		return nil
	}
	sevs, err := toStoreEvents(p.key(), p.itemKey(id), evs)
	if err != nil {
		return err
	}
	return p.st.AppendEvents(ctx, p.key(), p.itemKey(id), sevs)
}

// Events implements runtime.Persister.
func (p *persister) Events(ctx context.Context, id string) ([]runtime.EventRecord, error) {
	if p.st == nil {
		return nil, nil
	}
	evs, err := p.st.Events(ctx, p.key(), p.itemKey(id))
	if err != nil {
		return nil, err
	}
	return eventRecords(evs), nil
}

// eventRecords reads stored events as the engine's records.
func eventRecords(evs []store.Event) []runtime.EventRecord {
	out := make([]runtime.EventRecord, 0, len(evs))
	for _, e := range evs {
		r := runtime.EventRecord{Seq: e.Seq, At: e.At, Name: e.Name, Node: e.Node}
		if len(e.Data) > 0 {
			if err := json.Unmarshal(e.Data, &r.Data); err != nil {
				r.Data = map[string]any{"raw": string(e.Data)}
			}
		}
		out = append(out, r)
	}
	return out
}
