package checklist

import (
	"sort"
	"strings"

	"github.com/the-loop/the-loop/runtime"
)

// Skip is one declared skip: the node and the token that removed it (the
// node's own row, or the set row).
type Skip struct {
	Node  string
	Token string
}

// Selection is what a checklist decides for a graph.
type Selection struct {
	// Skips are the skippable nodes removed, in declaration order.
	Skips []Skip
	// OptIns are the opt-in nodes ticked, in declaration order.
	OptIns []string
	// NotSelected are the opt-in nodes offered and not ticked.
	NotSelected []string
	// Refused are unticked rows naming a node that cannot be skipped; the
	// node still runs.
	Refused []string
	// Ignored are tokens that name nothing on the checklist.
	Ignored []string
	// Surface is pull-request or work-item ("" when not offered).
	Surface string
	// SessionPerPR is the chosen pr-sessions mode ("" = no choice).
	SessionPerPR string
	// Model and Effort are the chosen names ("" = no choice).
	Model  string
	Effort string
	// Harness is the chosen harness ("" = no choice).
	Harness string
	// ArmChildren: the item's children are armed in dependency order as
	// their blockers finish (the arm-children row ticked; only when offered).
	ArmChildren bool
}

// SkipNodes returns the skipped node ids.
func (s Selection) SkipNodes() []string {
	out := make([]string, len(s.Skips))
	for i, k := range s.Skips {
		out[i] = k.Node
	}
	return out
}

// Resolve applies parsed rows to g. A row the body leaves out keeps its
// default: a skippable phase runs, an opt-in phase does not, the outer loop
// stays on the work item, and a non-phase group is "no choice".
func Resolve(g *runtime.Graph, p Parsed, o Options) Selection {
	var sel Selection
	known := map[string]bool{}
	for _, n := range g.Nodes {
		known[n.ID] = true
		mark := p.Mark(n.ID)
		switch {
		case n.OptIn:
			if mark == Ticked {
				sel.OptIns = append(sel.OptIns, n.ID)
			} else {
				sel.NotSelected = append(sel.NotSelected, n.ID)
			}
		case n.Skippable && !n.Required:
			if mark == Unticked {
				sel.Skips = append(sel.Skips, Skip{Node: n.ID, Token: n.ID})
			} else if set := unticked(g, p, n.ID); set != "" {
				sel.Skips = append(sel.Skips, Skip{Node: n.ID, Token: set})
			}
		default:
			if mark == Unticked {
				sel.Refused = append(sel.Refused, n.ID)
			}
		}
	}
	for _, s := range g.SkipSetNames() {
		known[s] = true
	}
	if o.OfferSurface {
		known[SurfaceToken] = true
		sel.Surface = SurfaceWorkItem
		if p.Mark(SurfaceToken) == Ticked {
			sel.Surface = SurfacePullRequest
		}
	}
	sel.SessionPerPR = one(p, SessionsPrefix, SessionModes, known)
	if len(o.Models) > 0 {
		sel.Model = one(p, ModelPrefix, o.Models, known)
	}
	if len(o.Efforts) > 0 {
		sel.Effort = one(p, EffortPrefix, o.Efforts, known)
	}
	if len(o.Harnesses) > 0 {
		sel.Harness = one(p, HarnessPrefix, o.Harnesses, known)
	}
	if o.OfferArmChildren {
		known[ArmChildrenToken] = true
		sel.ArmChildren = p.Mark(ArmChildrenToken) == Ticked
	}
	for _, tok := range p.Tokens() {
		if !known[tok] {
			sel.Ignored = append(sel.Ignored, tok)
		}
	}
	return sel
}

// unticked returns the first skip set containing node whose row is unticked.
func unticked(g *runtime.Graph, p Parsed, node string) string {
	for _, s := range g.SkipSetNames() {
		if p.Mark(s) != Unticked {
			continue
		}
		for _, m := range g.SkipSets[s] {
			if m == node {
				return s
			}
		}
	}
	return ""
}

// one answers a non-phase group: exactly one ticked row naming one of
// choices is that choice; none, several, a conflicting row or an unknown
// name is no choice (""). Every token with the prefix is marked known so it
// is not reported as ignored.
func one(p Parsed, prefix string, choices []string, known map[string]bool) string {
	valid := map[string]bool{}
	for _, c := range choices {
		valid[c] = true
	}
	var ticked []string
	bad := false
	for _, tok := range p.Tokens() {
		if !strings.HasPrefix(tok, prefix) {
			continue
		}
		known[tok] = true
		switch p.Mark(tok) {
		case Ticked:
			ticked = append(ticked, strings.TrimPrefix(tok, prefix))
		case Conflicting:
			bad = true
		}
	}
	sort.Strings(ticked)
	if bad || len(ticked) != 1 || !valid[ticked[0]] {
		return ""
	}
	return ticked[0]
}
