package service

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/runtime"
)

// A pull request's critic-review counts only rounds the loop recorded on
// that pull request's loop: a round recorded on the work item (at its
// implementation) does not count there, and naming a pull request without
// its work item is refused.
func TestAPullRequestsCriticReviewCountsRoundsRecordedOnItsLoop(t *testing.T) {
	r := newPRRig(t)
	ctx := context.Background()
	r.arm(skipToImplementation)
	pr := r.openPR(providertest.GitHubRepo, shaA).PullRequest.Number
	r.writeReviewArtifacts()
	r.writeLoopRecords(pr, "")
	for _, node := range []string{"implementation", "verification", "self-review"} {
		require.Equal(t, string(runtime.Pass), r.claim(node, pr, "").Status, node)
	}
	prompt := filepath.Join(r.repo, "docs", "specs", "issue-1", "review-assignment.md")
	writeFile(t, prompt, "Review the change.\n")

	_, err := r.svc.CriticRun(ctx, CriticRunRequest{Repo: r.repo, Critic: "codex", PromptFile: prompt, PR: pr})
	assert.ErrorIs(t, err, ErrInvalidRequest, "a pull request names a loop of a work item")

	outer, err := r.svc.CriticRun(ctx, CriticRunRequest{Repo: r.repo, WorkItem: "issue-1", Critic: "codex", PromptFile: prompt})
	require.NoError(t, err)
	assert.Equal(t, "implementation", outer.Node, "without pr the round is the work item's, at its own node")
	r.write(loopFolder(t, pr, "")+"/evidence/critic-review.md", "# Critic review\n\n| Round | Critic | Run | Findings | New findings |\n|---|---|---|---|---|\n| 1 | codex | "+outer.RunID+" | 0 | 0 |\n")
	env := r.claim("critic-review", pr, "")
	assert.Equal(t, string(runtime.Block), env.Status, "the work item's round is not the pull request's")
	assert.Contains(t, strings.Join(env.Messages, "\n"), `run "`+outer.RunID+`" is not a critic run the loop recorded for this review`)

	criticRound(t, r.svc, r.item(), pr, "")
	env = r.claim("critic-review", pr, "")
	assert.Equal(t, string(runtime.Pass), env.Status, "%v", env.Messages)
}

// A paused item holds its pull requests' loops: a claim on one is refused
// with the hold's message, and neither a pull request nor a critic round
// of one can be asked for, from a session's server or anywhere else.
func TestAPausedItemHoldsItsPullRequestLoops(t *testing.T) {
	r := newPRRig(t)
	ctx := context.Background()
	r.arm(skipToImplementation)
	pr := r.openPR(providertest.GitHubRepo, shaA).PullRequest.Number
	r.fake.AddComment(r.ref, "alice", "OWNER", "the-loop pause")
	r.cycle()

	env := r.claim("implementation", pr, "")
	assert.Equal(t, runtime.StatusRefused, env.Status)
	assert.Equal(t, "held", env.Reason)
	assert.Equal(t, "implementation", r.inner(providertest.GitHubRepo, pr).CurrentNode, "nothing moved")

	_, err := r.svc.PRCreate(ctx, PRCreateRequest{ItemRequest: r.item(), Repository: infra, Actor: "mcp"})
	assert.ErrorIs(t, err, runtime.ErrHeld)
	_, err = r.confined().PRCreate(ctx, PRCreateRequest{ItemRequest: r.item(), Repository: infra, Actor: "mcp"})
	assert.ErrorIs(t, err, runtime.ErrHeld, "a session's ask is refused too")
	assert.Empty(t, r.state().PullAsks)

	prompt := filepath.Join(r.repo, "docs", "specs", "issue-1", "review-assignment.md")
	writeFile(t, prompt, "Review the change.\n")
	_, err = r.svc.CriticRun(ctx, CriticRunRequest{Repo: r.repo, WorkItem: "issue-1", Critic: "codex", PromptFile: prompt, PR: pr})
	assert.ErrorIs(t, err, runtime.ErrHeld)
}
