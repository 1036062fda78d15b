package runtime

import (
	"context"
	"fmt"
	"strings"
)

// reopenStale sends the item back to the earliest human gate behind the
// pointer whose recorded approval no longer covers what it approved: one
// of the gate's hooks, evaluated read-only, reports StaleKey (an artifact
// it locked changed since). The gate is entered afresh — its decision
// archived — and asks again; a later visit's approval is what counts. It
// returns the gate ("" when no approval is stale), the message and the
// events. A terminal or escalated item is left where it is.
func (r *Runtime) reopenStale(ctx context.Context, id string, st *State, cur *Node) (string, string, []EventRecord) {
	if cur.Terminal || cur.ID == "escalated" {
		return "", "", nil
	}
	view, set := r.view(st, false)
	for _, n := range r.Graph.Nodes {
		if n.Index() >= cur.Index() {
			break
		}
		if !n.IsHuman() || view.State.Decisions[n.ID] == nil {
			continue
		}
		if _, skipped := set.Skipped[n.ID]; skipped {
			continue
		}
		oc := r.run(ctx, evalInput{id: id, view: view, set: set, node: n, boundary: "exit", readOnly: true})
		for _, res := range oc.Results {
			names, ok := res.Data[StaleKey].([]string)
			if !ok {
				continue
			}
			texts := make([]string, 0, len(res.Messages))
			for _, m := range res.Messages {
				texts = append(texts, m.Text)
			}
			why := strings.Join(texts, "; ")
			evs := []EventRecord{{Name: "graph.approval_stale", Node: n.ID, Data: map[string]any{"from": cur.ID, "artifacts": names, "reason": why}}}
			evs = append(evs, r.enter(st, n.ID)...)
			return n.ID, fmt.Sprintf("back to %s: %s", n.ID, why), evs
		}
	}
	return "", "", nil
}
