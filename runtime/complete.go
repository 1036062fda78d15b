package runtime

import (
	"context"
	"errors"
	"fmt"
)

// Complete is an agent's claim that node (default: the current node) is
// done: it runs the exit chain and advances on pass. A claim for a node that
// is not current, or for a human gate, is refused with the reason.
func (r *Runtime) Complete(ctx context.Context, id, node, actor string) (ClaimAnswer, error) {
	return r.CompleteWith(ctx, id, node, actor, nil)
}

// CompleteWith is Complete with the ticket's comments, for an agent node
// whose checks also read authorized comments (a named security sign-off).
// Only authorized comments ever count, and a human gate is still refused.
func (r *Runtime) CompleteWith(ctx context.Context, id, node, actor string, event *Event) (ClaimAnswer, error) {
	if err := ValidateID(id); err != nil {
		return ClaimAnswer{}, err
	}
	env := ClaimAnswer{Node: node, Messages: []string{}}
	var enterNode string
	err := r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		cur := st.CurrentNode
		env.CurrentNode = cur
		if cur == "" {
			env.Status, env.Reason = StatusRefused, "not-started"
			env.Messages = []string{"this work item has not entered the graph; nothing to complete (a human starts it: `the-loop graph start " + id + "`)"}
			return nil, errNoSave
		}
		if node == "" {
			node = cur
			env.Node = cur
		}
		if h := Held(r.config(), st); h != nil {
			env.Status, env.Reason = StatusRefused, "held"
			env.Messages = []string{h.Error()}
			return nil, errNoSave
		}
		claimed, okClaimed := r.Graph.Node(node)
		current, okCur := r.Graph.Node(cur)
		switch {
		case !okClaimed:
			env.Status, env.Reason = StatusRefused, "unknown-node"
			env.Messages = []string{fmt.Sprintf("%s has no node %q; the current node is %q", r.Graph.Name, node, cur)}
			return nil, errNoSave
		case node != cur && okCur && claimed.Index() < current.Index():
			env.Status, env.Reason = StatusNoop, "already-past"
			env.Messages = []string{fmt.Sprintf("the current node is %q and the claimed node is behind it", cur)}
			return nil, errNoSave
		case node != cur:
			env.Status, env.Reason = StatusRefused, "not-current"
			env.Messages = []string{fmt.Sprintf("the current node is %q", cur)}
			return nil, errNoSave
		case claimed.IsHuman():
			env.Status, env.Reason = StatusRefused, "human-gate"
			env.Messages = []string{fmt.Sprintf("%s is a human gate: it completes when an authorized reviewer answers on the ticket, never by a claim", node)}
			return nil, errNoSave
		}
		by := actor
		if by == "" {
			by = "cli"
		}
		st.Completions[node] = &Completion{At: Now(), By: by}
		rep, target, evs, err := r.advanceLocked(ctx, id, st, event, false)
		if err != nil {
			return nil, err
		}
		enterNode = target
		env.Status, env.Outcome, env.Messages = rep.Status, rep.Outcome, rep.Messages
		env.CurrentNode = st.CurrentNode
		env.Moved = st.CurrentNode != cur
		return append(evs, EventRecord{Name: "graph.completion_claimed", Node: node, Data: map[string]any{"by": by, "status": rep.Status}}), nil
	})
	if errors.Is(err, errNoSave) {
		return env, nil
	}
	if err != nil {
		return env, fmt.Errorf("complete %s: %w", id, err)
	}
	if enterNode != "" {
		env.Messages = append(env.Messages, r.runEntry(ctx, id, enterNode)...)
	}
	return env, nil
}

// errNoSave aborts an Update without saving (a refused request).
var errNoSave = errors.New("nothing to save")
