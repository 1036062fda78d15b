package github_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/internal/httpx"
)

// The recommended poll pattern for pull requests, per watched repository:
//
//  1. one conditional listing of open issues and one of open pull requests
//     (ETag: an unchanged listing is a free 304);
//  2. per pull request whose head SHA or updated_at moved since the last
//     cycle: its reviews, review comments and conversation (conditional
//     REST) and its review threads (one GraphQL query);
//  3. per pull request whose head moved or whose checks were not final
//     last cycle: its combined status and check runs (conditional; a new
//     check result does not move the pull request's updated_at).
//
// pollWatch is that pattern, run against the fake to count its requests.
type pollWatch struct {
	p    *github.Provider
	seen map[int]seenPull
}

type seenPull struct {
	head    string
	updated time.Time
	checks  integrations.ChecksVerdict
}

func (w *pollWatch) cycle(ctx context.Context) error {
	if _, err := w.p.ListOpenIssues(ctx, providertest.GitHubRepo, ""); err != nil {
		return err
	}
	prs, err := w.p.ListPullRequests(ctx, integrations.PullRequestQuery{Owner: "octo", Repo: "widgets"})
	if err != nil {
		return err
	}
	for _, pr := range prs {
		s, known := w.seen[pr.Number]
		moved := !known || s.head != pr.HeadSHA || !s.updated.Equal(pr.UpdatedAt)
		if moved {
			if err := w.details(ctx, pr.Number); err != nil {
				return err
			}
		}
		if moved || s.checks != integrations.ChecksGreen && s.checks != integrations.ChecksFailing {
			checks, err := w.p.ReadChecks(ctx, "octo", "widgets", pr.HeadSHA)
			if err != nil {
				return err
			}
			s.checks = checks.Verdict
		}
		s.head, s.updated = pr.HeadSHA, pr.UpdatedAt
		w.seen[pr.Number] = s
	}
	return nil
}

func (w *pollWatch) details(ctx context.Context, n int) error {
	if _, err := w.p.ListReviews(ctx, "octo", "widgets", n); err != nil {
		return err
	}
	if _, err := w.p.ListReviewComments(ctx, "octo", "widgets", n); err != nil {
		return err
	}
	if _, err := w.p.ListComments(ctx, integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: n}); err != nil {
		return err
	}
	_, err := w.p.ListReviewThreads(ctx, "octo", "widgets", n)
	return err
}

// pollRig is a fake with 50 open issues and 50 open pull requests, each
// with a review, a review thread and a finished check run.
type pollRig struct {
	f     *providertest.Server
	w     *pollWatch
	pulls []int
	round int
}

const pollItems = 50

func newPollRig(tb testing.TB, checkStatus string) *pollRig {
	f := providertest.NewGitHub(tb)
	f.SetQuota(1<<30, time.Hour)
	for i := 1; i < pollItems; i++ {
		f.SeedIssue(fmt.Sprintf("item %d", i), nil, true)
	}
	rig := &pollRig{f: f}
	for i := range pollItems {
		sha := fmt.Sprintf("%040x", i+1)
		n := f.SeedPull(providertest.GitHubRepo, fmt.Sprintf("the-loop/issue-%d", i+1), "main", sha, fmt.Sprintf("PR %d", i+1))
		f.AddReview(providertest.GitHubRepo, n, "bob", "MEMBER", "COMMENTED", "looks fine")
		f.AddReviewThread(providertest.GitHubRepo, n, "bob", "a.go", 1, "why?")
		f.SetCheckRun(providertest.GitHubRepo, sha, "build", checkStatus, "success", "https://ci.example.com/1")
		rig.pulls = append(rig.pulls, n)
	}
	p, err := github.New(github.Options{BaseURL: f.URL(), Token: f.Token(), ClientOptions: httpx.ClientOptions{HTTPClient: &http.Client{Transport: http.DefaultTransport}}})
	require.NoError(tb, err)
	rig.w = &pollWatch{p: p, seen: map[int]seenPull{}}
	require.NoError(tb, rig.w.cycle(context.Background()), "first sight reads everything")
	return rig
}

// pushAll pushes a new commit to every pull request, with its check run
// finished.
func (r *pollRig) pushAll() {
	r.round++
	for i := range r.pulls {
		sha := fmt.Sprintf("%08x%032x", r.round, i+1)
		r.f.PushBranch(providertest.GitHubRepo, fmt.Sprintf("the-loop/issue-%d", i+1), sha)
		r.f.SetCheckRun(providertest.GitHubRepo, sha, "build", "completed", "success", "https://ci.example.com/2")
	}
}

// cost is what one cycle spent.
type cost struct{ requests, core, graphql int }

func (r *pollRig) measure(tb testing.TB, cycles int, between func()) cost {
	var c cost
	for range cycles {
		if between != nil {
			between()
		}
		req, core, gql := r.f.RequestCount(), r.f.QuotaRemaining(), r.f.GraphQLQuotaRemaining()
		require.NoError(tb, r.w.cycle(context.Background()))
		c.requests += r.f.RequestCount() - req
		c.core += core - r.f.QuotaRemaining()
		c.graphql += gql - r.f.GraphQLQuotaRemaining()
	}
	return cost{c.requests / cycles, c.core / cycles, c.graphql / cycles}
}

// Per-PR work of a moved pull request: reviews, review comments,
// conversation, threads (GraphQL), combined status, check runs.
const perMovedPull = 6

func TestPollCycleRequestCounts(t *testing.T) {
	tests := []struct {
		name    string
		status  string
		between func(r *pollRig)
		want    cost
	}{
		{name: "idle: two free 304 listings", status: "completed", want: cost{requests: 2}},
		{name: "idle with CI running: checks re-read conditionally, still free", status: "in_progress",
			want: cost{requests: 2 + 2*pollItems}},
		// A push changes both listings and the head's checks; reviews,
		// review comments and the conversation answer 304 (free).
		{name: "busy: every pull request pushed", status: "completed", between: (*pollRig).pushAll,
			want: cost{requests: 2 + perMovedPull*pollItems, core: 2 + 2*pollItems, graphql: pollItems}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rig := newPollRig(t, tc.status)
			var between func()
			if tc.between != nil {
				between = func() { tc.between(rig) }
			}
			assert.Equal(t, tc.want, rig.measure(t, 3, between))
		})
	}
}

// BenchmarkPollCycle reports requests and quota per poll cycle with 50
// items and 50 open pull requests. The floor is the idle cycle of the same
// run: one conditional listing of issues and one of pull requests.
func BenchmarkPollCycle(b *testing.B) {
	floor := newPollRig(b, "completed").measure(b, 3, nil)
	for _, bc := range []struct {
		name    string
		status  string
		between func(r *pollRig)
	}{
		{name: "idle", status: "completed"},
		{name: "ci-running", status: "in_progress"},
		{name: "busy", status: "completed", between: (*pollRig).pushAll},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rig := newPollRig(b, bc.status)
			var c cost
			b.ResetTimer()
			for range b.N {
				if bc.between != nil {
					b.StopTimer()
					bc.between(rig)
					b.StartTimer()
				}
				c = rig.measure(b, 1, nil)
			}
			b.ReportMetric(float64(c.requests), "requests/cycle")
			b.ReportMetric(float64(c.core), "core-quota/cycle")
			b.ReportMetric(float64(c.graphql), "graphql-points/cycle")
			b.ReportMetric(float64(c.requests)/float64(floor.requests), "x-floor-requests")
		})
	}
}
