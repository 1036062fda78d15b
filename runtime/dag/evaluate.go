package dag

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/relations"
)

// Progress is where the loop stands on an item.
type Progress struct {
	// Armed: the loop tracks the item.
	Armed bool
	// Loop is the item's loop (process graph) name.
	Loop string
	// Node is the item's current node, e.g. design.
	Node string
	// Started: work has begun (the item is past phase selection). A
	// blocker that is unfinished then is reported, not enforced.
	Started bool
	// Complete: the loop walked the item to complete.
	Complete bool
}

// Lookup reports the loop's progress on an item (the zero Progress when
// the loop does not track it).
type Lookup func(integrations.Ref) Progress

// Verdict is what an item may do now.
type Verdict string

// The verdicts.
const (
	// VerdictComplete: walked to complete, or closed as done.
	VerdictComplete Verdict = "complete"
	// VerdictClosed: closed without being done; never armed.
	VerdictClosed Verdict = "closed"
	// VerdictUnknown: the item could not be read; never armed.
	VerdictUnknown Verdict = "unknown"
	// VerdictCycle: the item is in a dependency cycle; never armed or
	// walked until a person breaks the cycle.
	VerdictCycle Verdict = "cycle"
	// VerdictHeld: the item has not started and waits for a blocker.
	VerdictHeld Verdict = "held"
	// VerdictReady: the item has not started and nothing holds it.
	VerdictReady Verdict = "ready"
	// VerdictWorking: work has started; unfinished blockers, if any, are
	// reported only.
	VerdictWorking Verdict = "working"
)

// Blocker is an unfinished item another one waits for.
type Blocker struct {
	Ref integrations.Ref
	// At says where the blocker stands: "at design", "not started",
	// "closed as not_planned", "unreadable", "in a cycle".
	At  string
	Via string
}

// Status is one item's place in the plan.
type Status struct {
	Node
	Progress Progress
	Verdict  Verdict
	// Hold: the item must not be armed, nor leave phase selection.
	Hold bool
	// Blockers are the unfinished items it waits for: they hold it when
	// Hold, and are only reported when work has started.
	Blockers []Blocker
	// Cycle lists the other items of its dependency cycle.
	Cycle    []integrations.Ref
	Parents  []integrations.Ref
	Children []integrations.Ref
}

// Plan is the evaluated graph: every item in dependency order.
type Plan struct {
	Items []Status
	// Edges are in plan order: blocking edges by the waiting item, then
	// parent edges by the child.
	Edges  []Edge
	Cycles [][]integrations.Ref
	// Warnings carry what the collection could not read (set by the caller).
	Warnings []string
	// Home is the item short references are written relative to (the first
	// item added to the graph).
	Home integrations.Ref
}

// Evaluate decides every item's verdict. A blocker is finished when the
// loop walked it to complete or its ticket is closed as done; anything
// else (open, closed not done, unreadable, in a cycle) holds an item that
// has not started, and is reported on one that has.
func (g *DependencyGraph) Evaluate(lookup Lookup) Plan {
	comp, members := g.components()
	progress := map[string]Progress{}
	for _, k := range g.order {
		progress[k] = lookup(g.nodes[k].Ref)
	}
	finished := func(k string) bool {
		return g.nodes[k].State.Finished() || progress[k].Complete
	}
	plan := Plan{Cycles: g.cycles(members)}
	if len(g.order) > 0 {
		plan.Home = g.nodes[g.order[0]].Ref
	}
	ordered := g.ordered(comp, members)
	pos := map[string]int{}
	for i, k := range ordered {
		pos[k] = i
	}
	edges := g.keyedEdges()
	slices.SortStableFunc(edges, func(a, b keyedEdge) int {
		return cmp.Or(strings.Compare(string(a.Kind), string(b.Kind)), pos[a.to]-pos[b.to], pos[a.from]-pos[b.from])
	})
	plan.Edges = make([]Edge, 0, len(edges))
	for _, e := range edges {
		plan.Edges = append(plan.Edges, e.Edge)
	}
	for _, k := range ordered {
		n, pr := *g.nodes[k], progress[k]
		st := Status{Node: n, Progress: pr, Parents: g.refs(g.parents[k]), Children: g.refs(g.children[k])}
		group := members[comp[k]]
		inCycle := g.cyclic(group)
		if inCycle {
			for _, m := range group {
				if m != k {
					st.Cycle = append(st.Cycle, g.nodes[m].Ref)
				}
			}
		}
		for _, b := range g.blockers[k] {
			if !finished(b) {
				st.Blockers = append(st.Blockers, Blocker{Ref: g.nodes[b].Ref, At: g.where(b, progress[b], g.cyclic(members[comp[b]])), Via: g.via[edgeKey{b, k, KindBlocks}]})
			}
		}
		st.Verdict, st.Hold = verdict(n, pr, inCycle, len(st.Blockers) > 0)
		plan.Items = append(plan.Items, st)
	}
	return plan
}

func verdict(n Node, pr Progress, inCycle, blocked bool) (Verdict, bool) {
	switch {
	case n.State.Finished() || pr.Complete:
		return VerdictComplete, false
	case n.State == integrations.StateNotDone:
		return VerdictClosed, false
	case inCycle:
		return VerdictCycle, !pr.Started || n.State == integrations.StateUnknown
	case n.State == integrations.StateUnknown:
		return VerdictUnknown, true
	case pr.Started:
		return VerdictWorking, false
	case blocked:
		return VerdictHeld, true
	}
	return VerdictReady, false
}

// where describes an unfinished blocker.
func (g *DependencyGraph) where(k string, pr Progress, inCycle bool) string {
	n := g.nodes[k]
	switch {
	case inCycle:
		return "in a cycle"
	case n.State == integrations.StateNotDone && n.Reason != "":
		return "closed as " + n.Reason
	case n.State == integrations.StateNotDone:
		return "closed, not done"
	case n.State == integrations.StateUnknown:
		return "unreadable"
	case pr.Armed && pr.Node != "":
		return "at " + pr.Node
	case pr.Armed:
		return "armed"
	}
	return "not started"
}

// Message is the item's status as check and graph status report it, e.g.
// "blocked by #2 (at design)".
func (s Status) Message() string {
	switch s.Verdict {
	case VerdictComplete:
		return "complete"
	case VerdictClosed:
		if s.Reason != "" {
			return "closed as " + s.Reason + "; not armed"
		}
		return "closed, not done; not armed"
	case VerdictUnknown:
		if s.Reason != "" {
			return "unreadable (" + s.Reason + "); not armed"
		}
		return "unreadable; not armed"
	case VerdictCycle:
		msg := "in a dependency cycle with " + s.list(s.Cycle) + "; not armed until the cycle is broken"
		if !s.Hold {
			msg = "in a dependency cycle with " + s.list(s.Cycle) + " (reported, not enforced: work had started)"
		}
		return msg
	case VerdictHeld:
		return "blocked by " + s.blockers()
	case VerdictWorking:
		if len(s.Blockers) > 0 {
			return "working; blocked by " + s.blockers() + " (reported, not enforced: work had started)"
		}
		return "working"
	}
	return "ready"
}

func (s Status) blockers() string {
	parts := make([]string, 0, len(s.Blockers))
	for _, b := range s.Blockers {
		parts = append(parts, fmt.Sprintf("%s (%s)", relations.Short(b.Ref, s.Ref), b.At))
	}
	return strings.Join(parts, ", ")
}

func (s Status) list(refs []integrations.Ref) string {
	parts := make([]string, 0, len(refs))
	for _, r := range refs {
		parts = append(parts, relations.Short(r, s.Ref))
	}
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// Find returns ref's status.
func (p Plan) Find(ref integrations.Ref) (Status, bool) {
	k := relations.Key(ref)
	for _, s := range p.Items {
		if relations.Key(s.Ref) == k {
			return s, true
		}
	}
	return Status{}, false
}

// ArmingOrder lists parent's children in the order they are armed:
// blockers first, otherwise the tracker's order. Children in a dependency
// cycle are listed apart in inCycle and are never armed.
func (p Plan) ArmingOrder(parent integrations.Ref) (order, inCycle []integrations.Ref) {
	k := relations.Key(parent)
	for _, s := range p.Items {
		if !s.childOf(k) {
			continue
		}
		if s.Verdict == VerdictCycle {
			inCycle = append(inCycle, s.Ref)
		} else {
			order = append(order, s.Ref)
		}
	}
	return order, inCycle
}

// NextToArm lists parent's children that may be armed now: ready and not
// yet armed, in arming order.
func (p Plan) NextToArm(parent integrations.Ref) []integrations.Ref {
	k := relations.Key(parent)
	var out []integrations.Ref
	for _, s := range p.Items {
		if s.childOf(k) && s.Verdict == VerdictReady && !s.Progress.Armed {
			out = append(out, s.Ref)
		}
	}
	return out
}

func (s Status) childOf(parentKey string) bool {
	for _, p := range s.Parents {
		if relations.Key(p) == parentKey {
			return true
		}
	}
	return false
}
