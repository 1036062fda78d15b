package hooks

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/gates"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
)

// shippedRegistry is the registry built from All.
func shippedRegistry(t *testing.T) *runtime.Registry {
	t.Helper()
	reg, err := Registry()
	require.NoError(t, err)
	return reg
}

func compileShipped(t *testing.T, name string) *runtime.Graph {
	t.Helper()
	src, err := graphs.Source(name)
	require.NoError(t, err)
	g, err := runtime.Compile(name, src, shippedRegistry(t))
	require.NoError(t, err)
	return g
}

func TestShippedLoopsCompile(t *testing.T) {
	tests := []struct {
		name     string
		start    string
		nodes    []string
		skipSets map[string][]string
		cleanup  bool
	}{
		{"pdlc-pr-loop", "implementation",
			[]string{"implementation", "verification", "self-review", "critic-review", "security-review", "reviewer-briefing", "pr-approval", "complete", "escalated"}, map[string][]string{}, false},
		{"pdlc-contribution-loop", "goal-definition",
			[]string{"goal-definition", "phase-selection", "context-intake", "scoped-plan", "plan-approval", "implementation", "verification",
				"self-review", "critic-review", "security-review", "reviewer-briefing", "human-approval", "complete", "cleanup", "escalated"},
			map[string][]string{"plan": {"context-intake", "scoped-plan", "plan-approval"}, "review-chain": {"self-review", "critic-review", "security-review", "reviewer-briefing"}}, true},
		{"pdlc-adhoc-loop", "work", []string{"work", "review", "complete", "cleanup", "escalated"}, map[string][]string{}, true},
		{"pdlc-review-loop", "review-brief", []string{"review-brief", "review", "follow-up", "complete", "cleanup", "escalated"}, map[string][]string{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := compileShipped(t, tt.name)
			assert.Equal(t, tt.name, g.Name)
			assert.Equal(t, tt.start, g.Start)
			assert.Equal(t, tt.nodes, g.IDs())
			assert.Equal(t, tt.skipSets, g.SkipSets)
			for _, id := range []string{"complete", "escalated"} {
				n, ok := g.Node(id)
				require.True(t, ok, id)
				assert.True(t, n.Terminal, id)
			}
			esc, _ := g.Node("escalated")
			assert.True(t, esc.IsHuman())
			require.Len(t, esc.Entry, 1)
			assert.Equal(t, "notify", esc.Entry[0].Hook)
			assert.Equal(t, "conflict-escalated", esc.Entry[0].With["event"])
			_, hasCleanup := g.Node("cleanup")
			assert.Equal(t, tt.cleanup, hasCleanup)
			for _, n := range g.Nodes {
				for _, e := range n.Exit {
					assert.NotContains(t, e.With, "locked", "%s: a session never locks; the gate's lock-artifacts does", n.ID)
				}
			}
		})
	}
}

func TestPRLoopHasNoSelection(t *testing.T) {
	g := compileShipped(t, "pdlc-pr-loop")
	for _, n := range g.Nodes {
		assert.False(t, n.Skippable, n.ID)
		assert.False(t, n.OptIn, n.ID)
		for _, e := range n.Entry {
			assert.NotEqual(t, "set-phase-label", e.Hook, n.ID)
		}
	}
	pr, _ := g.Node("pr-approval")
	assert.True(t, pr.IsHuman())
	assert.True(t, pr.Required)
	for on, to := range map[string]string{"approved": "complete", "approved-with-comments": "complete", "changes-requested": "implementation"} {
		next, ok := g.Next("pr-approval", on)
		assert.True(t, ok)
		assert.Equal(t, to, next)
	}
}

func TestContributionPlanApprovalLocksContribution(t *testing.T) {
	g := compileShipped(t, "pdlc-contribution-loop")
	n, _ := g.Node("plan-approval")
	var hooks []string
	for _, e := range n.Exit {
		hooks = append(hooks, e.Hook)
	}
	assert.Equal(t, []string{"classify-feedback", "record-feedback", "lock-artifacts"}, hooks)
	var locked []string
	for _, s := range specdir.ParamSlots(&runtime.HookContext{Params: n.Exit[2].With}, "artifacts") {
		locked = append(locked, s.Names...)
	}
	assert.Contains(t, locked, "contribution.md")
	for _, id := range []string{"goal-definition", "phase-selection"} {
		n, _ := g.Node(id)
		assert.True(t, n.Required, id)
	}
}

// engineWalk drives a shipped loop through the engine with the fake
// integration: every comment the loop posts lands in the fake thread, and
// each event carries the whole thread plus the new human replies.
type engineWalk struct {
	t    *testing.T
	rt   *runtime.Runtime
	fake *hooktest.Fake
	mem  *runtime.MemoryPersister
}

// walkCommands are the repository's commands in every dry-run walk: one
// that passes, so implementation and verification run and record it.
var walkCommands = runtime.RepoCommands{List: []runtime.RepoCommand{{Key: "test", Argv: []string{"true"}}}, TimeoutSeconds: 60}

func newEngineWalk(t *testing.T, loop string) *engineWalk {
	hc, fake := hooktest.GateContext(t, nil, nil)
	mem := runtime.NewMemoryPersister()
	rt := &runtime.Runtime{Graph: compileShipped(t, loop), Persist: mem, Config: hc.Config, Signer: runtime.NewSigner([]byte("test-key")),
		Tracker: fake, CodeHost: fake, Repo: hc.Repo, Commands: walkCommands}
	fake.AddPull("o", "r", 1, hooktest.ReadyPull(walkHead)) // the inner loop's own pull request
	return &engineWalk{t: t, rt: rt, fake: fake, mem: mem}
}

func (w *engineWalk) start() {
	_, err := w.rt.Start(context.Background(), "issue-1", runtime.StartOptions{Ref: "github:o/r#1"})
	require.NoError(w.t, err)
}

func (w *engineWalk) reply(id int64, author, body string) runtime.NodeReport {
	w.fake.Thread = append(w.fake.Thread, hooktest.Comment(id, author, body))
	rep, err := w.rt.Advance(context.Background(), "issue-1", &runtime.Event{Comments: append([]integrations.Comment(nil), w.fake.Thread...)})
	require.NoError(w.t, err)
	return rep
}

func (w *engineWalk) complete(node string) runtime.ClaimAnswer {
	env, err := w.rt.Complete(context.Background(), "issue-1", node, "agent")
	require.NoError(w.t, err)
	return env
}

func (w *engineWalk) state() *runtime.State {
	st, _, err := w.mem.Load(context.Background(), "issue-1")
	require.NoError(w.t, err)
	return st
}

func TestAdhocLoopWalk(t *testing.T) {
	w := newLoopWalk(t, "pdlc-adhoc-loop")
	w.begin("work")
	assert.Contains(t, w.fake.Labels, "loop:implementation")

	w.claim("work", "review")
	w.answer("alice", "nice — now also fix the footer", "more-work", "work")
	w.claim("work", "review")
	rep := w.reply(w.newID(), "mallory", "done")
	assert.Equal(t, "wait", rep.Status, "the earlier instruction is not re-read and mallory is not authorized: %v", rep.Messages)
	w.step()
	w.answer("bob", "That's all, thanks.", "done", "complete")

	st, _ := w.finish([]string{"work", "review", "work", "review", "review", "complete"})
	assert.Equal(t, "@bob", st.Decisions["review"].By)
	assert.NotEmpty(t, st.Decisions["review"].Signature, "the engine signs what the gate decided")
	assert.Contains(t, w.fake.Labels, "loop:complete")
}

// TestContributionLoopWalk declares the plan set and critic-review skipped
// at phase-selection and walks on to complete: with contribution.md planned
// away, verification reads evidence/verification.md instead.
func TestContributionLoopWalk(t *testing.T) {
	w := newLoopWalk(t, "pdlc-contribution-loop")
	w.begin("goal-definition")
	require.Len(t, w.fake.Posted, 1)
	assert.Contains(t, w.fake.Posted[0], gates.GoalRequestMarker)

	w.answer("alice", "Goal: CSV export\nSuccess criteria:\n- [ ] export works\n", "defined", "phase-selection")
	checklistPosted := w.fake.Posted[len(w.fake.Posted)-1]
	assert.Contains(t, checklistPosted, "- [x] plan — context-intake, scoped-plan, plan-approval")
	assert.NotContains(t, checklistPosted, "outer-loop-on-pull-request")

	w.answer("bob", "the-loop execute\n- [ ] plan\n- [ ] critic-review", "selected", "implementation")
	st := w.state()
	for _, n := range []string{"context-intake", "scoped-plan", "plan-approval", "critic-review"} {
		require.Contains(t, st.Skips, n)
		assert.Equal(t, "@bob", st.Skips[n].By, n)
		assert.Equal(t, "selection", st.Skips[n].Via, n)
	}
	assert.Equal(t, "plan", st.Skips["scoped-plan"].Token)
	goal := st.Decisions["goal-definition"]
	require.NotNil(t, goal)
	assert.Equal(t, "@alice", goal.By)
	sel := st.Decisions["phase-selection"]
	require.NotNil(t, sel)
	assert.Equal(t, "reply", sel.Via)
	assert.Equal(t, "", sel.Data["surface"], "a contribution records no surface")
	assert.True(t, strings.Contains(w.fake.Posted[len(w.fake.Posted)-1], "phase selection recorded"))

	// check: the answered gates stay answered without any event or network.
	calls := len(w.fake.Calls)
	report := w.rt.Status(context.Background(), "issue-1", st, true)
	byNode := map[string]runtime.NodeReport{}
	for _, nr := range report.Nodes {
		byNode[nr.Node] = nr
	}
	assert.Equal(t, "pass", byNode["goal-definition"].Status)
	assert.Equal(t, "pass", byNode["phase-selection"].Status)
	assert.Equal(t, "skip", byNode["scoped-plan"].Status)
	assert.Contains(t, byNode["scoped-plan"].Messages[0], "by @bob")
	assert.Len(t, w.fake.Calls, calls, "check touches no integration")

	w.claim("implementation", "verification")
	w.claimBlocked("verification", "evidence/verification.md")
	w.write("evidence/verification.md", "# Verification\n\n## Verification results\n\nThe export downloads: ok.\n")
	w.claimBlocked("verification", "success criterion is not ticked: export works")
	w.write("evidence/verification.md", "# Verification\n\n## Verification results\n\n- [x] export works — the download opens in a spreadsheet.\n")
	w.claim("verification", "self-review")
	w.write("execution-log.md", walkExecutionLog)
	w.selfReview()
	w.claim("self-review", "security-review")
	w.claim("security-review", "reviewer-briefing")
	w.claim("reviewer-briefing", "human-approval")
	w.answer("bob", "Approved.", "approved", "complete")

	st, byNode = w.finish([]string{"goal-definition", "phase-selection", "implementation", "verification", "verification", "verification",
		"self-review", "security-review", "reviewer-briefing", "human-approval", "complete"})
	assert.Equal(t, "@bob", st.Decisions["human-approval"].By)
	assert.Equal(t, "skip", byNode["critic-review"].Status)
	assert.NoFileExists(t, w.spec("contribution.md"), "the plan was declared away")
}

func TestReviewLoopWalk(t *testing.T) {
	w := newEngineWalk(t, "pdlc-review-loop")
	w.fake.Thread = []integrations.Comment{hooktest.Comment(1, "alice", "the-loop review\nQuestions:\n- is the retry bounded?")}
	w.start()
	assert.Empty(t, w.fake.Posted, "the brief rode in on the arming comment, so no template is posted")
	rep, err := w.rt.Advance(context.Background(), "issue-1", &runtime.Event{})
	require.NoError(t, err)
	assert.Equal(t, "defined", rep.Outcome, rep.Messages)
	assert.Equal(t, "review", w.state().CurrentNode)
	assert.Equal(t, []any{"is the retry bounded?"}, anyList(w.state().Decisions["review-brief"].Data["brief"].(map[string]any)["questions"]))
}

func anyList(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	}
	return nil
}

func TestEveryShippedLoopCompiles(t *testing.T) {
	for _, name := range graphs.Names() {
		compileShipped(t, name)
	}
}

func TestWorkItemLoopPhaseSelectionWalk(t *testing.T) {
	w := newEngineWalk(t, graphs.Default)
	w.rt.Config.Routing.Efforts = []string{"high", "xhigh"}
	w.start()
	require.NotEmpty(t, w.fake.Posted)
	posted := w.fake.Thread[len(w.fake.Thread)-1]
	require.Contains(t, posted.Body, "- [x] spec-chain")
	assert.Contains(t, w.fake.Labels, "loop:phase-selection")

	// alice unticks the review chain in place and ticks an effort; bob signs.
	body := strings.Replace(posted.Body, "- [x] review-chain", "- [ ] review-chain", 1)
	body = strings.Replace(body, "- [ ] `effort-xhigh`", "- [x] `effort-xhigh`", 1)
	w.fake.Thread[len(w.fake.Thread)-1].Body = body
	rep := w.reply(w.fake.NextID(), "bob", "the-loop execute")
	assert.Equal(t, "selected", rep.Outcome, rep.Messages)
	st := w.state()
	assert.Equal(t, "brainstorming", st.CurrentNode)
	for _, n := range w.rt.Graph.SkipSets["review-chain"] {
		require.Contains(t, st.Skips, n)
		assert.Equal(t, "review-chain", st.Skips[n].Token)
	}
	sel := st.Decisions["phase-selection"]
	assert.Equal(t, "checklist", sel.Via)
	assert.Equal(t, "xhigh", sel.Data["effort"])
	assert.Equal(t, "work-item", st.Surface)
	assert.NotContains(t, st.OptIns, "design-critic-review")
}
