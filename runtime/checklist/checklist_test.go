package checklist

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/runtime"
)

const outerYAML = `
name: pdlc-work-item-loop
start: phase-selection
skipSets:
  spec-chain: [requirements-definition, requirements-approval, design]
  review-chain: [self-review, security-review]
nodes:
  - {id: phase-selection, actor: human, required: true, exit: [noop]}
  - {id: import-handoff, actor: code, requiresHandoff: true}
  - {id: requirements-definition, skippable: true}
  - {id: requirements-approval, actor: human, skippable: true}
  - {id: design, skippable: true}
  - {id: design-critic-review, optIn: true, description: "a second model reads the design"}
  - {id: implementation, skippable: true}
  - {id: self-review, skippable: true}
  - {id: security-review, skippable: true}
  - {id: complete, terminal: true}
  - {id: cleanup, terminal: true}
  - {id: escalated, terminal: true}
edges:
  - {from: phase-selection, to: import-handoff, on: selected}
  - {from: import-handoff, to: requirements-definition, on: pass}
  - {from: import-handoff, to: requirements-definition, on: skipped}
  - {from: requirements-definition, to: requirements-approval, on: pass}
  - {from: requirements-definition, to: requirements-approval, on: skipped}
  - {from: requirements-approval, to: design, on: approved}
  - {from: requirements-approval, to: design, on: skipped}
  - {from: design, to: design-critic-review, on: pass}
  - {from: design, to: design-critic-review, on: skipped}
  - {from: design-critic-review, to: implementation, on: pass}
  - {from: design-critic-review, to: implementation, on: skipped}
  - {from: implementation, to: self-review, on: pass}
  - {from: implementation, to: self-review, on: skipped}
  - {from: self-review, to: security-review, on: pass}
  - {from: self-review, to: security-review, on: skipped}
  - {from: security-review, to: complete, on: pass}
  - {from: security-review, to: complete, on: skipped}
`

const contributionYAML = `
name: pdlc-contribution-loop
start: goal-definition
nodes:
  - {id: goal-definition, actor: human, required: true}
  - {id: phase-selection, actor: human, required: true}
  - {id: implementation, skippable: true}
  - {id: complete, terminal: true}
edges:
  - {from: goal-definition, to: phase-selection, on: defined}
  - {from: phase-selection, to: implementation, on: selected}
  - {from: implementation, to: complete, on: pass}
  - {from: implementation, to: complete, on: skipped}
`

func compile(t *testing.T, src string) *runtime.Graph {
	t.Helper()
	reg, err := runtime.NewRegistry(runtime.HookSpec{Name: "noop", Func: func(*runtime.HookContext) (runtime.Result, error) { return runtime.OK("noop", nil), nil }})
	require.NoError(t, err)
	g, err := runtime.Compile("test", []byte(src), reg)
	require.NoError(t, err)
	return g
}

func outerOptions(t *testing.T, g *runtime.Graph) Options {
	cfg := config.Default()
	cfg.Routing.SessionPerPR = "always"
	cfg.Routing.Models = []string{"opus-5", "fable-5.1", "bad/name"}
	cfg.Routing.Efforts = []string{"high", "xhigh"}
	return OptionsFor(g, cfg, "phase-selection")
}

// untick flips the box of token's row in a rendered body.
func setBox(t *testing.T, body, token string, ticked bool) string {
	t.Helper()
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		m := tokenRE.FindStringSubmatch(l)
		if m == nil || strings.TrimRight(m[2], ".-") != token {
			continue
		}
		if ticked {
			lines[i] = strings.Replace(l, "[ ]", "[x]", 1)
		} else {
			lines[i] = strings.Replace(l, "[x]", "[ ]", 1)
		}
		return strings.Join(lines, "\n")
	}
	t.Fatalf("no row for %s in:\n%s", token, body)
	return ""
}

func TestRoundTripUntouchedChecklistYieldsDefaults(t *testing.T) {
	g := compile(t, outerYAML)
	o := outerOptions(t, g)
	body := Render(g, o)
	sel := Resolve(g, Parse(body), o)
	assert.Empty(t, sel.Skips)
	assert.Empty(t, sel.OptIns)
	assert.Equal(t, []string{"design-critic-review"}, sel.NotSelected)
	assert.Empty(t, sel.Refused)
	assert.Empty(t, sel.Ignored, "every rendered row is understood")
	assert.Equal(t, SurfaceWorkItem, sel.Surface)
	assert.Equal(t, "always", sel.SessionPerPR, "the pre-ticked row is one tick: a choice")
	assert.Empty(t, sel.Model)
	assert.Empty(t, sel.Effort)
	assert.False(t, sel.ArmChildren, "children are armed only when someone ticks the row")
	assert.True(t, strings.HasSuffix(body, Marker+"\n"))
}

func TestRenderedRows(t *testing.T) {
	g := compile(t, outerYAML)
	o := outerOptions(t, g)
	body := Render(g, o)
	for _, want := range []string{
		"- [x] requirements-definition\n", "- [x] security-review\n",
		"- [x] spec-chain — requirements-definition, requirements-approval, design\n",
		"- [ ] design-critic-review — a second model reads the design\n",
		"- [ ] `outer-loop-on-pull-request`", "- [x] `pr-sessions-always`", "- [ ] `pr-sessions-never`",
		"- [ ] `model-opus-5`", "- [ ] `model-fable-5.1`", "- [ ] `effort-xhigh`", "- [ ] `arm-children`",
		"Every phase of this loop can be unticked", "`the-loop execute`",
	} {
		assert.Contains(t, body, want)
	}
	for _, absent := range []string{"- [x] phase-selection", "import-handoff", "complete", "bad/name", "Handed off"} {
		assert.NotContains(t, body, absent)
	}
}

func TestEditsRoundTrip(t *testing.T) {
	g := compile(t, outerYAML)
	o := outerOptions(t, g)
	tests := []struct {
		name  string
		edit  func(string) string
		check func(t *testing.T, sel Selection)
	}{
		{"untick a phase", func(b string) string { return setBox(t, b, "design", false) }, func(t *testing.T, sel Selection) {
			assert.Equal(t, []Skip{{Node: "design", Token: "design"}}, sel.Skips)
		}},
		{"untick a set removes every member", func(b string) string { return setBox(t, b, "review-chain", false) }, func(t *testing.T, sel Selection) {
			assert.Equal(t, []Skip{{"self-review", "review-chain"}, {"security-review", "review-chain"}}, sel.Skips)
		}},
		{"unticked set beats a ticked member", func(b string) string { return setBox(t, b, "spec-chain", false) }, func(t *testing.T, sel Selection) {
			assert.Equal(t, []string{"requirements-definition", "requirements-approval", "design"}, sel.SkipNodes())
		}},
		{"tick an opt-in", func(b string) string { return setBox(t, b, "design-critic-review", true) }, func(t *testing.T, sel Selection) {
			assert.Equal(t, []string{"design-critic-review"}, sel.OptIns)
			assert.Empty(t, sel.NotSelected)
		}},
		{"tick the surface", func(b string) string { return setBox(t, b, SurfaceToken, true) }, func(t *testing.T, sel Selection) {
			assert.Equal(t, SurfacePullRequest, sel.Surface)
		}},
		{"move the sessions tick", func(b string) string {
			return setBox(t, setBox(t, b, "pr-sessions-always", false), "pr-sessions-never", true)
		}, func(t *testing.T, sel Selection) { assert.Equal(t, "never", sel.SessionPerPR) }},
		{"two sessions ticks is no choice", func(b string) string { return setBox(t, b, "pr-sessions-never", true) }, func(t *testing.T, sel Selection) {
			assert.Empty(t, sel.SessionPerPR)
		}},
		{"no sessions tick is no choice", func(b string) string { return setBox(t, b, "pr-sessions-always", false) }, func(t *testing.T, sel Selection) {
			assert.Empty(t, sel.SessionPerPR)
		}},
		{"one model", func(b string) string { return setBox(t, b, "model-fable-5.1", true) }, func(t *testing.T, sel Selection) {
			assert.Equal(t, "fable-5.1", sel.Model)
			assert.Empty(t, sel.Effort, "the groups are independent")
		}},
		{"two models is no choice, effort still stands", func(b string) string {
			return setBox(t, setBox(t, setBox(t, b, "model-fable-5.1", true), "model-opus-5", true), "effort-high", true)
		}, func(t *testing.T, sel Selection) {
			assert.Empty(t, sel.Model)
			assert.Equal(t, "high", sel.Effort)
		}},
		{"unknown model is no choice", func(b string) string { return b + "\n- [x] `model-gpt-9`\n" }, func(t *testing.T, sel Selection) {
			assert.Empty(t, sel.Model)
			assert.NotContains(t, sel.Ignored, "model-gpt-9")
		}},
		{"unknown session mode is no choice", func(b string) string {
			return setBox(t, b, "pr-sessions-always", false) + "\n- [x] pr-sessions-sometimes\n"
		}, func(t *testing.T, sel Selection) { assert.Empty(t, sel.SessionPerPR) }},
		{"unticking a protected node is refused", func(b string) string { return b + "\n- [ ] phase-selection\n" }, func(t *testing.T, sel Selection) {
			assert.Equal(t, []string{"phase-selection"}, sel.Refused)
			assert.Empty(t, sel.Skips)
		}},
		{"tick arm-children", func(b string) string { return setBox(t, b, ArmChildrenToken, true) }, func(t *testing.T, sel Selection) {
			assert.True(t, sel.ArmChildren)
			assert.Empty(t, sel.Ignored)
		}},
		{"arm-children in a reply", func(string) string { return "- [x] arm-children\n" }, func(t *testing.T, sel Selection) {
			assert.True(t, sel.ArmChildren)
		}},
		{"unknown token is ignored", func(b string) string { return b + "\n- [ ] desgin\n" }, func(t *testing.T, sel Selection) {
			assert.Equal(t, []string{"desgin"}, sel.Ignored)
			assert.Empty(t, sel.Skips)
		}},
		{"conflicting rows keep the default", func(b string) string { return b + "\n- [ ] implementation\n" }, func(t *testing.T, sel Selection) {
			assert.Empty(t, sel.Skips, "implementation is ticked above and unticked here")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, Resolve(g, Parse(tt.edit(Render(g, o))), o))
		})
	}
}

// Without dependency reading (dag.enabled false) the row is not offered,
// and a tick on it is a token the checklist does not know.
func TestArmChildrenIsOfferedOnlyWhenDependenciesAreRead(t *testing.T) {
	g := compile(t, outerYAML)
	cfg := config.Default()
	off := false
	cfg.DAG.Enabled = &off
	o := OptionsFor(g, cfg, "phase-selection")
	assert.NotContains(t, Render(g, o), ArmChildrenToken)
	sel := Resolve(g, Parse("- [x] arm-children\n"), o)
	assert.False(t, sel.ArmChildren)
	assert.Equal(t, []string{ArmChildrenToken}, sel.Ignored)
}

func TestParseRowGrammar(t *testing.T) {
	p := Parse("- [x] a\n* [X] `b`\n  - [ ] c.\n-[ ] d\n> - [ ] quoted\n- [y] e\n- [ ]\n1. [ ] f\n")
	assert.Equal(t, []string{"a", "b", "c", "d"}, p.Tokens())
	assert.Equal(t, Ticked, p.Mark("a"))
	assert.Equal(t, Ticked, p.Mark("b"))
	assert.Equal(t, Unticked, p.Mark("c"))
	assert.Equal(t, Absent, p.Mark("quoted"))
	assert.Equal(t, 4, p.Len())
}

func TestReplyChecklistLeavesOmittedRowsAtDefaults(t *testing.T) {
	g := compile(t, outerYAML)
	o := outerOptions(t, g)
	sel := Resolve(g, Parse("the-loop execute\n- [ ] review-chain\n- [x] design-critic-review\n"), o)
	assert.Equal(t, []string{"self-review", "security-review"}, sel.SkipNodes())
	assert.Equal(t, []string{"design-critic-review"}, sel.OptIns)
	assert.Empty(t, sel.SessionPerPR, "a reply that does not answer the sessions question makes no choice")
	assert.Equal(t, SurfaceWorkItem, sel.Surface)
}

func TestHandoffPreUnticksEarlierPhases(t *testing.T) {
	g := compile(t, outerYAML)
	o := outerOptions(t, g)
	o.Handoff = &Handoff{By: "dev", Stage: "requirements-settled", Enter: "design", RecordURL: "https://example.test/c/1"}
	body := Render(g, o)
	assert.Contains(t, body, "Handed off by @dev at `requirements-settled` ([record](https://example.test/c/1)) — the phases before `design` start unticked.")
	assert.Contains(t, body, "- [ ] requirements-definition\n")
	assert.Contains(t, body, "- [x] design\n")
	assert.Contains(t, body, "- import-handoff\n", "with a handoff, import-handoff always runs")
	sel := Resolve(g, Parse(body), o)
	assert.Equal(t, []string{"requirements-definition", "requirements-approval"}, sel.SkipNodes())
	assert.Empty(t, sel.Refused)
}

func TestContributionChecklistAsksNoSurface(t *testing.T) {
	g := compile(t, contributionYAML)
	o := OptionsFor(g, config.Default(), "phase-selection")
	require.False(t, o.OfferSurface)
	body := Render(g, o)
	assert.NotContains(t, body, SurfaceToken)
	assert.Contains(t, body, "These always run and have no box:\n\n- goal-definition\n")
	assert.Contains(t, body, "- [x] `pr-sessions-cross-repository`")
	sel := Resolve(g, Parse(body+"\n- [x] outer-loop-on-pull-request\n"), o)
	assert.Empty(t, sel.Surface, "a surface token typed into a contribution reply is inert")
	assert.Equal(t, []string{SurfaceToken}, sel.Ignored)
}

func TestDisabledExecuteKeyword(t *testing.T) {
	g := compile(t, contributionYAML)
	cfg := config.Default()
	cfg.Routing.Control.Keywords = map[string]string{"execute": ""}
	body := Render(g, OptionsFor(g, cfg, "phase-selection"))
	assert.Contains(t, body, "execute command is disabled")
	assert.NotContains(t, body, "reply ``")
}

func TestConfirmation(t *testing.T) {
	g := compile(t, outerYAML)
	o := outerOptions(t, g)
	sel := Selection{Skips: []Skip{{"design", "design"}}, NotSelected: []string{"design-critic-review"}, Refused: []string{"phase-selection"},
		Ignored: []string{"desgin"}, Surface: SurfacePullRequest, Model: "opus-5"}
	text := Confirmation(sel, "@@alice", o, "cross-repository")
	for _, want := range []string{
		"Skipped, as @alice declared: `design`.", "Offered and not selected, so not running: `design-critic-review`.",
		"**Not skippable, so still running:** `phase-selection`.", "ignored: `desgin`",
		"**on a pull request**", "**`cross-repository`**", "no choice was made", "Model: `opus-5`, as @alice chose.",
		"Effort: no choice", "Starting the loop.",
	} {
		assert.Contains(t, text, want)
	}
	full := Confirmation(Selection{SessionPerPR: "never", Surface: SurfaceWorkItem}, "bob", Options{}, "always")
	assert.Contains(t, full, "@bob kept every default phase: the full process runs.")
	assert.Contains(t, full, "**`never`** — every pull request's events go to this work item's one session (as @bob chose)")
	assert.NotContains(t, full, "Model")
	assert.NotContains(t, full, "Children")
	arming := Confirmation(Selection{ArmChildren: true}, "bob", Options{}, "always")
	assert.Contains(t, arming, "Children: armed in dependency order, each when its blockers finish, as @bob chose; each still gets its own phase selection.")
}

func TestTheChecklistOffersAHarnessWhenSeveralAreConfigured(t *testing.T) {
	g := compile(t, outerYAML)
	o := Options{Node: "phase-selection", ExecuteKeyword: "the-loop execute", SessionPerPR: DefaultSessionMode, Harnesses: []string{"claude", "codex"}}
	body := Render(g, o)
	assert.Contains(t, body, "**Which harness should run this work item's sessions?** Tick at most one.\n\n- [ ] `harness-claude`\n- [ ] `harness-codex`\n")
	assert.Contains(t, body, "A node the loop's configuration pins to a harness (`sessions.nodes`) keeps it.")

	assert.Equal(t, "codex", Resolve(g, Parse("- [x] harness-codex"), o).Harness)
	assert.Equal(t, "", Resolve(g, Parse("- [x] harness-codex\n- [x] harness-claude"), o).Harness, "two ticks choose nothing")
	unknown := Resolve(g, Parse("- [x] harness-aider"), o)
	assert.Equal(t, "", unknown.Harness, "only a configured harness can be chosen")
	assert.NotContains(t, unknown.Ignored, "harness-aider", "the row is of the harness group")
	assert.Equal(t, "", Resolve(g, Parse("- [x] harness-codex"), Options{Node: "phase-selection"}).Harness, "not offered, not chosen")

	sel := Resolve(g, Parse("- [x] harness-codex"), o)
	assert.Contains(t, Confirmation(sel, "@alice", o, DefaultSessionMode), "Harness: `codex`, as @alice chose.")
	assert.Contains(t, Confirmation(Selection{}, "@alice", o, DefaultSessionMode), "Harness: no choice — the configured harness runs.")
}
