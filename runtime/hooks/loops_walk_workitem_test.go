package hooks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/gates"
)

// Fixture artifacts of the work item "CSV export", as the agent writes them.
const (
	walkRequirements = `# Requirements: CSV export

## Requirements

- R1: a user can export the report table as CSV.

## Security considerations

The export crosses a trust boundary: the report rows come from other tenants' input and are escaped before they leave.
`
	walkDesignNoBoundary = `# Design: CSV export

## Architecture

A streaming writer over the report query.

## Security design

Cells are escaped.

## Testing strategy

Unit tests over the writer; one end-to-end export.
`
	walkDesign = `# Design: CSV export

## Architecture

A streaming writer over the report query.

## Security design

At the trust boundary every cell that starts with = + - or @ is prefixed with a quote, so no formula runs.

## Testing strategy

Unit tests over the writer; one end-to-end export.
`
	walkTestingPlan = `# Testing plan: CSV export

## Test matrix

- [ ] unit: the writer escapes formula cells
- [ ] e2e: a 10 000-row export streams

## Verification environment

Local, go test.

## Evidence plan

The test output, pasted below.

## Verification results

Not run yet.
`
	walkTasks = `# Tasks: CSV export

## Task list

- [ ] T1 streaming writer (internal/export/csv.go)
- [ ] T2 size limit
`
)

func TestWorkItemLoopWalk(t *testing.T) {
	w := newLoopWalk(t, graphs.Default)
	w.begin("phase-selection")
	assert.Contains(t, w.fake.Labels, "loop:phase-selection")

	// The selection: alice edits the posted checklist in place — brainstorming
	// and the whole review chain unticked, the opt-in design critic ticked —
	// and bob signs it.
	posted := len(w.fake.Thread) - 1
	body := w.fake.Thread[posted].Body
	for old, repl := range map[string]string{
		"- [x] brainstorming\n":      "- [ ] brainstorming\n",
		"- [x] review-chain":         "- [ ] review-chain",
		"- [ ] design-critic-review": "- [x] design-critic-review",
	} {
		require.Contains(t, body, old)
		body = strings.Replace(body, old, repl, 1)
	}
	w.fake.Thread[posted].Body = body
	w.answer("bob", "the-loop execute", "selected", "requirements-definition")
	st := w.state()
	reviewChain := w.rt.Graph.SkipSets["review-chain"]
	for _, n := range append([]string{"brainstorming"}, reviewChain...) {
		require.Contains(t, st.Skips, n)
		assert.Equal(t, "@bob", st.Skips[n].By, n)
		assert.Equal(t, runtime.ViaSelection, st.Skips[n].Via, n)
	}
	assert.Equal(t, "brainstorming", st.Skips["brainstorming"].Token)
	assert.Equal(t, "review-chain", st.Skips["critic-review"].Token)
	require.Contains(t, st.OptIns, "design-critic-review")
	assert.Equal(t, "@bob", st.OptIns["design-critic-review"].By)
	for _, n := range []string{"import-handoff", "brainstorming"} {
		assert.Equal(t, "skipped", st.Nodes[n].Outcome, "%s is routed around", n)
	}
	assert.False(t, st.Entered("brainstorm-approval"), "the skipped brainstorm leaves its approval nothing to approve")

	// requirements, first visit of the approval: changes requested.
	w.write("requirements.md", walkRequirements)
	w.claim("requirements-definition", "requirements-approval")
	assert.Contains(t, w.lastPosted().Body, gates.ReviewMarker("requirements-approval"))
	w.answer("alice", "Changes requested: the export needs a size limit.", "changes-requested", "requirements-definition")
	assert.Contains(t, w.reviewComments("requirements.md"), "the export needs a size limit", "the change request is recorded")
	assert.NotContains(t, w.read("requirements.md"), "status: approved", "a change request locks nothing")
	assert.Equal(t, "changes-requested", w.state().Decisions["requirements-approval"].Outcome)

	// second visit: the agent revises; the first visit's reply answers nothing.
	w.edit("requirements.md", "## Security considerations", "- R2: an export stops at 100 000 rows and says so.\n\n## Security considerations")
	w.claim("requirements-definition", "requirements-approval")
	assert.NotContains(t, w.state().Decisions, "requirements-approval", "re-entering the gate archives the earlier decision")
	rep := w.poll()
	assert.Equal(t, string(runtime.Wait), rep.Status, "the first visit's change request does not answer the second: %v", rep.Messages)
	w.step()
	rep = w.reply(w.newID(), "mallory", "Approved.")
	assert.Equal(t, string(runtime.Wait), rep.Status, "mallory is not authorized: %v", rep.Messages)
	w.step()
	w.answer("bob", "Approved.", "approved", "design")
	w.assertLocked("requirements.md", "bob")
	reqComments := w.reviewComments("requirements.md")
	assert.Equal(t, 1, strings.Count(reqComments, "the export needs a size limit"), "the first visit's reply is recorded once")
	assert.Contains(t, reqComments, "**@bob** wrote")
	assert.NotContains(t, reqComments, "mallory")
	assert.Equal(t, "@bob", w.state().Decisions["requirements-approval"].By)

	// design: the upstream trust boundary must be answered.
	w.write("design.md", walkDesignNoBoundary)
	w.claimBlocked("design", "trust boundary")
	w.write("design.md", walkDesign)
	w.claim("design", "design-critic-review")
	w.write("execution-log.md", "# Execution log\n\n## Design critic review\n\nA second model read the design against R1 and R2: no gap.\n")
	w.claim("design-critic-review", "test-planning")
	w.write("testing-plan.md", walkTestingPlan)
	w.claim("test-planning", "design-approval")
	w.answer("alice", "Approved with comments: keep the e2e export under a minute.", "approved-with-comments", "tasks-breakdown")
	for _, name := range []string{"design.md", "testing-plan.md"} {
		w.assertLocked(name, "alice")
		assert.Contains(t, w.reviewComments(name), "keep the e2e export under a minute", name)
	}

	w.write("tasks.md", walkTasks)
	w.claim("tasks-breakdown", "implementation")
	w.edit("tasks.md", "- [ ] T1", "- [x] T1")
	w.edit("tasks.md", "- [ ] T2", "- [x] T2")
	env := w.complete("implementation")
	assert.Equal(t, string(runtime.Wait), env.Status, "no pull request yet: %v", env.Messages)
	assert.Contains(t, strings.Join(env.Messages, "\n"), "the origin repository has no pull request yet: o/r")
	w.step()
	w.shipPull()
	w.claim("implementation", "verification")
	w.edit("testing-plan.md", "- [ ] unit", "- [x] unit")
	w.edit("testing-plan.md", "- [ ] e2e", "- [x] e2e")
	w.edit("testing-plan.md", "Not run yet.", "ok  example.com/export 0.4s — both rows pass.")
	// the review chain is skipped, so verification hands over to the final gate.
	w.claim("verification", "human-approval")
	w.answer("bob", "Approved.", "approved", "complete")

	st, byNode := w.finish([]string{
		"phase-selection", "requirements-definition",
		"requirements-approval", "requirements-definition", "requirements-approval",
		"requirements-approval", "requirements-approval", // poll, mallory: still waiting
		"design", "design", "design-critic-review", "test-planning", "design-approval",
		"tasks-breakdown", "implementation", "implementation", "verification", "human-approval", "complete",
	})
	for _, n := range []string{"phase-selection", "requirements-approval", "design-approval", "human-approval"} {
		require.Contains(t, st.Decisions, n)
	}
	assert.Equal(t, "@alice", st.Decisions["design-approval"].By)
	want := map[string]string{"import-handoff": "skip", "brainstorming": "skip", "design-critic-review": "pass"}
	for _, n := range reviewChain {
		want[n] = "skip"
	}
	assert.Equal(t, want, statuses(byNode, append([]string{"import-handoff", "brainstorming", "design-critic-review"}, reviewChain...)...))
	assert.Contains(t, byNode["brainstorming"].Messages[0], "by @bob")
	assert.Contains(t, byNode["critic-review"].Messages[0], `token "review-chain"`)
	assert.Contains(t, w.fake.Labels, "loop:complete")
}
