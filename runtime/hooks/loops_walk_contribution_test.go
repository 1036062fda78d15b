package hooks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/gates"
)

// walkContributeComment is how `the-loop contribute` arms an item: the
// keyword, then the goal and its success criteria in the same comment.
const walkContributeComment = `the-loop contribute

Goal: maintainers can export the report table as CSV
Success criteria:
- [ ] the report page offers a CSV download
- [ ] formula cells are escaped in the file
`

const walkContribution = `# Contribution: CSV export

## Goal

Maintainers can export the report table as CSV.

## Success criteria

- [ ] the report page offers a CSV download
- [ ] formula cells are escaped in the file

## Context

The report page renders rows from ReportQuery; nothing exports today.
`

const walkContributionPlan = `
## Approach

Stream ReportQuery rows through encoding/csv behind a new download button.

## Verification plan

A unit test over the escaping; one request test for the download.

## Verification results

Not run yet.
`

func TestContributionLoopWalkToComplete(t *testing.T) {
	w := newLoopWalk(t, "pdlc-contribution-loop")
	w.arm("alice", walkContributeComment)
	w.begin("goal-definition")
	for _, p := range w.fake.Posted {
		assert.NotContains(t, p, gates.GoalRequestMarker, "the goal rode in on the arming comment, so none is asked for")
	}
	rep := w.poll()
	require.Equal(t, "defined", rep.Outcome, rep.Messages)
	w.step()
	goal := w.state().Decisions["goal-definition"]
	require.NotNil(t, goal)
	assert.Equal(t, "@alice", goal.By)
	frozen, ok := goal.Data["goal"].(map[string]any)
	require.True(t, ok, "%#v", goal.Data)
	assert.Equal(t, "maintainers can export the report table as CSV", frozen["goal"])
	assert.Equal(t, []any{"the report page offers a CSV download", "formula cells are escaped in the file"}, anyList(frozen["criteria"]))
	assert.Contains(t, w.lastPosted().Body, "- [x] plan — context-intake, scoped-plan, plan-approval", "phase-selection posted its checklist")

	w.answer("bob", "the-loop execute", "selected", "context-intake")
	assert.Empty(t, w.state().Skips, "an untouched checklist keeps every phase")

	w.write("contribution.md", walkContribution)
	w.claim("context-intake", "scoped-plan")
	w.claimBlocked("scoped-plan", "required section is missing: Approach")
	w.write("contribution.md", walkContribution+walkContributionPlan)
	w.claim("scoped-plan", "plan-approval")
	assert.True(t, w.postedContains("**`contribution.md`** for `issue-1`", "Stream ReportQuery rows"), "an unadopted repository gets the plan on the thread")

	w.answer("alice", "Changes requested: cover the empty-table case too.", "changes-requested", "scoped-plan")
	w.edit("contribution.md", "A unit test over the escaping;", "A unit test over the escaping and an empty table;")
	w.claim("scoped-plan", "plan-approval")
	rep = w.poll()
	assert.Equal(t, string(runtime.Wait), rep.Status, "the first visit's change request does not answer the second: %v", rep.Messages)
	w.step()
	w.answer("bob", "Approved with comments: mention the row limit in the PR.", "approved-with-comments", "implementation")
	w.assertLocked("contribution.md", "bob")
	comments := w.reviewComments("contribution.md")
	assert.Equal(t, 1, strings.Count(comments, "cover the empty-table case too"))
	assert.Contains(t, comments, "mention the row limit in the PR")

	w.claim("implementation", "verification")
	w.claimBlocked("verification", "2 task(s) still unticked")
	w.edit("contribution.md", "- [ ] the report page", "- [x] the report page")
	w.edit("contribution.md", "- [ ] formula cells", "- [x] formula cells")
	w.edit("contribution.md", "Not run yet.", "go test ./report/...: ok; the download returns text/csv.")
	w.claim("verification", "self-review")
	w.write("execution-log.md", walkExecutionLog)
	w.selfReview()
	w.claim("self-review", "critic-review")
	w.criticReview()
	w.claim("critic-review", "security-review")
	w.claim("security-review", "reviewer-briefing")
	w.claim("reviewer-briefing", "human-approval")
	w.answer("alice", "Approved.", "approved", "complete")

	st, _ := w.finish([]string{
		"goal-definition", "phase-selection", "context-intake", "scoped-plan", "scoped-plan", "plan-approval",
		"scoped-plan", "plan-approval", "plan-approval", "implementation", "verification", "verification",
		"self-review", "critic-review", "security-review", "reviewer-briefing", "human-approval", "complete",
	})
	for node, by := range map[string]string{"goal-definition": "@alice", "phase-selection": "@bob", "plan-approval": "@bob", "human-approval": "@alice"} {
		require.Contains(t, st.Decisions, node)
		assert.Equal(t, by, st.Decisions[node].By, node)
	}
	assert.NotContains(t, st.Decisions, "security-review", "tier 3 needs no named sign-off")
	assert.Contains(t, w.fake.Labels, "loop:complete")
}
