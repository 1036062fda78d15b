package runtime

import "fmt"

// driftOf lists the claims of the stored record st that the recomputed
// report rep cannot reproduce:
//
//   - its pointer stands past the recomputed pointer, and no honoured force
//     put it there (a pointer at a later terminal node — cleanup, escalated —
//     claims no progress of its own; an escalated item claims the node it
//     escalated from);
//   - a node before the pointer is recorded as exited with an outcome, and
//     recomputation does not find it satisfied.
func driftOf(g *Graph, st *State, view TrustedView, rep Report) []string {
	var out []string
	byNode := make(map[string]NodeReport, len(rep.Nodes))
	for _, nr := range rep.Nodes {
		byNode[nr.Node] = nr
	}
	claim := claimedNode(g, st)
	if st.CurrentNode != "" && claim == nil {
		if _, ok := g.Node(st.CurrentNode); !ok {
			out = append(out, fmt.Sprintf("the record's pointer %q names no node of %s", st.CurrentNode, g.Name))
		}
	}
	derived, okDerived := g.Node(rep.CurrentNode)
	if claim != nil && okDerived && claim.Index() > derived.Index() && !forcedTo(view, claim.ID) {
		out = append(out, fmt.Sprintf("the record stands at %s, but recomputation stops at %s (%s)", claim.ID, derived.ID, describe(byNode[derived.ID])))
	}
	if claim == nil {
		return out
	}
	for _, n := range g.Nodes[:claim.Index()] {
		rec := st.Nodes[n.ID]
		if rec == nil || rec.Outcome == "" || rec.ExitedAt == "" || n.Terminal {
			continue
		}
		if nr := byNode[n.ID]; !Satisfied(nr.Status) {
			out = append(out, fmt.Sprintf("the record says %s exited %q, but recomputation finds it %s", n.ID, rec.Outcome, describe(nr)))
		}
	}
	return out
}

// claimedNode is the node whose predecessors the record claims passed: its
// pointer, unless that is a terminal node other than the first (cleanup,
// escalated), where an escalated item claims the node it escalated from.
func claimedNode(g *Graph, st *State) *Node {
	n, ok := g.Node(st.CurrentNode)
	if !ok {
		return nil
	}
	if !n.Terminal {
		return n
	}
	for _, t := range g.Nodes {
		if t.Terminal {
			if t.ID == n.ID {
				return n
			}
			break
		}
	}
	if st.Escalation != nil {
		if from, ok := g.Node(st.Escalation.From); ok && !from.Terminal {
			return from
		}
	}
	return nil
}

// forcedTo reports an honoured force that moved the pointer to node.
func forcedTo(view TrustedView, node string) bool {
	for _, f := range view.State.Forced {
		if f.Node == node {
			return true
		}
	}
	return false
}

// describe renders a node's recomputed status and first message.
func describe(nr NodeReport) string {
	if len(nr.Messages) == 0 {
		return nr.Status
	}
	return nr.Status + ": " + nr.Messages[0]
}
