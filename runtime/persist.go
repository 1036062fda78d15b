package runtime

import (
	"context"
	"sync"
)

// EventRecord is one entry of the append-only event log.
type EventRecord struct {
	Seq  int64          `json:"seq,omitempty"`
	At   string         `json:"at"`
	Name string         `json:"name"`
	Node string         `json:"node,omitempty"`
	Data map[string]any `json:"data,omitempty"`
}

// Persister loads and saves work-item state. Update must serialise updaters
// of the same work item (across goroutines and processes) and write the state
// and its events atomically.
type Persister interface {
	// Load returns the state of id (a fresh state when none exists) and
	// warnings about what could not be read.
	Load(ctx context.Context, id string) (*State, []string, error)
	// Update loads id, calls fn, and saves the mutated state with the
	// events fn returns in one atomic step. fn returning an error saves
	// nothing.
	Update(ctx context.Context, id string, fn func(st *State) ([]EventRecord, error)) error
	// Append adds events without touching state.
	Append(ctx context.Context, id string, evs []EventRecord) error
	// Events returns id's events in append order.
	Events(ctx context.Context, id string) ([]EventRecord, error)
}

// MemoryPersister keeps state in memory: for dry runs and tests.
type MemoryPersister struct {
	mu     sync.Mutex
	states map[string]*State
	events map[string][]EventRecord
}

// NewMemoryPersister returns an empty in-memory persister.
func NewMemoryPersister() *MemoryPersister {
	return &MemoryPersister{states: map[string]*State{}, events: map[string][]EventRecord{}}
}

// Put seeds the state of id.
func (m *MemoryPersister) Put(id string, st *State) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.states[id] = st.Clone()
}

// Load implements Persister.
func (m *MemoryPersister) Load(_ context.Context, id string) (*State, []string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if st, ok := m.states[id]; ok {
		return st.Clone(), nil, nil
	}
	return NewState(id), nil, nil
}

// Update implements Persister.
func (m *MemoryPersister) Update(_ context.Context, id string, fn func(st *State) ([]EventRecord, error)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := NewState(id)
	if cur, ok := m.states[id]; ok {
		st = cur.Clone()
	}
	evs, err := fn(st)
	if err != nil {
		return err
	}
	m.states[id] = st.Clone()
	m.appendLocked(id, evs)
	return nil
}

// Append implements Persister.
func (m *MemoryPersister) Append(_ context.Context, id string, evs []EventRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.appendLocked(id, evs)
	return nil
}

func (m *MemoryPersister) appendLocked(id string, evs []EventRecord) {
	for _, e := range evs {
		e.Seq = int64(len(m.events[id]) + 1)
		if e.At == "" {
			e.At = Now()
		}
		m.events[id] = append(m.events[id], e)
	}
}

// Events implements Persister.
func (m *MemoryPersister) Events(_ context.Context, id string) ([]EventRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]EventRecord(nil), m.events[id]...), nil
}
