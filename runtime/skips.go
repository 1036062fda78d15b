package runtime

import (
	"fmt"
	"sort"
	"strings"

	"github.com/the-loop/the-loop/internal/nearest"
)

// Skip vias the runtime itself assigns.
const (
	ViaNotSelected = "not-selected"
	ViaNoHandoff   = "no-handoff"
	ViaSelection   = "selection"
	ViaCLI         = "cli"
	ViaHandoff     = "handoff"
)

// TrustedView is the state as the runtime may rely on it: only decisions,
// skips, opt-ins and forces the signer honours (see Signer.Honours).
type TrustedView struct {
	State *State
	// Findings are per-node messages about decisions that were ignored
	// (forged, unverifiable) or honoured without a signature.
	Findings map[string][]string
	// Dropped counts the recorded decisions that were not honoured.
	Dropped int
}

// decisionKinds are the kinds each decision map may hold ("" is the legacy,
// pre-signing shape, honoured only when no key is configured).
var decisionKinds = map[string]map[string]bool{
	"decision":             {KindSelection: true, KindGate: true, KindGoal: true, KindBrief: true, KindHandoffImport: true, "": true},
	"skip declaration":     {KindSkip: true, "": true},
	"opt-in selection":     {KindOptIn: true, "": true},
	"ready-to-ship record": {KindReadyToShip: true},
}

// Trusted filters st through the signer. st is not modified. A decision is
// dropped, and reported on its node, when the signer does not honour it
// (strict: check --recompute, where only a verified decision is honoured),
// or when it is not this item's: recorded for another work item, loop or
// node, or of a kind its map does not hold (a signed skip pasted in as an
// approval).
func Trusted(st *State, s *Signer, strict bool) TrustedView { return trusted(st, s, strict, nil) }

// Trusted is the package's Trusted with the runtime's binding: a verified
// decision that names another repository, or rests on a comment of another
// host, repository or ticket, is dropped too — and, under strict, one bound
// to no repository although the item's is known (bindingFault).
func (r *Runtime) Trusted(st *State, strict bool) TrustedView {
	return trusted(st, r.signer(), strict, func(d *Decision) string { return r.bindingFault(st, d, strict) })
}

// trusted filters st through s and, when fault is set, the binding fault
// finds in a verified decision.
func trusted(st *State, s *Signer, strict bool, fault func(*Decision) string) TrustedView {
	if fault == nil {
		fault = func(*Decision) string { return "" }
	}
	// A shallow copy with fresh decision maps: hooks only read the view, and
	// the filter below must not touch st.
	view := *st
	view.Decisions = copyDecisions(st.Decisions)
	view.Skips = copyDecisions(st.Skips)
	view.OptIns = copyDecisions(st.OptIns)
	view.Forced = append([]*Decision(nil), st.Forced...)
	view.ReadyToShip = copyDecisions(st.ReadyToShip)
	v := TrustedView{State: &view, Findings: map[string][]string{}}
	filter := func(m map[string]*Decision, what string) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, node := range keys {
			d := m[node]
			if why := misplaced(d, node, what); why != "" {
				delete(m, node)
				v.Dropped++
				v.Findings[node] = append(v.Findings[node], fmt.Sprintf("%s for %s %s — ignored", what, node, why))
				continue
			}
			ok, why := s.Honours(d, strict)
			switch {
			case !ok:
				delete(m, node)
				v.Dropped++
				v.Findings[node] = append(v.Findings[node], fmt.Sprintf("%s for %s %s — ignored", what, node, why))
			case why != "":
				v.Findings[node] = append(v.Findings[node], fmt.Sprintf("%s for %s is unsigned (no signing key is configured)", what, node))
			default:
				if why := firstFault(foreign(d, st), fault(d)); why != "" {
					delete(m, node)
					v.Dropped++
					v.Findings[node] = append(v.Findings[node], fmt.Sprintf("%s for %s %s — ignored", what, node, why))
				}
			}
		}
	}
	filter(v.State.Decisions, "decision")
	filter(v.State.Skips, "skip declaration")
	filter(v.State.OptIns, "opt-in selection")
	filter(v.State.ReadyToShip, "ready-to-ship record")
	if d := v.State.Repos; d != nil {
		ok, why := s.Honours(d, strict)
		switch {
		case d.Kind != KindRepos:
			why = fmt.Sprintf("is a %s record, not a repository declaration", d.Kind)
			ok = false
		case ok && why == "" && d.WorkItem != st.WorkItem:
			why, ok = "was recorded for another work item", false
		case ok && why == "" && fault(d) != "":
			why, ok = fault(d), false
		}
		if !ok {
			v.State.Repos = nil
			v.Dropped++
			v.Findings[d.Node] = append(v.Findings[d.Node], fmt.Sprintf("repository declaration %s — ignored; declare again with `the-loop graph repos`", why))
		}
	}
	forced := v.State.Forced[:0]
	for _, f := range v.State.Forced {
		ok, why := s.Honours(f, strict)
		if ok && (why != "" || (f.WorkItem == st.WorkItem && fault(f) == "")) {
			forced = append(forced, f)
		}
	}
	v.State.Forced = forced
	v.trustReceipts(st, s, strict, fault)
	return v
}

// firstFault is the first non-empty reason.
func firstFault(whys ...string) string {
	for _, w := range whys {
		if w != "" {
			return w
		}
	}
	return ""
}

// misplaced says why d cannot belong under node ("" when it can).
func misplaced(d *Decision, node, what string) string {
	switch {
	case d.Node != node:
		return fmt.Sprintf("was recorded for %s", d.Node)
	case !decisionKinds[what][d.Kind]:
		return fmt.Sprintf("is a %s record, not a %s", d.Kind, what)
	}
	return ""
}

// foreign says why a genuinely signed decision belongs to another walk.
func foreign(d *Decision, st *State) string {
	switch {
	case d.WorkItem != st.WorkItem:
		return "was recorded for another work item"
	case d.Loop != "" && st.Loop != "" && d.Loop != st.Loop:
		return fmt.Sprintf("was recorded in %s, not %s", d.Loop, st.Loop)
	}
	return ""
}

func copyDecisions(m map[string]*Decision) map[string]*Decision {
	out := make(map[string]*Decision, len(m))
	for k, d := range m {
		out[k] = d
	}
	return out
}

// SkipSet is the validated declared-skip set of a work item.
type SkipSet struct {
	// Skipped maps a node to its provenance.
	Skipped map[string]*Decision
	// Invalid lists state skips on nodes that cannot be skipped.
	Invalid map[string]bool
	// Artifacts are artifact names whose authoring node is skipped: their
	// absence is planned. Only the first node that produces a name authors
	// it, so skipping a later re-gating node never excuses an earlier one.
	Artifacts map[string]bool
}

// DeclaredSkips computes the validated skip set from a trusted state.
func DeclaredSkips(g *Graph, st *State) SkipSet {
	set := SkipSet{Skipped: map[string]*Decision{}, Invalid: map[string]bool{}, Artifacts: map[string]bool{}}
	for node, d := range st.Skips {
		n, ok := g.Node(node)
		if !ok || !n.Skippable || n.Required {
			set.Invalid[node] = true
			continue
		}
		set.Skipped[node] = d
	}
	for _, n := range g.Nodes {
		if n.OptIn {
			if _, sel := st.OptIns[n.ID]; !sel {
				if _, dup := set.Skipped[n.ID]; !dup {
					set.Skipped[n.ID] = &Decision{Node: n.ID, Kind: KindSkip, Via: ViaNotSelected}
				}
			}
		}
		if n.RequiresHandoff && st.Handoff == nil {
			set.Skipped[n.ID] = &Decision{Node: n.ID, Kind: KindSkip, Via: ViaNoHandoff}
		}
	}
	author := map[string]string{}
	for _, n := range g.Nodes {
		for _, slot := range n.Produces {
			for _, name := range Alternatives(slot) {
				if _, seen := author[name]; !seen {
					author[name] = n.ID
				}
			}
		}
	}
	for name, node := range author {
		if _, skipped := set.Skipped[node]; skipped {
			set.Artifacts[name] = true
		}
	}
	return set
}

// RouteSkips follows skipped edges from start past every skipped node and
// returns the first node that runs plus the nodes routed around. A skipped
// node without a skipped edge is walked (fail closed).
func RouteSkips(g *Graph, set SkipSet, start string) (string, []string) {
	var around []string
	seen := map[string]bool{}
	cur := start
	for {
		if _, skipped := set.Skipped[cur]; !skipped || seen[cur] {
			return cur, around
		}
		seen[cur] = true
		next, ok := g.Next(cur, "skipped")
		if !ok {
			return cur, around
		}
		around = append(around, cur)
		cur = next
	}
}

// Provenance renders how a node came to be skipped, for check.
func Provenance(d *Decision) string {
	switch d.Via {
	case ViaNotSelected:
		return "not selected — an opt-in phase, off unless it is ticked at `phase-selection`"
	case ViaNoHandoff:
		return "not run — this work item carries no handoff"
	case ViaHandoff:
		by := d.By
		if by == "" {
			by = "unknown"
		}
		return fmt.Sprintf("skipped by handoff (declared by %s)", by)
	}
	via := d.Via
	if via == "" {
		via = "unknown"
	}
	var b strings.Builder
	b.WriteString("skipped by declaration — via ")
	b.WriteString(via)
	if d.Token != "" {
		fmt.Fprintf(&b, ", token %q", d.Token)
	}
	if d.By != "" {
		b.WriteString(", by " + d.By)
	}
	if d.Reason != "" {
		b.WriteString(", reason: " + d.Reason)
	}
	return b.String()
}

// ExpandSkipTokens resolves skip tokens (set names first, then skippable node
// ids) into node → token, and the rejected tokens.
func ExpandSkipTokens(g *Graph, tokens []string) ([]string, map[string]string, []string) {
	var order []string
	accepted := map[string]string{}
	var rejected []string
	add := func(node, tok string) {
		if _, ok := accepted[node]; !ok {
			accepted[node] = tok
			order = append(order, node)
		}
	}
	for _, t := range tokens {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if members, ok := g.SkipSets[t]; ok {
			for _, m := range members {
				add(m, t)
			}
			continue
		}
		if n, ok := g.Node(t); ok && n.Skippable && !n.Required {
			add(t, t)
			continue
		}
		rejected = append(rejected, t)
	}
	return order, accepted, rejected
}

// SkipTokenRefusal says why a skip token was rejected, naming the nearest
// skippable nodes and skip sets of g when the token is close to one.
func SkipTokenRefusal(g *Graph, token string) string {
	why := "not a skippable node or shipped skip set"
	var names []string
	for set := range g.SkipSets {
		names = append(names, set)
	}
	sort.Strings(names)
	for _, n := range g.Nodes {
		if n.Skippable && !n.Required {
			names = append(names, n.ID)
		}
	}
	if _, isNode := g.Node(token); !isNode {
		if hint := nearest.Phrase(nearest.Close(token, names)); hint != "" {
			why += "; " + hint
		}
	}
	return why
}
