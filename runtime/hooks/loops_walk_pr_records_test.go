package hooks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/critic"
	"github.com/the-loop/the-loop/runtime"
)

// prLoopWalk walks pull request loop dir of issue-1 with its own state, as
// the service opens each inner loop (its own persister, its own folder).
func prLoopWalk(t *testing.T, repo, dir string) *loopWalk {
	t.Helper()
	w := newLoopWalk(t, "pdlc-pr-loop")
	if repo != "" {
		w.rt.Repo = repo
	}
	w.rt.LoopDir = dir
	w.rt.Config.Critic.Critics = []critic.Critic{{Name: "codex", Command: []string{"codex", "exec", "-"}}}
	return w
}

// recordRun records a critic run on w's loop at its node and returns its id.
func (w *loopWalk) recordRun() string {
	w.t.Helper()
	id := fmt.Sprintf("cr-20260301T100000Z-%012d", w.newID()+int64(len(w.rt.LoopDir))*1000)
	receipt := runtime.NewCriticRunReceipt(runtime.CriticRun{ID: id, Critic: "codex", Node: w.at()}, "p", "o")
	require.NoError(w.t, w.rt.RecordCriticRun(context.Background(), walkID, receipt))
	return id
}

func criticRecord(run string) string {
	return "# Critic review\n\n| Round | Critic | Run | Findings | New findings |\n|---|---|---|---|---|\n| 1 | codex | " + run + " | 0 | 0 |\n"
}

// TestPRLoopsKeepTheirOwnReviewRecords: two pull request loops of one work
// item each keep their self-review and critic-review tables in their own
// folder, and each passes on the runs recorded on its own loop.
func TestPRLoopsKeepTheirOwnReviewRecords(t *testing.T) {
	a := prLoopWalk(t, "", "pr-loops/pr-7")
	b := prLoopWalk(t, a.rt.Repo, "pr-loops/octo__infra/pr-8")
	for _, w := range []*loopWalk{a, b} {
		w.begin("implementation")
		w.claim("implementation", "verification")
		w.claim("verification", "self-review")
	}
	a.claimBlocked("self-review", "pr-loops/pr-7/evidence/self-review.md is missing or empty")
	a.write("pr-loops/pr-7/evidence/self-review.md", walkSelfReview)
	b.claimBlocked("self-review", "pr-loops/octo__infra/pr-8/evidence/self-review.md is missing or empty")
	b.write("pr-loops/octo__infra/pr-8/evidence/self-review.md", walkSelfReview)
	a.claim("self-review", "critic-review")
	b.claim("self-review", "critic-review")

	runA, runB := a.recordRun(), b.recordRun()
	require.NotEqual(t, runA, runB)
	a.write("pr-loops/pr-7/evidence/critic-review.md", criticRecord(runA))
	b.write("pr-loops/octo__infra/pr-8/evidence/critic-review.md", criticRecord(runB))
	a.claim("critic-review", "security-review")
	b.claim("critic-review", "security-review")

	log := walkExecutionLog
	for _, w := range []*loopWalk{a, b} {
		w.claimBlocked("security-review", w.rt.LoopDir+"/execution-log.md")
		w.write(w.rt.LoopDir+"/execution-log.md", log)
		w.claim("security-review", "reviewer-briefing")
	}
	assert.NoFileExists(t, a.spec("evidence/self-review.md"), "no loop writes the item's table")
	assert.NoFileExists(t, a.spec("evidence/critic-review.md"))
	assert.Contains(t, a.read("pr-loops/pr-7/evidence/critic-review.md"), runA)
	assert.Contains(t, b.read("pr-loops/octo__infra/pr-8/evidence/critic-review.md"), runB)
	assert.Contains(t, a.read("pr-loops/pr-7/execution-log.md"), "entry reviewer-briefing", "log-entry appends to the loop's own log")
}

// TestPRLoopReviewDoesNotPassOnAnotherFolder: a pull request loop's review
// node never reads the item's table, nor a sibling loop's, even when that
// table names the runs recorded on this loop.
func TestPRLoopReviewDoesNotPassOnAnotherFolder(t *testing.T) {
	for _, where := range []string{"", "pr-loops/pr-8/", "pr-loops/octo__infra/pr-7/", "pr-loops/pr-7/../pr-8/"} {
		t.Run("rows in "+where, func(t *testing.T) {
			w := prLoopWalk(t, "", "pr-loops/pr-7")
			w.begin("implementation")
			w.claim("implementation", "verification")
			w.claim("verification", "self-review")
			w.write(filepath.ToSlash(filepath.Clean(where+"evidence/self-review.md")), walkSelfReview)
			w.claimBlocked("self-review", "pr-loops/pr-7/evidence/self-review.md is missing or empty")

			w.write("pr-loops/pr-7/evidence/self-review.md", walkSelfReview)
			w.claim("self-review", "critic-review")
			run := w.recordRun()
			w.write(filepath.ToSlash(filepath.Clean(where+"evidence/critic-review.md")), criticRecord(run))
			w.claimBlocked("critic-review", "pr-loops/pr-7/evidence/critic-review.md is missing or empty")
			assert.Equal(t, "critic-review", w.at())
		})
	}
}

// TestPRLoopRecordsStayInsideTheSpecFolder: a loop folder that is a
// symlink out of the spec folder is refused, never followed.
func TestPRLoopRecordsStayInsideTheSpecFolder(t *testing.T) {
	w := prLoopWalk(t, "", "pr-loops/pr-7")
	w.begin("implementation")
	w.claim("implementation", "verification")
	w.claim("verification", "self-review")
	out := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(out, "evidence"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(out, "evidence", "self-review.md"), []byte(walkSelfReview), 0o644))
	require.NoError(t, os.MkdirAll(w.spec("pr-loops"), 0o755))
	require.NoError(t, os.Symlink(out, w.spec("pr-loops/pr-7")))
	env := w.complete("self-review")
	assert.Equal(t, "self-review", env.CurrentNode, "%s %v", env.Status, env.Messages)
	assert.NotEqual(t, string(runtime.Pass), env.Status)
}
