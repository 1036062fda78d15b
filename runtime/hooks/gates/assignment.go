package gates

import (
	"fmt"
	"path"
	"strings"

	"github.com/the-loop/the-loop/runtime"
)

const HookDeliverAssignment = "deliver-assignment"

// Assignment says whom an assignment is for.
type Assignment struct {
	// WorkItem is the spec-folder id ("issue-12").
	WorkItem string
	// PR and PRRepo scope an inner loop's assignment to its pull request.
	PR     int
	PRRepo string
	// LoopDir is an inner loop's own folder under the spec folder, where
	// the graph's records live ("" for the item's own loop).
	LoopDir string
	// Surface is where the outer loop's artifacts are iterated
	// (pull-request, work-item, or "" for a loop that places none).
	Surface string
	// Status is the node's exit-chain status when it has been evaluated
	// ("" on entry). A satisfied node names no command to work it with.
	Status string
}

// AssignmentText renders what a session at node n of g should do next. It
// is composed from the graph alone, never from event payloads.
func AssignmentText(g *runtime.Graph, n *runtime.Node, a Assignment) string {
	var b strings.Builder
	scope := a.WorkItem
	if a.PR > 0 {
		scope = fmt.Sprintf("pull request #%d's pdlc-pr-loop on %s", a.PR, a.WorkItem)
		if a.PRRepo != "" {
			scope += " (in " + a.PRRepo + ")"
		}
	}
	fmt.Fprintf(&b, "the-loop assignment for %s:\n", scope)
	fmt.Fprintf(&b, "  you are at node: %s", n.ID)
	if n.Phase != "" {
		fmt.Fprintf(&b, " (phase: %s)", n.Phase)
	}
	if g != nil && g.Name != "" {
		fmt.Fprintf(&b, " of %s", g.Name)
	}
	b.WriteString("\n")
	if len(n.Produces) > 0 {
		fmt.Fprintf(&b, "  produce: %s\n", strings.Join(producePaths(g, n, a.LoopDir), ", "))
		fmt.Fprintf(&b, "  iterate it on: %s\n", surfaceSentence(a))
	}
	if cmd := runtime.WorkCommand(n, a.Status); cmd != "" {
		fmt.Fprintf(&b, "  work it with: `/the-loop:%s %s`\n", cmd, a.WorkItem)
	}
	switch {
	case n.IsHuman():
		b.WriteString("  this is a HUMAN gate: an authorized person answers it on the ticket; do not claim it and do not answer it yourself\n")
	case n.Terminal:
		b.WriteString("  the walk is finished here; there is nothing to claim\n")
	default:
		claim := "the-loop graph complete " + a.WorkItem
		if a.PR > 0 {
			claim += fmt.Sprintf(" --pr %d", a.PR)
			if a.PRRepo != "" {
				claim += " --pr-repo " + a.PRRepo
			}
		}
		fmt.Fprintf(&b, "  when this node's work is done, report back: `%s`\n", claim)
	}
	b.WriteString("  (assigned by the-loop's graph — not part of any event payload)\n")
	return b.String()
}

func surfaceSentence(a Assignment) string {
	switch {
	case a.PR > 0:
		return "this pull request, as review on it"
	case a.Surface == "pull-request":
		return "a pull request in this repository, as review on it (chosen at phase-selection)"
	case a.Surface == "work-item":
		return "the work item, as comments on it; link the checked-in file rather than pasting it"
	}
	return "this thread"
}

// DeliverAssignment hands an agent node's assignment to the item's session
// through the runtime's AssignmentSink (the poller's supervisor, or `the-loop
// run`): a session still running for an earlier node is relieved and the
// next one launches with this assignment. With no sink — the CLI path — it
// skips: the claim's answer and `graph_status` carry the assignment. A human
// gate is announced on the ticket, never assigned.
func DeliverAssignment(hc *runtime.HookContext) (runtime.Result, error) {
	switch {
	case hc.ReadOnly || hc.Assignments == nil:
		return runtime.Skipped(HookDeliverAssignment, "no live session to deliver into (on the CLI path the claim's answer and graph_status carry the assignment)"), nil
	case hc.Node == nil || hc.Node.IsHuman() || hc.Node.Terminal:
		return runtime.Skipped(HookDeliverAssignment, "a human gate or a finished walk is announced, never assigned"), nil
	}
	text := AssignmentText(hc.Graph, hc.Node, Assignment{WorkItem: hc.WorkItem.ID, Surface: hc.State.Surface, LoopDir: hc.WorkItem.LoopDir})
	how, err := hc.Assignments.Deliver(hc.Context, hc.WorkItem.ID, hc.NodeID(), text)
	if err != nil {
		return runtime.OK(HookDeliverAssignment, gateData("delivered", false, "error", err.Error())), nil
	}
	return runtime.OK(HookDeliverAssignment, gateData("delivered", true, "how", how)), nil
}

// producePaths names what node n produces, each a record of an inner loop
// under that loop's own folder, so a session writes it where the gate reads.
func producePaths(g *runtime.Graph, n *runtime.Node, loopDir string) []string {
	out := make([]string, len(n.Produces))
	for i, p := range n.Produces {
		out[i] = p
		if loopDir != "" && g != nil && g.IsRecord(p) {
			out[i] = path.Join(loopDir, p)
		}
	}
	return out
}
