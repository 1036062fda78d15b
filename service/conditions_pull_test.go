package service

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/runtime"
)

// pullsDown is the fake GitHub whose reads of one pull request fail while
// down is set, as GitHub's answers do in an outage.
type pullsDown struct {
	*github.Provider
	mu   sync.Mutex
	down bool
}

func (p *pullsDown) set(down bool) { p.mu.Lock(); defer p.mu.Unlock(); p.down = down }

func (p *pullsDown) GetPullRequest(ctx context.Context, owner, repo string, n int) (integrations.PullRequest, error) {
	p.mu.Lock()
	down := p.down
	p.mu.Unlock()
	if down {
		return integrations.PullRequest{}, &integrations.APIError{System: "github", Op: integrations.OpGetPullRequest,
			Target: owner + "/" + repo, Status: 502, Message: "bad gateway", Kind: integrations.ErrUnavailable}
	}
	return p.Provider.GetPullRequest(ctx, owner, repo, n)
}

// A linked pull request the loop cannot read is its item's condition: the
// item's status comment, graph status and events say which pull request
// and why while it lasts, and it clears once the pull request is read.
func TestAPullRequestTheLoopCannotReadIsItsItemsCondition(t *testing.T) {
	r := newPRRig(t)
	prov, err := github.New(github.Options{BaseURL: r.fake.URL(), Token: r.fake.Token()})
	require.NoError(t, err)
	down := &pullsDown{Provider: prov}
	r.svc.deps.Providers = func(string) (integrations.Provider, error) { return down, nil }
	r.arm(skipToImplementation)
	r.openPR(providertest.GitHubRepo, shaA)
	r.cycle()

	// The pull request leaves the open listing; reading it fails.
	r.fake.ClosePull(providertest.GitHubRepo, 2)
	down.set(true)
	rep := r.cycle()
	gs, err := r.svc.Status(context.Background(), r.item())
	require.NoError(t, err)
	require.Len(t, gs.Conditions, 1, "%+v", rep)
	c := gs.Conditions[0]
	assert.Equal(t, runtime.ConditionTracker, c.Kind)
	assert.Contains(t, c.Message, "pull request octo/widgets#2: read octo/widgets#2: github get-pull-request octo/widgets: HTTP 502")
	assert.Contains(t, gs.GraphContext, "  STUCK: `tracker` since ")
	assert.Contains(t, statusOf(t, r), "**stuck:** `tracker` since")
	assert.Equal(t, runtime.PullOpen, runtime.FindPull(r.state(), providertest.GitHubRepo, 2).State, "nothing was decided on what could not be read")

	down.set(false)
	r.cycle()
	gs, err = r.svc.Status(context.Background(), r.item())
	require.NoError(t, err)
	assert.Empty(t, gs.Conditions, "cleared once the pull request is read")
	assert.Equal(t, runtime.PullClosed, runtime.FindPull(r.state(), providertest.GitHubRepo, 2).State)
	assert.NotContains(t, statusOf(t, r), "**stuck:**")
}

// statusOf is the item's status comment on its ticket.
func statusOf(t *testing.T, r *prRig) string {
	t.Helper()
	for _, c := range r.fake.Comments(r.ref) {
		if strings.Contains(c.Body, statusMarker) {
			return c.Body
		}
	}
	t.Fatal("no status comment")
	return ""
}
