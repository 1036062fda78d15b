package continuity

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Node kinds and statuses in graph.md.
const (
	NodeTask     = "task"
	NodeDecision = "decision"
	NodeBlocker  = "blocker"
	NodeSession  = "session"

	StatusOpen     = "open"
	StatusDone     = "done"
	StatusBlocked  = "blocked"
	StatusDeferred = "deferred"
	StatusResumed  = "resumed"
)

// Edge kinds: From depends on To; From came before To; From resolves To.
const (
	EdgeDepends    = "depends"
	EdgeSequence   = "sequence"
	EdgeResolution = "resolves"
)

var (
	nodeKinds    = map[string]bool{NodeTask: true, NodeDecision: true, NodeBlocker: true, NodeSession: true}
	nodeStatuses = map[string]bool{StatusOpen: true, StatusDone: true, StatusBlocked: true, StatusDeferred: true,
		StatusActive: true, StatusInterrupted: true, StatusResumed: true, StatusCompleted: true}
	edgeKinds = map[string]bool{EdgeDepends: true, EdgeSequence: true, EdgeResolution: true}
)

// Node is a task, decision, blocker or session in the graph.
type Node struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Status string `json:"status"`
	Text   string `json:"text"`
}

// Edge is a directed link between two nodes.
type Edge struct {
	From string `json:"from"`
	To   string `json:"to"`
	Kind string `json:"kind"`
}

// TaskGraph is the directed task/decision/blocker graph.
type TaskGraph struct {
	Nodes    []Node `json:"nodes"`
	Edges    []Edge `json:"edges"`
	Revision int    `json:"revision"`
}

func (g *TaskGraph) node(id string) *Node {
	for i := range g.Nodes {
		if g.Nodes[i].ID == id {
			return &g.Nodes[i]
		}
	}
	return nil
}

func (g *TaskGraph) addEdge(from, to, kind string) {
	for _, e := range g.Edges {
		if e.From == from && e.To == to && e.Kind == kind {
			return
		}
	}
	g.Edges = append(g.Edges, Edge{From: from, To: to, Kind: kind})
}

// nextID returns prefix+N for the smallest N above every existing one.
func (g *TaskGraph) nextID(prefix string) string {
	max := 0
	for _, n := range g.Nodes {
		if rest, ok := strings.CutPrefix(n.ID, prefix); ok {
			if v, err := strconv.Atoi(rest); err == nil && v > max {
				max = v
			}
		}
	}
	return prefix + strconv.Itoa(max+1)
}

// lastOfKind returns the most recently added node of kind, or nil.
func (g *TaskGraph) lastOfKind(kind string) *Node {
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		if g.Nodes[i].Kind == kind {
			return &g.Nodes[i]
		}
	}
	return nil
}

// openBlockers lists "id: text" for every unresolved blocker.
func (g *TaskGraph) openBlockers() []string {
	var out []string
	for _, n := range g.Nodes {
		if n.Kind == NodeBlocker && (n.Status == StatusOpen || n.Status == StatusBlocked) {
			out = append(out, n.ID+": "+n.Text)
		}
	}
	return out
}

func (g TaskGraph) render() []byte {
	var b strings.Builder
	b.WriteString(headerLine("graph") + "\n# Task graph\n\n")
	b.WriteString("Edges read: A depends B (A needs B first), A sequence B (A came before B), A resolves B.\n\n## Nodes\n\n")
	for _, n := range g.Nodes {
		fmt.Fprintf(&b, "- %s | %s | %s | %s\n", n.ID, n.Kind, n.Status, oneLine(n.Text))
	}
	b.WriteString("\n## Edges\n\n")
	for _, e := range g.Edges {
		fmt.Fprintf(&b, "- %s %s %s\n", e.From, e.Kind, e.To)
	}
	b.WriteString("\n" + endLine("graph", g.Revision) + "\n")
	return []byte(b.String())
}

var edgeRE = regexp.MustCompile(`^- (\S+) ([a-z]+) (\S+)$`)

// parseGraph reads graph.md, classifying any problem.
func parseGraph(data []byte) (TaskGraph, error) {
	const file = GraphFile
	lines, rev, err := splitDoc(file, "graph", data)
	if err != nil {
		return TaskGraph{}, err
	}
	g := TaskGraph{Revision: rev}
	section := ""
	for _, line := range lines {
		switch {
		case line == "" || strings.HasPrefix(line, "# ") || strings.HasPrefix(line, "Edges read:"):
			continue
		case line == "## Nodes", line == "## Edges":
			section = line
			continue
		}
		bad := &fileError{ReasonCorrupt, file, fmt.Sprintf("unexpected line %q", line)}
		switch section {
		case "## Nodes":
			parts := strings.SplitN(strings.TrimPrefix(line, "- "), " | ", 4)
			if !strings.HasPrefix(line, "- ") || len(parts) != 4 {
				return g, bad
			}
			n := Node{ID: parts[0], Kind: parts[1], Status: parts[2], Text: parts[3]}
			if !validID(n.ID) || !nodeKinds[n.Kind] || !nodeStatuses[n.Status] {
				return g, &fileError{ReasonCorrupt, file, fmt.Sprintf("node line %q has a bad id, kind or status", line)}
			}
			if g.node(n.ID) != nil {
				return g, &fileError{ReasonCorrupt, file, fmt.Sprintf("duplicate node %q", n.ID)}
			}
			g.Nodes = append(g.Nodes, n)
		case "## Edges":
			m := edgeRE.FindStringSubmatch(line)
			if m == nil || !edgeKinds[m[2]] {
				return g, bad
			}
			if g.node(m[1]) == nil || g.node(m[3]) == nil {
				return g, &fileError{ReasonCorrupt, file, fmt.Sprintf("edge %q names an undeclared node", line)}
			}
			g.Edges = append(g.Edges, Edge{From: m[1], Kind: m[2], To: m[3]})
		default:
			return g, bad
		}
	}
	return g, nil
}
