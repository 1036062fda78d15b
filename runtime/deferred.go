package runtime

import (
	"context"
	"errors"
	"fmt"
)

// RunPendingEntry runs the entry chain left pending for the item's current
// node: by a deferring runtime (a launched session's server), or by a
// process that died between entering the node and running its chain. The
// mark is cleared once the chain has run, so a death during it leaves the
// chain to the next caller (entry hooks are idempotent: a checklist or
// request already on the ticket is not posted again). It returns the node
// whose chain ran ("" when none was pending) and the chain's degradations.
// A pending entry of a node the item has already left is dropped: its side
// effects would describe a visit that is over.
func (r *Runtime) RunPendingEntry(ctx context.Context, id string) (string, []string, error) {
	if r.DeferEntry {
		return "", nil, errors.New("this runtime defers entry chains; only one holding the ticket integration runs them")
	}
	if err := ValidateID(id); err != nil {
		return "", nil, err
	}
	node := ""
	err := r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		pending := st.EntryPending
		if pending == "" {
			return nil, errNoSave
		}
		if pending != st.CurrentNode {
			st.EntryPending = ""
			return []EventRecord{{Name: "graph.entry_dropped", Node: pending, Data: map[string]any{"current": st.CurrentNode}}}, nil
		}
		node = pending
		return []EventRecord{{Name: "graph.entry_resumed", Node: pending}}, nil
	})
	if err != nil && !errors.Is(err, errNoSave) {
		return "", nil, fmt.Errorf("run the pending entry of %s: %w", id, err)
	}
	if node == "" {
		return "", nil, nil
	}
	return node, r.runEntry(ctx, id, node), nil
}

// Escalate parks the item at the escalated node with reason, the way a
// repeated failure does — so check and graph status show it and the
// escalated node's entry chain notifies — but only while it still stands on
// node: a claim that moved it meanwhile wins. It reports whether it moved.
// A supervisor calls it when an agent node's sessions keep ending unmet or
// run out of budget.
func (r *Runtime) Escalate(ctx context.Context, id, node, reason string) (bool, error) {
	if err := ValidateID(id); err != nil {
		return false, err
	}
	target, moved := "", false
	err := r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		if st.CurrentNode != node || node == "escalated" {
			return nil, nil
		}
		moved = true
		var evs []EventRecord
		target, evs = r.escalateLocked(st, node, reason)
		return evs, nil
	})
	if err != nil {
		return false, fmt.Errorf("escalate %s: %w", id, err)
	}
	if target != "" {
		r.runEntry(ctx, id, target)
	}
	return moved, nil
}
