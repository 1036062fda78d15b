package checklist

import (
	"fmt"
	"sort"
	"strings"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/authz"
)

// contributionLoop owns no outer loop, so it is not asked where to iterate one.
const contributionLoop = "pdlc-contribution-loop"

// Handoff pre-fills the checklist for a work item handed off mid-stream:
// every skippable phase before Enter is rendered unticked, and one line says
// who handed it off at which stage. The replier still signs the selection.
type Handoff struct {
	// By is the login that posted the handoff ("@dev").
	By string
	// Stage is the stage the record declares ("requirements-settled").
	Stage string
	// Enter is the node the handed-off walk enters.
	Enter string
	// RecordURL links the handoff record comment, when known.
	RecordURL string
}

// Options shape one checklist.
type Options struct {
	// Node is the gate's own node id; it is never listed as a phase.
	Node string
	// ExecuteKeyword signs the selection ("" when the command is disabled).
	ExecuteKeyword string
	// SessionPerPR is the pre-ticked pr-sessions mode.
	SessionPerPR string
	// OfferSurface asks where the outer loop is iterated.
	OfferSurface bool
	// Models and Efforts are the operator's declared groups (names that are
	// not valid row tokens are not offered).
	Models  []string
	Efforts []string
	// Harnesses are the configured harnesses, offered when there are
	// several.
	Harnesses []string
	// Handoff, when set, pre-unticks the phases before its Enter node.
	Handoff *Handoff
	// OfferArmChildren asks whether the loop arms the item's children in
	// dependency order (dag.enabled).
	OfferArmChildren bool
}

// OptionsFor returns the options for node's checklist in g under cfg.
func OptionsFor(g *runtime.Graph, cfg *config.Config, node string) Options {
	if cfg == nil {
		cfg = config.Default()
	}
	mode := cfg.Routing.SessionPerPR
	if !knownMode(mode) {
		mode = DefaultSessionMode
	}
	return Options{
		Node:           node,
		ExecuteKeyword: cfg.Keyword("execute"),
		SessionPerPR:   mode,
		OfferSurface:   g.Name != contributionLoop,
		Models:         validNames(cfg.Routing.Models),
		Efforts:        validNames(cfg.Routing.Efforts),
		Harnesses:      offeredHarnesses(cfg),

		OfferArmChildren: cfg.DependenciesOn(),
	}
}

// offeredHarnesses are the configured harnesses, in name order, when the
// operator configured more than one.
func offeredHarnesses(cfg *config.Config) []string {
	if len(cfg.Harnesses) < 2 {
		return nil
	}
	names := make([]string, 0, len(cfg.Harnesses))
	for n := range cfg.Harnesses {
		names = append(names, n)
	}
	sort.Strings(names)
	return validNames(names)
}

func knownMode(m string) bool {
	for _, s := range SessionModes {
		if s == m {
			return true
		}
	}
	return false
}

func validNames(names []string) []string {
	var out []string
	for _, n := range names {
		if n = strings.TrimSpace(n); validName.MatchString(n) {
			out = append(out, n)
		}
	}
	return out
}

// sessionRowText explains each pr-sessions mode.
var sessionRowText = map[string]string{
	"never":            "every pull request's events go to this work item's one session",
	"cross-repository": "only a pull request in another repository gets a session of its own",
	"always":           "every pull request gets a session of its own, this repository's included",
}

// SessionModeText explains a pr-sessions mode in one line.
func SessionModeText(mode string) string { return sessionRowText[mode] }

// handoffUnticked reports whether the handoff pre-unticks node.
func handoffUnticked(g *runtime.Graph, h *Handoff, n *runtime.Node) bool {
	if h == nil || !n.Skippable || n.OptIn {
		return false
	}
	enter, ok := g.Node(h.Enter)
	return ok && n.Index() < enter.Index()
}

// protected are the nodes that always run: not skippable, not terminal, not
// the gate itself, and not a handoff-only node on an item without one.
func protected(g *runtime.Graph, o Options) []string {
	var out []string
	for _, n := range g.Nodes {
		if n.Skippable || n.Terminal || n.ID == o.Node || (n.RequiresHandoff && o.Handoff == nil) {
			continue
		}
		out = append(out, n.ID)
	}
	return out
}

func box(ticked bool) string {
	if ticked {
		return "- [x] "
	}
	return "- [ ] "
}

// Render returns the checklist comment body for g, ending with Marker. The
// caller adds the self-authored marker when posting it.
func Render(g *runtime.Graph, o Options) string {
	var b strings.Builder
	b.WriteString("🤖 _the-loop_ — **choose the phases for this work item**\n\n")
	if h := o.Handoff; h != nil {
		fmt.Fprintf(&b, "Handed off by %s at `%s`", authz.At(h.By), h.Stage)
		if h.RecordURL != "" {
			fmt.Fprintf(&b, " ([record](%s))", h.RecordURL)
		}
		fmt.Fprintf(&b, " — the phases before `%s` start unticked.\n\n", h.Enter)
	}
	var optIns, skippable []*runtime.Node
	for _, n := range g.Nodes {
		switch {
		case n.OptIn:
			optIns = append(optIns, n)
		case n.Skippable:
			skippable = append(skippable, n)
		}
	}
	b.WriteString("Untick, right here in this comment, any phase this work item does not need")
	if len(optIns) > 0 {
		b.WriteString(", and tick any optional phase it should get")
	}
	b.WriteString(". ")
	if o.ExecuteKeyword != "" {
		fmt.Fprintf(&b, "Then reply `%s`: that reply signs the selection, and the boxes as they stand at that moment are frozen for the rest of the walk.\n\n", o.ExecuteKeyword)
	} else {
		b.WriteString("The execute command is disabled in this deployment (`routing.control.keywords.execute`), so no reply can sign this selection until an operator enables it.\n\n")
	}
	if len(skippable) > 0 {
		b.WriteString("**Phases** — a ticked phase runs.\n\n")
		for _, n := range skippable {
			b.WriteString(box(!handoffUnticked(g, o.Handoff, n)) + n.ID + "\n")
		}
		b.WriteString("\n")
	}
	if names := g.SkipSetNames(); len(names) > 0 {
		b.WriteString("**Shortcuts** — unticking one removes every phase it lists; left ticked, each phase follows its own box.\n\n")
		for _, s := range names {
			fmt.Fprintf(&b, "%s%s — %s\n", box(true), s, strings.Join(g.SkipSets[s], ", "))
		}
		b.WriteString("\n")
	}
	if len(optIns) > 0 {
		b.WriteString("**Optional phases** — these run only if you tick them.\n\n")
		for _, n := range optIns {
			b.WriteString(box(false) + n.ID)
			if n.Description != "" {
				b.WriteString(" — " + n.Description)
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	if p := protected(g, o); len(p) > 0 {
		b.WriteString("These always run and have no box:\n\n")
		for _, id := range p {
			b.WriteString("- " + id + "\n")
		}
		b.WriteString("\n")
	} else if len(skippable) > 0 {
		b.WriteString("**Every phase of this loop can be unticked** — the reviews, the security review and the approval gates included. Each box you untick is recorded as an omission under your name.\n\n")
	}
	renderNonPhase(&b, o)
	if o.ExecuteKeyword != "" {
		fmt.Fprintf(&b, "To run every default phase, reply `%s` and touch nothing. You may instead put a checklist in that reply: its rows win over the boxes above, and the rows it leaves out keep their defaults. Only a reply from an authorized user counts.\n\n", o.ExecuteKeyword)
	}
	b.WriteString(Marker + "\n")
	return b.String()
}

func renderNonPhase(b *strings.Builder, o Options) {
	if o.OfferSurface {
		b.WriteString("**Where should the outer loop be iterated?**\n\n")
		b.WriteString(box(false) + "`" + SurfaceToken + "` — on a pull request in this repository.\n\n")
		b.WriteString("Left unticked, the spec artifacts are discussed here, as comments on this work item.\n\n")
	} else {
		b.WriteString("A contribution places no outer loop: its plan is discussed on this thread.\n\n")
	}
	b.WriteString("**How many sessions should this work item's pull requests get?** Tick exactly one.\n\n")
	for _, m := range SessionModes {
		fmt.Fprintf(b, "%s`%s%s` — %s\n", box(m == o.SessionPerPR), SessionsPrefix, m, sessionRowText[m])
	}
	b.WriteString("\nThe ticked row is the operator's default (`routing.sessionPerPr`). With none ticked, or several, nothing is chosen and the default applies — including a later change to it. A pull request gets a session of its own only when it can get its own working tree.\n\n")
	if len(o.Models) > 0 {
		b.WriteString("**Which model should this work item's sessions run on?** Tick at most one.\n\n")
		for _, m := range o.Models {
			b.WriteString(box(false) + "`" + ModelPrefix + m + "`\n")
		}
		b.WriteString("\n")
	}
	if len(o.Efforts) > 0 {
		b.WriteString("**How much effort should they spend?** Tick at most one.\n\n")
		for _, e := range o.Efforts {
			b.WriteString(box(false) + "`" + EffortPrefix + e + "`\n")
		}
		b.WriteString("\n")
	}
	if len(o.Harnesses) > 0 {
		b.WriteString("**Which harness should run this work item's sessions?** Tick at most one.\n\n")
		for _, h := range o.Harnesses {
			b.WriteString(box(false) + "`" + HarnessPrefix + h + "`\n")
		}
		b.WriteString("\nA node the loop's configuration pins to a harness (`sessions.nodes`) keeps it.\n\n")
	}
	if len(o.Models) > 0 || len(o.Efforts) > 0 || len(o.Harnesses) > 0 {
		b.WriteString("Leave a group alone, or tick more than one, and the configured setting applies.\n\n")
	}
	if o.OfferArmChildren {
		b.WriteString("**Should the loop arm this item's children?**\n\n")
		b.WriteString(box(false) + "`" + ArmChildrenToken + "` — arm its sub-issues (Jira: child issues and subtasks) in dependency order, each when its blockers finish; every child still gets its own phase selection.\n\n")
	}
}
