package artifacts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/internal/markdown"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
)

// What an approval binds. lock-artifacts records, in the gate's signed
// decision, the hash of each locked artifact's exact bytes (lockedHashes,
// which the risk tier reads) and of its approved form (boundHashes): the
// text with what a later node of the graph is declared to fill erased —
// the sections a later node's validate-artifacts names for that artifact,
// and the state of its task boxes when that node requires them ticked.
// verification fills testing-plan.md's Verification results and ticks its
// boxes after design-approval approved it; any other change to an approved
// artifact changes its approved form, and the approval stops counting.
const (
	lockedHashesKey = "lockedHashes"
	boundHashesKey  = "boundHashes"
)

// laterFills says what the nodes declared after gate fill in artifact
// name: the sections their validate-artifacts entries name for it, and
// whether one requires its task boxes ticked. A node fills name when it
// produces it or an entry of its exit chain validates it.
func laterFills(g *runtime.Graph, gate *runtime.Node, name string) (sections []string, ticks bool) {
	if g == nil || gate == nil {
		return nil, false
	}
	for _, n := range g.Nodes {
		if n.Index() <= gate.Index() {
			continue
		}
		produces := slices.ContainsFunc(specdir.ParseSlots(n.Produces), func(s specdir.Slot) bool { return slices.Contains(s.Names, name) })
		for _, e := range n.Exit {
			if e.Hook != HookValidate {
				continue
			}
			p := &runtime.HookContext{Params: e.With}
			validates := specdir.ParseSlots(p.ListParam("validates"))
			applies := slices.ContainsFunc(validates, func(s specdir.Slot) bool { return slices.Contains(s.Names, name) })
			if len(validates) == 0 {
				applies = produces
			}
			if !applies {
				continue
			}
			sections = append(sections, p.ListParam("sections")...)
			ticks = ticks || p.Param("checkmarks") == "complete"
		}
	}
	sort.Strings(sections)
	return slices.Compact(sections), ticks
}

// approvedForm is text as an approval at gate binds it.
func approvedForm(g *runtime.Graph, gate *runtime.Node, name, text string) string {
	sections, ticks := laterFills(g, gate, name)
	form := markdown.BlankSections(text, sections)
	if ticks {
		form = markdown.ClearTicks(form)
	}
	return form
}

// boundHash is the hash of name's approved form at gate.
func boundHash(g *runtime.Graph, gate *runtime.Node, name string, b []byte) string {
	return handoff.HashLF([]byte(approvedForm(g, gate, name, string(b))))
}

// hashesOf reads a per-artifact hash map of a decision's data.
func hashesOf(dec *runtime.Decision, key string) map[string]string {
	if dec == nil {
		return nil
	}
	m, _ := dec.Data[key].(map[string]any)
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// Binding is what a recorded approval at the current gate still holds.
type Binding struct {
	// Changed are the approved artifacts whose approved form differs now;
	// Gone those that no longer exist.
	Changed, Gone []string
	// Unbound: the gate locks artifacts but the approval records no hash
	// of what it approved (recorded before approvals were bound).
	Unbound bool
}

// Holds reports whether the approval still covers what is there.
func (b Binding) Holds() bool { return len(b.Changed) == 0 && len(b.Gone) == 0 && !b.Unbound }

// Stale lists the artifacts that changed or went, in name order.
func (b Binding) Stale() []string {
	out := append(append([]string(nil), b.Changed...), b.Gone...)
	sort.Strings(out)
	return out
}

// CheckBinding compares what the approval dec, recorded at the current
// node, approved with the artifacts as they are: each approved form
// against boundHashes, or, for an approval recorded before those, the
// exact bytes against lockedHashes. An approval at a node that locks
// artifacts and records neither is Unbound.
func CheckBinding(hc *runtime.HookContext, dec *runtime.Decision) (Binding, error) {
	var b Binding
	bound, exact := hashesOf(dec, boundHashesKey), false
	if bound == nil {
		bound, exact = hashesOf(dec, lockedHashesKey), true
	}
	if bound == nil {
		b.Unbound = locksArtifacts(hc.Node)
		return b, nil
	}
	d, err := specdir.Open(hc)
	if err != nil {
		return b, err
	}
	defer d.Close()
	names := make([]string, 0, len(bound))
	for n := range bound {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		data, err := d.Bytes(n)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			b.Gone = append(b.Gone, n)
			continue
		case err != nil:
			return b, err
		}
		got := handoff.HashLF(data)
		if !exact {
			got = boundHash(hc.Graph, hc.Node, n, data)
		}
		if got != bound[n] {
			b.Changed = append(b.Changed, n)
		}
	}
	return b, nil
}

// locksArtifacts reports a node whose exit chain locks artifacts.
func locksArtifacts(n *runtime.Node) bool {
	if n == nil {
		return false
	}
	return slices.ContainsFunc(n.Exit, func(e runtime.ChainEntry) bool { return e.Hook == HookLock })
}

// BindApproval records in dec, an approval recorded at gate, what
// lock-artifacts records when an approval is given: the hash of each
// artifact gate locks, as it stands in specDir, and of its approved form.
// Every such artifact must carry the lock (front matter status: approved).
// It is the migration of an approval recorded before approvals were bound
// (`the-loop keys resign`), run where the key lives, and returns the names
// it bound; a gate that locks nothing binds nothing and dec is unchanged.
func BindApproval(g *runtime.Graph, gate *runtime.Node, specDir string, dec *runtime.Decision) ([]string, error) {
	if !locksArtifacts(gate) {
		return nil, nil
	}
	root, err := os.OpenRoot(specDir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var names []string
	for _, e := range gate.Exit {
		if e.Hook != HookLock {
			continue
		}
		for _, s := range specdir.ParseSlots((&runtime.HookContext{Params: e.With}).ListParam("artifacts")) {
			for _, n := range s.Names {
				if _, err := root.Stat(n); err == nil {
					names = append(names, n)
				}
			}
		}
	}
	hashes, bound := map[string]any{}, map[string]any{}
	for _, n := range names {
		b, err := root.ReadFile(n)
		if err != nil {
			return nil, err
		}
		fm, _ := markdown.SplitFrontMatter(string(b))
		if msg, ok := lockFinding(fm); !ok {
			return nil, fmt.Errorf("%s: %s", n, msg)
		}
		hashes[n], bound[n] = handoff.HashLF(b), boundHash(g, gate, n, b)
	}
	if dec.Data == nil {
		dec.Data = map[string]any{}
	}
	dec.Data[lockedHashesKey], dec.Data[boundHashesKey] = hashes, bound
	return names, nil
}
