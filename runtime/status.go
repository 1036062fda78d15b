package runtime

import (
	"context"
	"fmt"
)

// Report is where a work item stands: the body of `the-loop check`.
type Report struct {
	WorkItem    string       `json:"workItem"`
	CurrentNode string       `json:"currentNode"`
	OK          bool         `json:"ok"`
	Parked      *Parked      `json:"parked"`
	Nodes       []NodeReport `json:"nodes"`
	// RepoResolved is present (false) only when the repository could not be read.
	RepoResolved *bool `json:"repoResolved,omitempty"`
	// Drift names each claim of the stored record (its pointer, a node's
	// verdict) that recomputation cannot reproduce (--recompute only). An
	// item with drift is never ok and fails under every --fail-on mode.
	Drift []string `json:"drift,omitempty"`
	// Dependencies is the poller's last read of the item's blockers
	// (absent when it never read them).
	Dependencies *DependencyReport `json:"dependencies,omitempty"`
	// Warnings are printed on stderr, never part of the JSON report.
	Warnings []string `json:"-"`
}

// InvalidSkipMessage is reported on a node whose state skip is refused.
const InvalidSkipMessage = "graph state declares a skip on this node, which is not skippable — the declaration is refused and has no effect"

// Status evaluates every node's exit chain read-only (no event, no network,
// no writes). Without recompute the pointer, parking and forced flags come
// from st; with recompute they are derived from the artifacts and the
// verified decisions alone.
func (r *Runtime) Status(ctx context.Context, id string, st *State, recompute bool) Report {
	g := r.Graph
	view, set := r.view(st, recompute)
	// A declaration on a node that cannot be skipped is reported as such
	// whether or not it also fails its signature.
	for node := range DeclaredSkips(g, st).Invalid {
		set.Invalid[node] = true
	}
	rep := Report{WorkItem: id, Nodes: make([]NodeReport, 0, len(g.Nodes))}
	cache := NewEvalCache()
	defer cache.Close()
	scratch := new(HookContext)
	for _, n := range g.Nodes {
		rec := view.State.Nodes[n.ID]
		attempts, forced := 0, false
		if rec != nil {
			attempts, forced = rec.Attempts, rec.Forced && !recompute
		}
		nr := NodeReport{Node: n.ID, Attempts: attempts, Forced: forced, Messages: []string{}}
		if d, skipped := set.Skipped[n.ID]; skipped {
			nr.Status, nr.Outcome = string(Skip), "skipped"
			nr.Messages = append(nr.Messages, Provenance(d))
		} else {
			oc := r.run(ctx, evalInput{id: id, view: view, set: set, node: n, boundary: "exit", readOnly: true, strict: recompute, cache: cache, scratch: scratch})
			nr.Status, nr.Outcome = string(oc.Status), oc.Outcome()
			nr.Messages = append(nr.Messages, renderMessages(oc.Messages())...)
		}
		if set.Invalid[n.ID] {
			nr.Messages = append(nr.Messages, InvalidSkipMessage)
		}
		nr.Messages = append(nr.Messages, view.Findings[n.ID]...)
		rep.Nodes = append(rep.Nodes, nr)
	}
	for node := range set.Invalid {
		if _, ok := g.Node(node); !ok {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: graph state declares a skip on %q, which is not a node of %s — ignored", id, node, g.Name))
		}
	}
	if recompute {
		rep.CurrentNode = recomputedPointer(g, rep.Nodes)
		rep.Drift = driftOf(g, st, view, rep)
	} else {
		rep.CurrentNode = view.State.CurrentNode
		if rep.CurrentNode == "" {
			rep.CurrentNode = g.Start
		}
		rep.Parked = view.State.Parked
	}
	rep.OK = satisfiedThrough(g, rep.Nodes, rep.CurrentNode) && len(rep.Drift) == 0
	return rep
}

// Satisfied reports a pass or skip status.
func Satisfied(status string) bool { return status == string(Pass) || status == string(Skip) }

// WorkCommand is the plugin command an agent runs to work node n, whose
// exit chain stands at status ("" when not evaluated yet, as on entry). It
// is "" when there is nothing left to work there: the node names no
// command, it is terminal (the walk is finished), or it is satisfied —
// skipped by declaration, or passed and waiting only for its claim.
func WorkCommand(n *Node, status string) string {
	if n == nil || n.Command == "" || n.Terminal || Satisfied(status) {
		return ""
	}
	return n.Command
}

// recomputedPointer is the first unsatisfied node in declaration order, else
// the first terminal node (a fully satisfied item stands at complete).
func recomputedPointer(g *Graph, nodes []NodeReport) string {
	for _, nr := range nodes {
		if !Satisfied(nr.Status) {
			return nr.Node
		}
	}
	for _, n := range g.Nodes {
		if n.Terminal {
			return n.ID
		}
	}
	return g.Nodes[len(g.Nodes)-1].ID
}

// satisfiedThrough reports whether every node up to and including current
// is satisfied (every node when current names none).
func satisfiedThrough(g *Graph, nodes []NodeReport, current string) bool {
	limit := len(nodes) - 1
	if n, ok := g.Node(current); ok {
		limit = n.Index()
	}
	for i := 0; i <= limit && i < len(nodes); i++ {
		if !Satisfied(nodes[i].Status) {
			return false
		}
	}
	return true
}

// Reached splits a report's nodes into those up to the pointer and those ahead.
func (rep Report) Reached(g *Graph) (reached, ahead []NodeReport) {
	limit := len(rep.Nodes) - 1
	if n, ok := g.Node(rep.CurrentNode); ok {
		limit = n.Index()
	}
	for i, nr := range rep.Nodes {
		if i <= limit {
			reached = append(reached, nr)
		} else {
			ahead = append(ahead, nr)
		}
	}
	return reached, ahead
}

// Fails reports whether rep fails under failOn ("unmet" or "block"). Drift
// fails under every mode.
func (rep Report) Fails(g *Graph, failOn string) bool {
	if rep.RepoResolved != nil && !*rep.RepoResolved || len(rep.Drift) > 0 {
		return true
	}
	if failOn != "block" {
		return !rep.OK
	}
	return rep.Blocked(g)
}

// Blocked reports a blocked node up to the pointer.
func (rep Report) Blocked(g *Graph) bool {
	reached, _ := rep.Reached(g)
	for _, nr := range reached {
		if nr.Status == string(Block) {
			return true
		}
	}
	return false
}

// VetAdoptedPointer moves a pointer taken from an agent-writable record back
// to the first unsatisfied node when it stands further along — unless a
// verified force put it there. The walk then resumes earlier, never later.
func (r *Runtime) VetAdoptedPointer(ctx context.Context, id string, st *State) []EventRecord {
	cur, ok := r.Graph.Node(st.CurrentNode)
	if !ok {
		return nil
	}
	view, _ := r.view(st, false)
	for _, f := range view.State.Forced {
		if f.Node == st.CurrentNode {
			return nil
		}
	}
	rep := r.Status(ctx, id, st, true)
	derived, ok := r.Graph.Node(rep.CurrentNode)
	if !ok || derived.Index() >= cur.Index() {
		return nil
	}
	from := st.CurrentNode
	st.CurrentNode, st.Parked = derived.ID, nil
	return []EventRecord{{Name: "graph.pointer_recomputed", Node: derived.ID, Data: map[string]any{
		"from": from, "reason": "the portable record's pointer stood past an unsatisfied node"}}}
}
