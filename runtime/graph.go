package runtime

import (
	"path"
	"path/filepath"
	"strings"
)

// Actor kinds.
const (
	ActorAgent = "agent"
	ActorHuman = "human"
	ActorCode  = "code"
)

// Node is a compiled graph node.
type Node struct {
	ID    string `json:"id"`
	Phase string `json:"phase"`
	Actor string `json:"actor"`
	// Produces lists artifact slots; an entry may hold alternatives
	// separated by "|" (requirements.md|bugfix.md), kept verbatim.
	Produces    []string `json:"produces"`
	Command     string   `json:"command"`
	Stage       string   `json:"stage"`
	Session     string   `json:"session"`
	Required    bool     `json:"required"`
	Optional    bool     `json:"optional"`
	Skippable   bool     `json:"skippable"`
	OptIn       bool     `json:"optIn"`
	Description string   `json:"description"`
	MaxAttempts int      `json:"maxAttempts"`
	Terminal    bool     `json:"terminal"`
	// RequiresHandoff nodes are skipped (via no-handoff) when the work
	// item carries no handoff.
	RequiresHandoff bool         `json:"requiresHandoff,omitempty"`
	Entry           []ChainEntry `json:"entry"`
	Exit            []ChainEntry `json:"exit"`

	index int
}

// Index is the node's declaration position.
func (n *Node) Index() int { return n.index }

// IsHuman reports a human gate.
func (n *Node) IsHuman() bool { return n.Actor == ActorHuman }

// Edge routes (From, On) to To.
type Edge struct {
	From string `json:"from"`
	To   string `json:"to"`
	On   string `json:"on"`
}

// Graph is a compiled, frozen process graph.
type Graph struct {
	Version  int                 `json:"version"`
	Name     string              `json:"name"`
	Start    string              `json:"start"`
	Nodes    []*Node             `json:"nodes"`
	Edges    []Edge              `json:"edges"`
	SkipSets map[string][]string `json:"skipSets,omitempty"`
	// Records are the files a walk of this graph keeps for itself: in an
	// inner loop they live in the loop's own folder (WorkItem.LoopDir),
	// never in the work item's spec folder, so sibling loops never share
	// them. Every other name resolves to the work item's spec folder.
	Records []string `json:"records,omitempty"`

	byID   map[string]*Node
	byEdge map[[2]string]string
	setOrd []string
}

// IsRecord reports whether name (a slash path inside the spec folder) is
// one of the graph's records.
func (g *Graph) IsRecord(name string) bool {
	if g == nil {
		return false
	}
	name = path.Clean(filepath.ToSlash(name))
	for _, r := range g.Records {
		if r == name {
			return true
		}
	}
	return false
}

// Node returns the node with id.
func (g *Graph) Node(id string) (*Node, bool) {
	n, ok := g.byID[id]
	return n, ok
}

// Next returns the target of the first declared edge from id on outcome.
func (g *Graph) Next(id, outcome string) (string, bool) {
	to, ok := g.byEdge[[2]string{id, outcome}]
	return to, ok
}

// HasEdge reports whether any edge runs from -> to.
func (g *Graph) HasEdge(from, to string) bool {
	for _, e := range g.Edges {
		if e.From == from && e.To == to {
			return true
		}
	}
	return false
}

// IDs returns node ids in declaration order.
func (g *Graph) IDs() []string {
	out := make([]string, len(g.Nodes))
	for i, n := range g.Nodes {
		out[i] = n.ID
	}
	return out
}

// SkipSetNames returns skip-set names in declaration order.
func (g *Graph) SkipSetNames() []string { return append([]string(nil), g.setOrd...) }

// Alternatives splits a produces/validates entry into its trimmed names.
func Alternatives(entry string) []string {
	out := make([]string, 0, strings.Count(entry, "|")+1)
	for p := range strings.SplitSeq(entry, "|") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
