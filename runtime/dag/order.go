package dag

import (
	"container/heap"
	"slices"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/relations"
)

// components finds the strongly connected components of the blocking
// edges (Tarjan). comp maps every key to its component; each component
// lists its keys in insertion order.
func (g *DependencyGraph) components() (comp map[string]int, members [][]string) {
	comp = map[string]int{}
	low, num := map[string]int{}, map[string]int{}
	var stack []string
	onStack := map[string]bool{}
	next := 0
	var visit func(k string)
	visit = func(k string) {
		num[k], low[k] = next, next
		next++
		stack = append(stack, k)
		onStack[k] = true
		for _, b := range g.blockers[k] {
			if _, seen := num[b]; !seen {
				visit(b)
				low[k] = min(low[k], low[b])
			} else if onStack[b] {
				low[k] = min(low[k], num[b])
			}
		}
		if low[k] != num[k] {
			return
		}
		var group []string
		for {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[top] = false
			comp[top] = len(members)
			group = append(group, top)
			if top == k {
				break
			}
		}
		slices.SortFunc(group, func(a, b string) int { return g.index[a] - g.index[b] })
		members = append(members, group)
	}
	for _, k := range g.order {
		if _, seen := num[k]; !seen {
			visit(k)
		}
	}
	return comp, members
}

// cyclic reports whether component c is a cycle: more than one item, or
// one item waiting for itself.
func (g *DependencyGraph) cyclic(group []string) bool {
	return len(group) > 1 || slices.Contains(g.blockers[group[0]], group[0])
}

// Cycles lists every dependency cycle: the items of each, in insertion
// order, cycles ordered by their first item.
func (g *DependencyGraph) Cycles() [][]integrations.Ref {
	_, members := g.components()
	return g.cycles(members)
}

func (g *DependencyGraph) cycles(members [][]string) [][]integrations.Ref {
	out := [][]integrations.Ref{}
	for _, group := range members {
		if g.cyclic(group) {
			out = append(out, g.refs(group))
		}
	}
	slices.SortFunc(out, func(a, b []integrations.Ref) int { return g.indexOf(a[0]) - g.indexOf(b[0]) })
	return out
}

func (g *DependencyGraph) refs(keys []string) []integrations.Ref {
	out := make([]integrations.Ref, 0, len(keys))
	for _, k := range keys {
		out = append(out, g.nodes[k].Ref)
	}
	return out
}

func (g *DependencyGraph) indexOf(ref integrations.Ref) int { return g.index[relations.Key(ref)] }

// ordered lists every key in dependency order: blockers before the items
// waiting for them, a cycle's items together, and otherwise the order the
// items were added (for a parent's children, the tracker's order).
func (g *DependencyGraph) ordered(comp map[string]int, members [][]string) []string {
	indeg := make([]int, len(members))
	succ := make([][]int, len(members))
	for _, k := range g.order {
		for _, b := range g.blockers[k] {
			if from, to := comp[b], comp[k]; from != to {
				succ[from] = append(succ[from], to)
				indeg[to]++
			}
		}
	}
	first := func(c int) int { return g.index[members[c][0]] }
	h := &intHeap{less: func(a, b int) bool { return first(a) < first(b) }}
	for c := range members {
		if indeg[c] == 0 {
			heap.Push(h, c)
		}
	}
	out := make([]string, 0, len(g.order))
	for h.Len() > 0 {
		c := heap.Pop(h).(int)
		out = append(out, members[c]...)
		for _, s := range succ[c] {
			if indeg[s]--; indeg[s] == 0 {
				heap.Push(h, s)
			}
		}
	}
	return out
}

type intHeap struct {
	items []int
	less  func(a, b int) bool
}

func (h *intHeap) Len() int           { return len(h.items) }
func (h *intHeap) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *intHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *intHeap) Push(x any)         { h.items = append(h.items, x.(int)) }
func (h *intHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
