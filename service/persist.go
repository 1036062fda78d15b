package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

// persister keeps state in the SQLite store (authoritative cache) and writes
// the portable record beside the artifacts on every save.
type persister struct {
	st   *store.Store // nil: portable record only (read-only callers)
	repo *Repo
	// adopt vets a state taken from the portable record when the store has
	// none: that file is agent-writable, so its pointer is not trusted.
	adopt func(ctx context.Context, st *runtime.State) []runtime.EventRecord
}

func (p *persister) key() string { return p.repo.Root }

// loadState returns the state of id from the store, else the portable record
// (current or legacy name), else a fresh state, with warnings.
func (p *persister) loadState(ctx context.Context, id string) (*runtime.State, []string, error) {
	var warns []string
	if p.st != nil {
		blob, ok, err := p.st.StateBlob(ctx, p.key(), id)
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
	s, _, err := runtime.ReadPortable(p.repo.SpecDir(id), id)
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

// Load implements runtime.Persister.
func (p *persister) Load(ctx context.Context, id string) (*runtime.State, []string, error) {
	return p.loadState(ctx, id)
}

// Update implements runtime.Persister: one write transaction per call; the
// portable record is written inside it, so records land in commit order.
func (p *persister) Update(ctx context.Context, id string, fn func(st *runtime.State) ([]runtime.EventRecord, error)) error {
	if p.st == nil {
		return fmt.Errorf("no state store is open; a read-only command cannot change state")
	}
	return p.st.Update(ctx, p.key(), id, func(cur *store.WorkItem) (*store.WorkItem, []store.Event, error) {
		var s *runtime.State
		if cur != nil {
			parsed, err := runtime.ParseState(cur.State, id)
			if err != nil {
				return nil, nil, fmt.Errorf("stored state of %s is unreadable: %w", id, err)
			}
			s = parsed
		} else {
			loaded, _, err := p.loadState(ctx, id)
			if err != nil {
				return nil, nil, err
			}
			s = loaded
		}
		var adopted []runtime.EventRecord
		if cur == nil && s.CurrentNode != "" && p.adopt != nil {
			adopted = p.adopt(ctx, s)
		}
		evs, err := fn(s)
		evs = append(adopted, evs...)
		if err != nil {
			return nil, nil, err
		}
		blob, err := s.Marshal()
		if err != nil {
			return nil, nil, fmt.Errorf("encode state of %s: %w", id, err)
		}
		item := &store.WorkItem{Repo: p.key(), ID: id, Loop: s.Loop, CurrentNode: s.CurrentNode, State: blob}
		for node, rec := range s.Nodes {
			item.Nodes = append(item.Nodes, store.NodeRow{Node: node, Attempts: rec.Attempts, Outcome: rec.Outcome,
				EnteredAt: rec.EnteredAt, ExitedAt: rec.ExitedAt, LastBlock: rec.LastBlock, Forced: rec.Forced})
		}
		sevs, err := toStoreEvents(p.key(), id, evs)
		if err != nil {
			return nil, nil, err
		}
		if err := runtime.WritePortable(p.repo.SpecDir(id), s); err != nil {
			return nil, nil, fmt.Errorf("write the portable record of %s: %w", id, err)
		}
		return item, sevs, nil
	})
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

// Append implements runtime.Persister.
func (p *persister) Append(ctx context.Context, id string, evs []runtime.EventRecord) error {
	if p.st == nil {
		return nil
	}
	sevs, err := toStoreEvents(p.key(), id, evs)
	if err != nil {
		return err
	}
	return p.st.AppendEvents(ctx, p.key(), id, sevs)
}

// Events implements runtime.Persister.
func (p *persister) Events(ctx context.Context, id string) ([]runtime.EventRecord, error) {
	if p.st == nil {
		return nil, nil
	}
	evs, err := p.st.Events(ctx, p.key(), id)
	if err != nil {
		return nil, err
	}
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
	return out, nil
}
