// Package dag is the dependency graph between work items: which item waits
// for which, which items are children of which parent, which items form a
// cycle, and from that, for each item, whether it is held, ready or free to
// continue, and in which order a parent's children are armed. It reads no
// tracker and writes nothing: the relations come in (package
// integrations/relations collects them), the loop's progress comes from a
// lookup function, and a Plan comes out, rendered as a table, JSON or a
// mermaid diagram.
package dag

import (
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/relations"
)

// Node is one work item as its tracker describes it.
type Node struct {
	Ref    integrations.Ref
	Title  string
	State  integrations.ItemState
	Reason string
}

// EdgeKind is the kind of an edge.
type EdgeKind string

// The edge kinds.
const (
	// KindBlocks: From must finish before To may proceed.
	KindBlocks EdgeKind = "blocks"
	// KindParent: From is the parent of To.
	KindParent EdgeKind = "parent"
)

// Edge is one relation between two items.
type Edge struct {
	From, To integrations.Ref
	Kind     EdgeKind
	// Via says how the relation was read ("dependency", "link:Blocks",
	// "task-list", "body", ...).
	Via string
}

// DependencyGraph is a set of work items and their relations. Items are identified by
// relations.Key (GitHub case-insensitive). The zero value is not usable;
// call New.
type DependencyGraph struct {
	nodes    map[string]*Node
	order    []string            // keys in insertion order
	index    map[string]int      // key -> position in order
	blockers map[string][]string // item -> the items it waits for
	children map[string][]string // parent -> children
	parents  map[string][]string // child -> parents
	via      map[edgeKey]string
}

type edgeKey struct {
	from, to string
	kind     EdgeKind
}

// New returns an empty graph.
func New() *DependencyGraph {
	return &DependencyGraph{
		nodes:    map[string]*Node{},
		index:    map[string]int{},
		blockers: map[string][]string{},
		children: map[string][]string{},
		parents:  map[string][]string{},
		via:      map[edgeKey]string{},
	}
}

// AddNode adds n, or updates the item with n's non-empty fields.
func (g *DependencyGraph) AddNode(n Node) {
	k := relations.Key(n.Ref)
	cur, ok := g.nodes[k]
	if !ok {
		if n.State == "" {
			n.State = integrations.StateUnknown
		}
		g.nodes[k] = &n
		g.index[k] = len(g.order)
		g.order = append(g.order, k)
		return
	}
	if n.Title != "" {
		cur.Title = n.Title
	}
	if n.State != "" {
		cur.State, cur.Reason = n.State, n.Reason
	}
}

// hint adds n only when the item is not in the graph yet: what a
// neighbour says about an item never overrides the item's own read.
func (g *DependencyGraph) hint(n Node) string {
	k := relations.Key(n.Ref)
	if _, ok := g.nodes[k]; !ok {
		g.AddNode(n)
	}
	return k
}

// AddBlocker records that item waits for blocker (both are added when
// missing, with state unknown).
func (g *DependencyGraph) AddBlocker(item, blocker integrations.Ref, via string) {
	i, b := g.hint(Node{Ref: item}), g.hint(Node{Ref: blocker})
	g.link(edgeKey{b, i, KindBlocks}, via, g.blockers, i, b)
}

// AddChild records that child is a child of parent.
func (g *DependencyGraph) AddChild(parent, child integrations.Ref, via string) {
	p, c := g.hint(Node{Ref: parent}), g.hint(Node{Ref: child})
	if p == c {
		return
	}
	if _, dup := g.via[edgeKey{p, c, KindParent}]; dup {
		return
	}
	g.via[edgeKey{p, c, KindParent}] = via
	g.children[p] = append(g.children[p], c)
	g.parents[c] = append(g.parents[c], p)
}

func (g *DependencyGraph) link(e edgeKey, via string, adj map[string][]string, from, to string) {
	if _, dup := g.via[e]; dup {
		return
	}
	g.via[e] = via
	adj[from] = append(adj[from], to)
}

// FromRelations builds the graph of collected relations: every item read is
// added with its own state first; an item only named by a neighbour takes
// the neighbour's description.
func FromRelations(items []integrations.Relations) *DependencyGraph {
	g := New()
	for _, it := range items {
		g.AddNode(nodeOf(it.Item))
	}
	for _, it := range items {
		self := it.Item.Ref
		if it.Parent != nil {
			g.hint(nodeOf(*it.Parent))
			g.AddChild(it.Parent.Ref, self, it.Parent.Via)
		}
		for _, r := range it.Children {
			g.hint(nodeOf(r))
			g.AddChild(self, r.Ref, r.Via)
		}
		for _, r := range it.BlockedBy {
			g.hint(nodeOf(r))
			g.AddBlocker(self, r.Ref, r.Via)
		}
		for _, r := range it.Blocking {
			g.hint(nodeOf(r))
			g.AddBlocker(r.Ref, self, r.Via)
		}
	}
	return g
}

func nodeOf(r integrations.Related) Node {
	return Node{Ref: r.Ref, Title: r.Title, State: r.State, Reason: r.Reason}
}

// Len is the number of items.
func (g *DependencyGraph) Len() int { return len(g.order) }

// Edges lists every edge: blocking edges in item order, then parent edges.
func (g *DependencyGraph) Edges() []Edge {
	keyed := g.keyedEdges()
	out := make([]Edge, 0, len(keyed))
	for _, e := range keyed {
		out = append(out, e.Edge)
	}
	return out
}

// keyedEdge is an edge with its ends' keys.
type keyedEdge struct {
	Edge
	from, to string
}

func (g *DependencyGraph) keyedEdges() []keyedEdge {
	out := []keyedEdge{}
	for _, k := range g.order {
		for _, b := range g.blockers[k] {
			out = append(out, keyedEdge{Edge{From: g.nodes[b].Ref, To: g.nodes[k].Ref, Kind: KindBlocks, Via: g.via[edgeKey{b, k, KindBlocks}]}, b, k})
		}
	}
	for _, k := range g.order {
		for _, c := range g.children[k] {
			out = append(out, keyedEdge{Edge{From: g.nodes[k].Ref, To: g.nodes[c].Ref, Kind: KindParent, Via: g.via[edgeKey{k, c, KindParent}]}, k, c})
		}
	}
	return out
}
