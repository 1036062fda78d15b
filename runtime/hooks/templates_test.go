package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/critic"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/internal/markdown"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/artifacts"
	"github.com/the-loop/the-loop/runtime/hooks/gates"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
	"github.com/the-loop/the-loop/runtime/hooks/reviews"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
)

// The artifact templates ship with the plugin's operating-model skill. These
// tests hold them to the product's own exit hooks: every artifact a shipped
// hook reads has a template, a template filled in by an author passes every hook
// that reads it, and an untouched one passes none.

var templatesDir = filepath.Join("..", "..", "skills", "operating-model", "templates")

// renderValues are the placeholders a template carries.
var renderValues = map[string]string{"{{id}}": "issue-1", "{{title}}": "Export reports as CSV", "{{criterion}}": "a report exports as CSV"}

// sampleSections is what an author writes into a section the template
// leaves empty; any other empty section gets defaultSample.
var sampleSections = map[string]string{
	"Security considerations": "Untrusted actor: any signed-in user.\n\n- trust boundary: the export endpoint\n- abuse case: exporting another tenant's report",
	"Security design":         "- trust boundary: the export endpoint checks the tenant on every request\n- abuse case: another tenant's report is refused (TestExportRefusesOtherTenant)",
	"Architecture":            "```mermaid\nflowchart LR\n  user[\"User\"] -->|\"export\"| api[\"API\"]\n  api --> store[(\"Reports\")]\n```",
	"Task list":               "- [ ] T1 export endpoint | Requirements: R1 | Test: integration | Depends on: none",
	"Activities":              "- [ ] run the integration suite",
	"Success criteria":        "- [ ] {{criterion}}",
}

const defaultSample = "Written by the author."

// sampleRuns is the critic round the filled-in critic-review record names,
// recorded by the loop in every reader context.
const sampleRun = "cr-20260301T100000Z-1a2b3c4d5e6f"

// sampleRows are the rows an author adds to a template's round table,
// which is the last thing in the file.
var sampleRows = map[string]string{
	"evidence/self-review.md":   "| 1 | 2 | 2 | 3f2a1c9 |\n| 2 | 0 | 0 | — |\n",
	"evidence/critic-review.md": "| 1 | codex | " + sampleRun + " | 0 | 0 | — |\n",
}

// outsideGraphTemplates are shipped templates no artifact hook reads: the
// capability doc (docs/capabilities/), the reviewer briefing (rendered onto
// each pull request by post-reviewer-briefing) and the documentation record
// (also read by ready-to-ship; package shipready's tests hold both to it).
var outsideGraphTemplates = []string{"capability.md", "pr-briefing.md", "evidence/documentation.md"}

// diagramTemplates must each carry a diagram that parses.
var diagramTemplates = []string{"capability.md", "pr-briefing.md"}

// artifactHooks are the exit hooks that read a node's artifacts.
var artifactHooks = map[string]bool{artifacts.HookValidate: true, artifacts.HookLint: true, artifacts.HookBoundaries: true, artifacts.HookSuccessCriteria: true,
	reviews.HookReviewRounds: true}

func readTemplate(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(templatesDir, filepath.FromSlash(name)))
	require.NoError(t, err, "no template ships for %s", name)
	return string(data)
}

func substitute(text string) string {
	for k, v := range renderValues {
		text = strings.ReplaceAll(text, k, v)
	}
	return text
}

var headingRE = regexp.MustCompile(`^#{1,6} `)

// renderTemplate fills a template the way an author would: placeholders
// replaced and every empty section written.
func renderTemplate(t *testing.T, name string) string {
	t.Helper()
	lines := strings.Split(readTemplate(t, name), "\n")
	var out []string
	for i, l := range lines {
		out = append(out, l)
		if !headingRE.MatchString(l) || !sectionEmptyAt(lines, i+1) {
			continue
		}
		sample, ok := sampleSections[strings.TrimSpace(strings.TrimLeft(l, "#"))]
		if !ok {
			sample = defaultSample
		}
		out = append(out, "", sample)
	}
	text := substitute(strings.Join(out, "\n")) + sampleRows[name]
	require.NotContains(t, text, "{{", "%s has a placeholder the test does not know", name)
	return text
}

// sectionEmptyAt reports only blank lines from i to the next heading.
func sectionEmptyAt(lines []string, i int) bool {
	for ; i < len(lines); i++ {
		switch {
		case headingRE.MatchString(lines[i]):
			return true
		case strings.TrimSpace(lines[i]) != "":
			return false
		}
	}
	return true
}

func tickAll(text string) string { return strings.ReplaceAll(text, "- [ ]", "- [x]") }

// readerEntry is one artifact-reading exit hook of a shipped node.
type readerEntry struct {
	graph *runtime.Graph
	node  *runtime.Node
	entry runtime.ChainEntry
	index int
}

func (e readerEntry) name() string {
	return fmt.Sprintf("%s/%s/%d-%s", e.graph.Name, e.node.ID, e.index, e.entry.Hook)
}

func shippedReaderEntries(t *testing.T) []readerEntry {
	var out []readerEntry
	for _, name := range graphs.Names() {
		g := compileShipped(t, name)
		for _, n := range g.Nodes {
			for i, e := range n.Exit {
				if artifactHooks[e.Hook] {
					out = append(out, readerEntry{graph: g, node: n, entry: e, index: i})
				}
			}
		}
	}
	require.NotEmpty(t, out)
	return out
}

// readerWorld is what one reader entry reads: the slots to write and the
// artifacts whose absence is planned.
type readerWorld struct {
	slots   []specdir.Slot
	skipped []string
}

func worldOf(t *testing.T, e readerEntry) readerWorld {
	hc := hooktest.NewContext(t, e.node, e.entry.With)
	var w readerWorld
	switch e.entry.Hook {
	case artifacts.HookSuccessCriteria:
		w.slots = specdir.ParseSlots([]string{"contribution.md|evidence/verification.md"})
	case artifacts.HookBoundaries:
		w.slots = append(specdir.NodeSlots(hc), specdir.ParamSlots(hc, "upstream")...)
	default:
		w.slots = append(specdir.NodeSlots(hc), specdir.ParamSlots(hc, "validates")...)
	}
	if runtime.Truthy(e.entry.With["onlyWhenSkipped"]) {
		for _, s := range specdir.ParamSlots(hc, "onlyWhenSkipped") {
			w.skipped = append(w.skipped, s.Names...)
		}
		// The planned-absent artifact is the node's own product: the entry
		// gates only what `validates` names.
		w.slots = specdir.ParamSlots(hc, "validates")
	}
	return w
}

// variants picks one alternative per slot: variant j takes each slot's j-th
// name (its last when it has fewer).
func (w readerWorld) variants() [][]string {
	n := 1
	for _, s := range w.slots {
		n = max(n, len(s.Names))
	}
	out := make([][]string, n)
	for j := range out {
		for _, s := range w.slots {
			out[j] = append(out[j], s.Names[min(j, len(s.Names)-1)])
		}
	}
	return out
}

func runReader(t *testing.T, e readerEntry, hc *runtime.HookContext) runtime.Result {
	t.Helper()
	spec, ok := shippedRegistry(t).Lookup(e.entry.Hook)
	require.True(t, ok, e.entry.Hook)
	fn := spec.Func
	hc.Params = e.entry.With
	if hc.Params == nil {
		hc.Params = map[string]any{}
	}
	res, err := fn(hc)
	require.NoError(t, err)
	return res
}

func readerContext(t *testing.T, e readerEntry, w readerWorld) *runtime.HookContext {
	hc := hooktest.NewContext(t, e.node, e.entry.With)
	hc.Graph = e.graph
	hc.ReadOnly = true
	for _, s := range w.skipped {
		hc.SkippedArtifacts[s] = true
	}
	criteria := []any{renderValues["{{criterion}}"]}
	hc.State = &runtime.State{Decisions: map[string]*runtime.Decision{
		"goal-definition": {Node: "goal-definition", Data: map[string]any{"goal": map[string]any{"criteria": criteria}}},
	}}
	// The loop configured one critic and recorded one of its rounds here.
	hc.Config = config.Default()
	hc.Config.Critic.Critics = []critic.Critic{{Name: "codex", Command: []string{"codex", "exec", "-"}}}
	hc.State.CriticRuns = []*runtime.Decision{runtime.NewCriticRunReceipt(runtime.CriticRun{ID: sampleRun, Critic: "codex", Node: e.node.ID}, "p", "o")}
	return hc
}

// TestTemplatesPassTheHooksThatReadThem writes, for every artifact-reading
// exit hook of every shipped node, the filled-in templates of the files it
// reads, runs the hook, and expects a pass. A hook that requires every box
// ticked must first block on the template's unticked boxes.
func TestTemplatesPassTheHooksThatReadThem(t *testing.T) {
	covered := map[string]bool{}
	for _, e := range shippedReaderEntries(t) {
		w := worldOf(t, e)
		for j, files := range w.variants() {
			t.Run(fmt.Sprintf("%s/%d", e.name(), j), func(t *testing.T) {
				hc := readerContext(t, e, w)
				boxes := 0
				for _, f := range files {
					text := renderTemplate(t, f)
					boxes += markdown.CountUnticked(text)
					hooktest.WriteArtifact(t, hc, f, text)
					covered[f] = true
				}
				tickedGate := e.entry.With["checkmarks"] == "complete" || e.entry.Hook == artifacts.HookSuccessCriteria
				if tickedGate && boxes > 0 {
					res := runReader(t, e, hc)
					require.Equal(t, runtime.Block, res.Status, "an unticked template must not pass %s", e.name())
					for _, f := range files {
						hooktest.WriteArtifact(t, hc, f, tickAll(renderTemplate(t, f)))
					}
				}
				res := runReader(t, e, hc)
				assert.Equal(t, runtime.Pass, res.Status, "%v: %v", files, hooktest.Texts(res))
			})
		}
	}
	// No template ships that no hook reads, apart from those read outside
	// the graph.
	shipped := templateNames(t)
	for _, n := range outsideGraphTemplates {
		covered[n] = true
	}
	for _, n := range shipped {
		assert.True(t, covered[n], "template %s is read by no shipped hook", n)
	}
}

// TestUntouchedTemplatesPassNoHook: a template copied without writing
// anything blocks every hook that demands sections, on an empty section —
// never on a missing one, so each required heading is spelled exactly as
// the hook spells it.
func TestUntouchedTemplatesPassNoHook(t *testing.T) {
	for _, e := range shippedReaderEntries(t) {
		if e.entry.Hook != artifacts.HookValidate || len(hcList(e.entry.With["sections"])) == 0 {
			continue
		}
		w := worldOf(t, e)
		for j, files := range w.variants() {
			t.Run(fmt.Sprintf("%s/%d", e.name(), j), func(t *testing.T) {
				hc := readerContext(t, e, w)
				for _, f := range files {
					hooktest.WriteArtifact(t, hc, f, substitute(readTemplate(t, f)))
				}
				res := runReader(t, e, hc)
				require.Equal(t, runtime.Block, res.Status, "an untouched template passed %s", e.name())
				for _, m := range hooktest.Texts(res) {
					assert.NotContains(t, m, "required section is missing", e.name())
				}
				assert.Contains(t, strings.Join(hooktest.Texts(res), "\n"), "required section is empty: ", e.name())
			})
		}
	}
}

func hcList(v any) []any {
	l, _ := v.([]any)
	return l
}

func templateNames(t *testing.T) []string {
	t.Helper()
	var names []string
	require.NoError(t, filepath.WalkDir(templatesDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(templatesDir, p)
		names = append(names, filepath.ToSlash(rel))
		return err
	}))
	require.NotEmpty(t, names)
	return names
}

// TestTemplatesNeverLock: no template carries a lock or an approver; only a
// gate writes those.
func TestTemplatesNeverLock(t *testing.T) {
	for _, name := range templateNames(t) {
		text := readTemplate(t, name)
		fm, _ := markdown.SplitFrontMatter(substitute(text))
		assert.NotEqual(t, "approved", markdown.String(fm["status"]), name)
		assert.NotContains(t, fm, "approvedBy", name)
		assert.NotContains(t, text, "## Review comments", "%s: that section is the gate's", name)
	}
}

// TestTemplatesLeaveTheRiskTierAlone: filled-in templates name no sensitive
// path, so they do not raise a work item's risk tier.
func TestTemplatesLeaveTheRiskTierAlone(t *testing.T) {
	hc := hooktest.NewContext(t, nil, nil)
	for _, f := range []string{"requirements.md", "design.md", "tasks.md"} {
		hooktest.WriteArtifact(t, hc, f, renderTemplate(t, f))
	}
	assert.Equal(t, gates.DefaultRiskTier, gates.RiskTier(hc))
}

// TestTemplatesCarryDiagramsThatParse: the capability doc and the PR
// briefing are not gated in the spec folder, but their diagrams must parse.
func TestTemplatesCarryDiagramsThatParse(t *testing.T) {
	for _, name := range diagramTemplates {
		text := substitute(readTemplate(t, name))
		blocks := markdown.MermaidBlocks(text)
		require.NotEmpty(t, blocks, "%s carries a diagram", name)
		faults, notes := markdown.CheckMermaid(blocks)
		assert.Empty(t, faults, name)
		assert.Empty(t, notes, "%s uses a diagram type the check parses", name)
	}
	assert.Contains(t, markdown.Sections(readTemplate(t, "pr-briefing.md")), "Where to focus")
	assert.Contains(t, markdown.Sections(readTemplate(t, "capability.md")), "History")
}

// TestSkillTableMatchesTheGates: the operating-model skill's table names,
// for every shipped section check, the node, the artifact and each section.
func TestSkillTableMatchesTheGates(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(templatesDir, "..", "SKILL.md"))
	require.NoError(t, err)
	rows := map[string][]string{}
	for _, l := range strings.Split(string(data), "\n") {
		cells := strings.Split(strings.ReplaceAll(l, `\|`, "/"), "|")
		if len(cells) < 5 {
			continue
		}
		for _, node := range strings.Split(cells[1], ",") {
			id := strings.Fields(strings.TrimSpace(node) + " x")[0]
			rows[id] = append(rows[id], strings.Join(cells[2:4], "|"))
		}
	}
	for _, e := range shippedReaderEntries(t) {
		if e.entry.Hook != artifacts.HookValidate {
			continue
		}
		w := worldOf(t, e)
		want := hcList(e.entry.With["sections"])
		found := false
		for _, row := range rows[e.node.ID] {
			ok := true
			for _, s := range w.slots {
				ok = ok && strings.Contains(row, s.Names[0])
			}
			for _, sec := range want {
				ok = ok && strings.Contains(row, fmt.Sprint(sec))
			}
			found = found || ok
		}
		assert.True(t, found, "the skill's table has no row for %s naming %v and %v", e.name(), w.slots, want)
	}
}
