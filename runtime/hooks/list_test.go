package hooks

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/gates"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
	"github.com/the-loop/the-loop/runtime/hooks/ship"
	"github.com/the-loop/the-loop/runtime/shipready"
)

func TestTheListBuildsARegistryOfEveryHook(t *testing.T) {
	reg := shippedRegistry(t)
	names := make([]string, 0, len(All))
	for _, s := range All {
		names = append(names, s.Name)
		assert.NotEmpty(t, s.Summary, "%s has a summary for docs/engine.md", s.Name)
		assert.Contains(t, []string{KindArtifact, KindGate, KindWork, KindHandoff, KindDepends, KindReview, KindShip}, s.Kind, "%s has a known kind", s.Name)
	}
	slices.Sort(names)
	assert.Equal(t, names, reg.Names())
}

// TestEveryHookAShippedGraphCallsIsListed: the compiler resolves names from
// the list alone, so a graph naming a hook outside it does not compile.
func TestEveryHookAShippedGraphCallsIsListed(t *testing.T) {
	for _, name := range graphs.Names() {
		g := compileShipped(t, name)
		for _, n := range g.Nodes {
			for _, e := range slices.Concat(n.Entry, n.Exit) {
				_, ok := shippedRegistry(t).Lookup(e.Hook)
				assert.True(t, ok, "%s/%s calls %s", name, n.ID, e.Hook)
			}
		}
	}
}

// hookUse is one place a hook is called from: its node and its with: block.
type hookUse struct {
	graph *runtime.Graph
	node  *runtime.Node
	with  map[string]any
}

// usesOf lists every entry of the shipped graphs calling hook, or one
// synthetic use (a human node with a phase, no parameters) when none does.
func usesOf(t *testing.T, hook string) []hookUse {
	t.Helper()
	var out []hookUse
	for _, name := range graphs.Names() {
		g := compileShipped(t, name)
		for _, n := range g.Nodes {
			for _, e := range slices.Concat(n.Entry, n.Exit) {
				if e.Hook == hook {
					out = append(out, hookUse{graph: g, node: n, with: e.With})
				}
			}
		}
	}
	if len(out) == 0 {
		g := compileShipped(t, graphs.Default)
		out = append(out, hookUse{graph: g, node: &runtime.Node{ID: "design-approval", Actor: runtime.ActorHuman, Phase: "design"}})
	}
	return out
}

// replies are the thread states a hook is run against: nothing yet, and one
// authorized reply of every kind a gate reads, plain and edited.
var replies = []string{
	"", "Approved.", "approved so far?", "Changes requested: rename the table.", "the-loop execute", "maybe the-loop execute later",
	"Goal: faster builds\nSuccess criteria:\n- build under 2 min", "Questions:\n- is the retry bounded?",
	"Security sign-off.", "no security sign-off yet", "Done.", "thanks!",
}

// runUse runs spec once per reply (plain and edited) and per risk world
// against a tracker restricted to the operations spec declares (and a code
// host restricted to its declared code-host operations, serving a pull
// request ready to ship, or one whose CI failed with an earlier briefing on it), and
// returns every operation attempted and every undeclared one ("host:"
// prefixes the code host's).
func runUse(t *testing.T, spec runtime.HookSpec, use hookUse) (calls, undeclared map[integrations.Op]bool) {
	calls, undeclared = map[integrations.Op]bool{}, map[integrations.Op]bool{}
	for _, sensitive := range []bool{false, true} {
		hc, _ := hooktest.GateContext(t, use.node, nil)
		hc.Graph = use.graph
		writeMentioned(t, hc, use, sensitive)
		for _, body := range replies {
			for _, world := range []string{"plain", "edited", "helped"} {
				edited := world == "edited"
				fake := &hooktest.Fake{Labels: []string{"loop:old"}}
				hc.Params, hc.State, hc.Event = maps.Clone(use.with), runtime.NewState("issue-1"), nil
				if hc.Params == nil {
					hc.Params = map[string]any{}
				}
				if world == "helped" {
					// the gate's help comment of this visit, about an earlier reply
					fake.Thread = []integrations.Comment{{ID: 5, Author: "the-loop-bot", Body: integrations.MarkSelfAuthored(
						"help\n<!-- the-loop:reply-help " + use.node.ID + " -->\n<!-- the-loop:reply-help-for 4 -->")}}
					hooktest.SetEvent(hc, fake.Thread...)
				}
				if body != "" {
					c := hooktest.Comment(7, "alice", body)
					if edited {
						c = hooktest.Edited(c)
					}
					fake.Thread = append(fake.Thread, c)
					hooktest.SetEvent(hc, fake.Thread...)
				}
				tracker := integrations.Restrict(fake, "hook "+spec.Name, spec.Ops)
				hc.Tracker = tracker
				host := hostWorld(t, hc, spec, edited)
				_, _ = spec.Func(hc)
				for _, op := range tracker.Calls() {
					calls[op] = true
				}
				for _, op := range tracker.Undeclared() {
					undeclared[op] = true
				}
				for _, op := range host.Calls() {
					calls["host:"+op] = true
				}
				for _, op := range host.Undeclared() {
					undeclared["host:"+op] = true
				}
			}
		}
	}
	return calls, undeclared
}

// hostWorld gives hc a code host restricted to spec's code-host operations:
// pull requests o/r#1 (an inner loop's ticket) and o/r#7 (linked to the
// item) at one head, ready to ship, a reviewer briefing to post and, with
// earlier, a failed check and the loop's briefing of an older head already
// on the thread.
func hostWorld(t *testing.T, hc *runtime.HookContext, spec runtime.HookSpec, earlier bool) *integrations.Restricted {
	t.Helper()
	const head = "0123456789abcdef0123456789abcdef01234567"
	fake := &hooktest.Fake{}
	fake.AddPull("o", "r", 1, hooktest.ReadyPull(head))
	fake.AddPull("o", "r", 7, hooktest.ReadyPull(head))
	if earlier { // and CI failed: the work goes back with what it says
		fake.AddPull("o", "r", 1, hooktest.FailingPull(head))
		fake.AddPull("o", "r", 7, hooktest.FailingPull(head))
		fake.Thread = []integrations.Comment{{ID: 3, Author: "the-loop-bot", Body: integrations.MarkSelfAuthored(shipready.BriefingKey + "\n<!-- the-loop:pr-briefing-head " + strings.Repeat("9", 40) + " -->")}}
	}
	hc.State.PullRequests = []*runtime.PullRequestLink{{Repo: "o/r", Number: 7, State: runtime.PullOpen}}
	hooktest.WriteArtifact(t, hc, ship.BriefingFile, filledBriefing)
	host := integrations.Restrict(fake, "hook "+spec.Name+" (code host)", spec.HostOps)
	hc.CodeHost = host
	return host
}

// filledBriefing fills every section of the shipped PR-briefing template.
const filledBriefing = "## Summary\n\nThe poller reads pull requests.\n\n## Where to focus\n\nservice/poll_pulls.go.\n\n" +
	"## What changed\n\n```mermaid\nflowchart LR\n  poller --> github\n```\n\n## Decisions and why\n\nOne listing per repository.\n\n" +
	"## How it was verified\n\ngo test ./service\n"

// writeMentioned writes every artifact the node produces or the entry
// names, and, in the sensitive world, a task list raising the risk tier.
func writeMentioned(t *testing.T, hc *runtime.HookContext, use hookUse, sensitive bool) {
	t.Helper()
	names := slices.Clone(use.node.Produces)
	for _, v := range use.with {
		if s, ok := v.(string); ok && strings.Contains(s, ".md") {
			names = append(names, s)
		}
	}
	for _, entry := range names {
		for _, n := range runtime.Alternatives(entry) {
			p := filepath.Join(hc.WorkItem.SpecDir, filepath.FromSlash(n))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte("# "+n+"\n\nWritten.\n"), 0o644))
		}
	}
	if sensitive {
		hooktest.WriteArtifact(t, hc, "tasks.md", "- [ ] T1 change .github/workflows/ci.yml\n")
	}
}

// TestHooksCallOnlyTheOperationsTheyDeclare runs every listed hook, at every
// place a shipped graph calls it, against every kind of reply, through a
// tracker that records and refuses what the hook's entry does not declare.
// A hook reaching an undeclared operation fails here (and is refused at run
// time); a declared operation no run reaches is a stale declaration that
// would make the start-up check ask providers for too much.
func TestHooksCallOnlyTheOperationsTheyDeclare(t *testing.T) {
	for _, spec := range All {
		t.Run(spec.Name, func(t *testing.T) {
			calls, undeclared := map[integrations.Op]bool{}, map[integrations.Op]bool{}
			for _, use := range usesOf(t, spec.Name) {
				c, u := runUse(t, spec, use)
				maps.Copy(calls, c)
				maps.Copy(undeclared, u)
			}
			assert.Empty(t, slices.Sorted(maps.Keys(undeclared)), "%s calls operations its entry in the list does not declare", spec.Name)
			declared := slices.Clone(spec.Ops)
			for _, op := range spec.HostOps {
				declared = append(declared, "host:"+op)
			}
			assert.ElementsMatch(t, declared, slices.Sorted(maps.Keys(calls)), "%s declares exactly the operations it calls", spec.Name)
		})
	}
}

// TestTheRestrictedTrackerCatchesAnUndeclaredCall proves the check above can
// fail: set-phase-label run with one operation left out of its declaration.
func TestTheRestrictedTrackerCatchesAnUndeclaredCall(t *testing.T) {
	hc, fake := hooktest.GateContext(t, &runtime.Node{ID: "design", Phase: "design"}, nil)
	tracker := integrations.Restrict(fake, "hook set-phase-label", []integrations.Op{integrations.OpAddLabels, integrations.OpRemoveLabel})
	hc.Tracker = tracker
	r, err := gates.SetPhaseLabel(hc)
	require.NoError(t, err)
	assert.Equal(t, []integrations.Op{integrations.OpGetIssue}, tracker.Undeclared())
	assert.Contains(t, r.Data["error"], "does not declare")
	assert.NotContains(t, fake.Calls, "get-issue", "the undeclared call never reached the provider")
}

// TestEngineDocListsEveryHook: docs/engine.md carries the table rendered
// from the list, so the documentation cannot drift from what ships.
// UPDATE_DOCS=1 rewrites it.
func TestEngineDocListsEveryHook(t *testing.T) {
	const begin, end = "<!-- BEGIN GENERATED by `go test ./runtime/hooks -run TestEngineDoc`; do not edit -->", "<!-- END GENERATED -->"
	path := filepath.Join("..", "..", "docs", "engine.md")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	doc := string(data)
	want := begin + "\n" + Table() + end
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if os.Getenv("UPDATE_DOCS") != "" && i >= 0 && j > i {
		doc = doc[:i] + want + doc[j+len(end):]
		require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
		i, j = strings.Index(doc, begin), strings.Index(doc, end)
	}
	require.True(t, i >= 0 && j > i, "docs/engine.md has no generated hook table; add the markers and run UPDATE_DOCS=1 go test ./runtime/hooks -run TestEngineDoc")
	assert.Equal(t, want, doc[i:j+len(end)], "docs/engine.md drifted from the hook list; run UPDATE_DOCS=1 go test ./runtime/hooks -run TestEngineDoc")
}

func TestRegisteredHooks(t *testing.T) {
	for _, name := range []string{"validate-artifacts", "enforces-boundaries-from", "lint-artifacts",
		"verify-tests", "await-inner-loops", "log-entry", "lock-artifacts"} {
		_, ok := shippedRegistry(t).Lookup(name)
		assert.True(t, ok, name)
	}
}
