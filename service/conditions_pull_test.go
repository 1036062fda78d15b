package service

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/agents/sandbox"
	"github.com/the-loop/the-loop/agents/sessions"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
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

// A host that cannot confine a session launches none for an item that
// wants one: no escalation (the host's fault is not the item's), but the
// item's launch condition, in its status comment and graph status, while
// it lasts.
func TestAHostThatCannotConfineIsTheItemsLaunchCondition(t *testing.T) {
	t.Parallel()
	db := store.NewHandle(filepath.Join(t.TempDir(), "state.db"))
	harnesses := map[string]harness.Config{"agent": {Adapter: harness.AdapterCommand, Argv: []string{"/bin/true", "{prompt_file}"}}}
	sup, err := sessions.New(config.SessionLimits{}, sessions.Deps{Store: HandleRecorder(db), Harnesses: harnesses,
		Serve: []string{"/nonexistent/the-loop", "serve"}, StateDir: t.TempDir(),
		Confiner: sandbox.NewConfiner(sandbox.Config{}, sandbox.Options{Exe: "/nonexistent/the-loop"})})
	require.NoError(t, err)
	r := newTreeDAGRig(t, func(d *Deps) { d.Store, d.Sessions = db, sup })
	r.svc.cfg.Harnesses = harnesses
	item := r.issue("API")
	r.say(item, "alice", "the-loop do")
	r.cycle()
	tree := r.tree("octo/widgets", "issue-2")
	require.Equal(t, "work", r.stateIn("octo/widgets", "issue-2").CurrentNode)
	r.cycle()

	gs, err := r.svc.Status(context.Background(), ItemRequest{Repo: tree, WorkItem: "issue-2"})
	require.NoError(t, err)
	require.Len(t, gs.Conditions, 1)
	assert.Equal(t, runtime.ConditionLaunch, gs.Conditions[0].Kind)
	assert.Contains(t, gs.Conditions[0].Message, "a session could not be started for work: sessions.confinement: auto cannot confine a session on this host")
	var status string
	for _, c := range r.gh.Comments(item) {
		if strings.Contains(c.Body, statusMarker) {
			status = c.Body
		}
	}
	assert.Contains(t, status, "**stuck:** `launch` since")
	assert.NotContains(t, status, "escalated")
}
