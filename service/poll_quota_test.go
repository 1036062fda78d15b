package service

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providers"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

// quotaRig watches n open issues of the fake GitHub through the providers a
// real process builds from its config.
type quotaRig struct {
	fake   *providertest.Server
	cfg    *config.Config
	repo   string
	db     string
	getenv func(string) string
}

func newQuotaRig(t testing.TB, n int) *quotaRig {
	t.Helper()
	fake := providertest.NewGitHub(t)
	// Room for the legacy floor's many cycles: spending is measured, not capped.
	fake.SetQuota(1<<30, time.Hour)
	for i := 1; i < n; i++ { // issue #1 is seeded
		fake.SeedIssue(fmt.Sprintf("watched %d", i), nil, true)
	}
	repo := t.TempDir()
	cfg := config.Default()
	cfg.Routing.AuthorizedUsers = []string{"alice"}
	cfg.Routing.SelfLogins = []string{fake.BotLogin()} // as a deployment sets it: the loop reads back its own checklist
	cfg.Integrations.GitHub.BaseURL = fake.URL()
	cfg.Integrations.GitHub.TokenEnv = "TEST_GH_TOKEN"
	cfg.Polling.Sources = []config.Source{{System: "github", Repos: []string{providertest.GitHubRepo}, Checkout: repo}}
	return &quotaRig{fake: fake, cfg: cfg, repo: repo, db: filepath.Join(t.TempDir(), "state.db"),
		getenv: func(k string) string {
			if k == "TEST_GH_TOKEN" {
				return fake.Token()
			}
			return ""
		}}
}

// process starts what one poller process holds: a service and its poller.
func (r *quotaRig) process(t testing.TB) *Poller {
	t.Helper()
	db := store.NewHandle(r.db)
	return r.processWith(t, db, ConfiguredProviders(r.cfg, r.getenv, db, nil, nil))
}

// legacyProcess is a poller process whose provider is built anew on every
// call (see freshProviderEachCall).
func (r *quotaRig) legacyProcess(t testing.TB) *Poller {
	t.Helper()
	return r.processWith(t, store.NewHandle(r.db), r.freshProviderEachCall(t))
}

func (r *quotaRig) processWith(t testing.TB, db *store.Handle, providers func(string) (integrations.Provider, error)) *Poller {
	t.Helper()
	svc := testService(t, r.cfg, Deps{Store: db, Signer: runtime.NewSigner([]byte("test-key")), Providers: providers})
	return &Poller{Svc: svc, Sources: r.cfg.Polling.Sources}
}

// cycle runs one cycle and returns the requests it sent and the quota it spent.
func (r *quotaRig) cycle(t testing.TB, p *Poller) (requests, quota int) {
	t.Helper()
	reqs, left := r.fake.RequestCount(), r.fake.QuotaRemaining()
	rep := p.RunOnce(context.Background())
	for _, s := range rep.Sources {
		require.Empty(t, s.Error)
	}
	return r.fake.RequestCount() - reqs, left - r.fake.QuotaRemaining()
}

// Fault 10: a poll cycle in which nothing changed costs no quota, across
// cycles and across a restart, and lists no comments.
func TestAnIdlePollCycleSpendsNoQuota(t *testing.T) {
	const n = 20
	r := newQuotaRig(t, n)
	p := r.process(t)
	_, cold := r.cycle(t, p)
	assert.Equal(t, 2+n, cold, "the first cycle reads the two listings (issues, pull requests) and every issue's comments once")

	reqs, quota := r.cycle(t, p)
	assert.Zero(t, quota, "an idle cycle spends no quota")
	assert.Equal(t, 2, reqs, "only the two conditional listings are sent; unchanged issues' comments are not listed")

	require.NoError(t, p.Svc.Close(), "the first process exits")
	restarted := r.process(t)
	_, quota = r.cycle(t, restarted)
	assert.Zero(t, quota, "the conditional-request cache survives a restart")
	reqs, quota = r.cycle(t, restarted)
	assert.Zero(t, quota)
	assert.Equal(t, 2, reqs)

	r.fake.AddComment(integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 3}, "bob", "NONE", "a new comment")
	reqs, quota = r.cycle(t, restarted)
	assert.Equal(t, 2, quota, "a busy cycle pays for the changed listing and the changed issue's comments only")
	assert.Equal(t, 3, reqs, "the unchanged pull request listing is a free 304")
}

// Fault 4: a tracker that sends its headers and then trickles the body
// cannot stall the poller: the request ends at its deadline, the source
// reports the error, and the next source is polled in the same cycle.
func TestASlowTrackerCannotStallTheCycle(t *testing.T) {
	t.Parallel()
	r := newQuotaRig(t, 2)
	r.cfg.Integrations.RequestTimeoutSeconds = 3 // room for a loaded CI machine; the trickle never ends
	second := t.TempDir()
	r.cfg.Polling.Sources = append(r.cfg.Polling.Sources, config.Source{System: "github", Repos: []string{providertest.GitHubRepo}, Checkout: second})
	p := r.process(t)
	r.fake.TrickleNext(1)
	var rep CycleReport
	done := make(chan struct{})
	go func() { defer close(done); rep = p.RunOnce(context.Background()) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the cycle is stuck behind a slow tracker")
	}
	require.Len(t, rep.Sources, 2)
	assert.Contains(t, rep.Sources[0].Error, "integrations.requestTimeoutSeconds")
	assert.Empty(t, rep.Sources[1].Error, "the next source is polled in the same cycle")
	assert.Len(t, rep.Sources[1].Items, 2)
}

// A cycle has a deadline of its own: what it has not reached when the
// deadline passes is reported and left for the next cycle.
func TestAPollCycleEndsAtItsDeadline(t *testing.T) {
	r := newQuotaRig(t, 2)
	p := r.process(t)
	p.CycleTimeout = 300 * time.Millisecond
	r.fake.TrickleNext(1)
	rep := p.RunOnce(context.Background())
	require.Len(t, rep.Sources, 1)
	assert.Contains(t, rep.Sources[0].Error, "polling.cycleTimeoutSeconds")
}

// freshProviderEachCall is the factory of the old poller: a provider, and
// with it an empty conditional-request cache, built on every call, whose
// listing says nothing of when an issue last moved, so every issue's
// comments are listed every cycle.
func (r *quotaRig) freshProviderEachCall(tb testing.TB) func(string) (integrations.Provider, error) {
	tb.Helper()
	return func(system string) (integrations.Provider, error) {
		p, err := providers.New(r.cfg, system, r.getenv)
		if err != nil {
			return nil, err
		}
		return undated{p}, nil
	}
}

// undated hides the updated time of listed issues.
type undated struct{ integrations.Provider }

func (u undated) ListOpenIssues(ctx context.Context, container, label string) ([]integrations.Issue, error) {
	issues, err := u.Provider.(integrations.IssueLister).ListOpenIssues(ctx, container, label)
	for i := range issues {
		issues[i].UpdatedAt = time.Time{}
	}
	return issues, err
}

// The legacy floor reproduces the cost the old poller had: every issue's
// comments, unconditionally, every cycle.
func TestTheLegacyFloorCostsOnePlusNPerCycle(t *testing.T) {
	const n = 12
	r := newQuotaRig(t, n)
	p := r.legacyProcess(t)
	r.cycle(t, p)
	reqs, quota := r.cycle(t, p)
	assert.Equal(t, 1+n, reqs)
	assert.Equal(t, 1+n, quota)
}
