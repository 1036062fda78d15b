package service

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
)

// The shared corpus is a real repository's 109 spec folders. Both check modes
// must read every one of them; the verdicts pinned below were derived by
// reading the artifacts against the rules, not by running the code.
func TestCheckOverTheCorpus(t *testing.T) {
	dir := corpusDir(t)
	svc := benchService(t)
	ctx := context.Background()
	for _, recompute := range []bool{false, true} {
		res, err := svc.Check(ctx, CheckRequest{Repo: dir, All: true, Recompute: recompute})
		require.NoError(t, err)
		require.Len(t, res.Reports, 109)
		waiting := 0
		for _, r := range res.Reports {
			require.Len(t, r.Nodes, len(res.Graphs[r.WorkItem].Nodes), r.WorkItem)
			if r.CurrentNode == "phase-selection" {
				waiting++
			}
		}
		assert.GreaterOrEqual(t, waiting, 100, "items with no recorded selection wait at phase-selection")
	}
}

type pinned struct {
	node, status, message string
}

func TestCorpusVerdictsReadFromTheArtifacts(t *testing.T) {
	dir := corpusDir(t)
	svc := benchService(t)
	tests := []struct {
		id, current string
		nodes       []pinned
	}{
		// No Security considerations heading; tasks.md has no "Task list" and ten open boxes.
		{"issue-1", "phase-selection", []pinned{
			{"requirements-definition", "block", "required section is missing: Security considerations (docs/specs/issue-1/requirements.md)"},
			{"tasks-breakdown", "block", "required section is missing: Task list (docs/specs/issue-1/tasks.md)"},
			{"implementation", "block", "10 task(s) still unticked (docs/specs/issue-1/tasks.md)"},
			{"test-planning", "block", "required artifact is missing (docs/specs/issue-1/testing-plan.md)"},
			{"brainstorming", "pass", ""}, // optional: no brainstorm.md
		}},
		// brainstorm.md exists without "Open questions".
		{"issue-17", "phase-selection", []pinned{
			{"brainstorming", "block", "required section is missing: Open questions (docs/specs/issue-17/brainstorm.md)"},
			{"brainstorm-approval", "wait", "no authorized feedback yet"},
		}},
		// Complete spec chain, no testing plan; the log lacks a Documentation section.
		{"issue-109", "phase-selection", []pinned{
			{"requirements-definition", "pass", ""},
			{"design", "pass", ""},
			{"test-planning", "block", "required artifact is missing (docs/specs/issue-109/testing-plan.md)"},
			// capability-docs reads its own record, evidence/documentation.md,
			// which the corpus predates (its Documentation section was in the log).
			{"capability-docs", "block", "required artifact is missing (docs/specs/issue-109/evidence/documentation.md)"},
			{"design-approval", "wait", "no authorized feedback yet"},
		}},
		// requirements.md names a trust boundary that design.md never answers.
		{"issue-163", "phase-selection", []pinned{
			{"design", "block", "boundary named upstream is unanswered here: trust boundary"},
		}},
		{"issue-191", "phase-selection", []pinned{
			{"design", "block", "boundary named upstream is unanswered here: abuse case"},
			{"evidence", "block", "required section is missing: Final validation evidence (docs/specs/issue-191/execution-log.md)"},
		}},
		// design.md has none of the three required sections.
		{"issue-34", "phase-selection", []pinned{
			{"design", "block", "required section is missing: Testing strategy (docs/specs/issue-34/design.md)"},
			// self-review gates its own record, which the corpus predates.
			{"self-review", "block", "evidence/self-review.md is missing or empty; record each round as a row of a table with the columns | Round | Findings | New findings |"},
		}},
		// requirements.md has Security considerations but no "Requirements" heading (its headings are "Requirement 0 …").
		{"issue-101", "phase-selection", []pinned{
			{"requirements-definition", "block", "required section is missing: Requirements (docs/specs/issue-101/requirements.md)"},
		}},
		// design.md names paths under .the-loop/: the inferred risk tier is 4, so the
		// security review waits for a named human sign-off.
		{"issue-248", "phase-selection", []pinned{
			// Its execution log's "Review cycles" section no longer passes
			// self-review: the node gates evidence/self-review.md.
			{"self-review", "block", "evidence/self-review.md is missing or empty; record each round as a row of a table with the columns | Round | Findings | New findings |"},
			{"security-review", "wait", "risk tier 4 needs a named security sign-off: an authorized reviewer comments `Security sign-off.` on the thread"},
			{"evidence", "block", "required section is missing: Final validation evidence (docs/specs/issue-248/execution-log.md)"},
		}},
		// Recorded selections (legacy graph-state.json, unsigned): under
		// --recompute an unverified decision is never honoured, so the walk
		// recomputes to phase-selection (TestCorpusLegacyRecords has the rest).
		{"issue-238", "phase-selection", []pinned{
			{"phase-selection", "wait", "decision for phase-selection is not verified (no signing key or public key is configured), and --recompute honours only verified decisions — ignored"},
		}},
		{"issue-239", "phase-selection", []pinned{
			{"design", "pass", ""},
			{"design-approval", "wait", "no authorized feedback yet"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			res, err := svc.Check(context.Background(), CheckRequest{Repo: dir, WorkItem: tt.id, Recompute: true})
			require.NoError(t, err)
			rep := res.Reports[0]
			assert.Equal(t, tt.current, rep.CurrentNode)
			assert.False(t, rep.OK)
			byNode := map[string]runtime.NodeReport{}
			for _, n := range rep.Nodes {
				byNode[n.Node] = n
			}
			for _, p := range tt.nodes {
				got, ok := byNode[p.node]
				require.True(t, ok, p.node)
				assert.Equal(t, p.status, got.Status, "%s %s", tt.id, p.node)
				if p.message != "" {
					assert.Contains(t, got.Messages, p.message, "%s %s", tt.id, p.node)
				}
			}
		})
	}
}

// The earlier implementation's records are unsigned. Read from the stored
// record they are honoured, and reported; under --recompute they are not,
// and the claims they make are reported as drift.
func TestCorpusLegacyRecords(t *testing.T) {
	dir := corpusDir(t)
	svc := benchService(t)
	tests := []struct {
		id, current string
		nodes       []pinned
	}{
		{"issue-238", "requirements-approval", []pinned{
			{"phase-selection", "pass", "decision for phase-selection is unsigned (no signing key is configured)"},
			{"brainstorming", "skip", `skipped by declaration — via selection, token "brainstorming", by @MadaraUchiha-314`},
		}},
		{"issue-239", "design-approval", []pinned{
			{"requirements-approval", "skip", ""},
			{"design", "pass", ""},
			{"design-approval", "wait", "no authorized feedback yet"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			res, err := svc.Check(context.Background(), CheckRequest{Repo: dir, WorkItem: tt.id})
			require.NoError(t, err)
			byNode := map[string]runtime.NodeReport{}
			for _, n := range res.Reports[0].Nodes {
				byNode[n.Node] = n
			}
			for _, p := range tt.nodes {
				assert.Equal(t, p.status, byNode[p.node].Status, "%s %s", tt.id, p.node)
				if p.message != "" {
					assert.Contains(t, byNode[p.node].Messages, p.message, "%s %s", tt.id, p.node)
				}
			}
			re, err := svc.Check(context.Background(), CheckRequest{Repo: dir, WorkItem: tt.id, Recompute: true})
			require.NoError(t, err)
			assert.NotEmpty(t, re.Reports[0].Drift, "the unsigned record's claims are drift under --recompute")
		})
	}
}
