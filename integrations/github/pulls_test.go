package github_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/providertest"
)

var (
	shaA = strings.Repeat("a", 40)
	shaB = strings.Repeat("b", 40)
)

type recordedSleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (r *recordedSleeps) sleep(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.d = append(r.d, d)
}

func (r *recordedSleeps) all() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.d...)
}

func newPullFake(t *testing.T) (*providertest.Server, *github.Provider, *recordedSleeps) {
	t.Helper()
	f := providertest.NewGitHub(t)
	sl := &recordedSleeps{}
	return f, newFromFake(t, f, providertest.Env{Token: f.Token(), Sleep: sl.sleep}), sl
}

func TestPullRequestHeadAndMergeability(t *testing.T) {
	f, p, _ := newPullFake(t)
	ctx := context.Background()
	n := f.SeedPull(providertest.GitHubRepo, "feature", "main", shaA, "Feature")

	pr, err := p.GetPullRequest(ctx, "octo", "widgets", n)
	require.NoError(t, err)
	assert.Equal(t, shaA, pr.HeadSHA)
	require.NotNil(t, pr.Mergeable)
	assert.True(t, *pr.Mergeable)
	assert.Equal(t, "clean", pr.MergeableState)

	f.SetMergeability(providertest.GitHubRepo, n, nil, "unknown")
	pr, err = p.GetPullRequest(ctx, "octo", "widgets", n)
	require.NoError(t, err)
	assert.Nil(t, pr.Mergeable, "not computed yet is not 'mergeable'")

	before := pr.UpdatedAt
	f.PushBranch(providertest.GitHubRepo, "feature", shaB)
	no := false
	f.SetMergeability(providertest.GitHubRepo, n, &no, "dirty")
	pr, err = p.GetPullRequest(ctx, "octo", "widgets", n)
	require.NoError(t, err)
	assert.Equal(t, shaB, pr.HeadSHA, "a push moves the head")
	assert.True(t, pr.UpdatedAt.After(before), "a push moves updated_at")
	require.NotNil(t, pr.Mergeable)
	assert.False(t, *pr.Mergeable)
	assert.Equal(t, "dirty", pr.MergeableState)

	f.MergePull(providertest.GitHubRepo, n)
	pr, err = p.GetPullRequest(ctx, "octo", "widgets", n)
	require.NoError(t, err)
	assert.True(t, pr.Merged)
	assert.Equal(t, "closed", pr.State)
}

func TestPullReadsAreConditional(t *testing.T) {
	f, p, _ := newPullFake(t)
	ctx := context.Background()
	n := f.SeedPull(providertest.GitHubRepo, "feature", "main", shaA, "Feature")
	f.SetCheckRun(providertest.GitHubRepo, shaA, "build", "in_progress", "", "https://ci.example.com/1")
	read := func() {
		t.Helper()
		_, err := p.ListPullRequests(ctx, integrations.PullRequestQuery{Owner: "octo", Repo: "widgets"})
		require.NoError(t, err)
		_, err = p.GetPullRequest(ctx, "octo", "widgets", n)
		require.NoError(t, err)
		_, err = p.ReadChecks(ctx, "octo", "widgets", shaA)
		require.NoError(t, err)
		_, err = p.ListReviews(ctx, "octo", "widgets", n)
		require.NoError(t, err)
		_, err = p.ListReviewComments(ctx, "octo", "widgets", n)
		require.NoError(t, err)
	}
	read()
	quota, sent := f.QuotaRemaining(), len(f.Requests())
	read()
	again := f.Requests()[sent:]
	require.Len(t, again, 6, "one request per read, two for the checks")
	for _, r := range again {
		assert.Equal(t, http.StatusNotModified, r.Status, "%s %s", r.Method, r.Path)
		assert.NotEmpty(t, r.IfNoneMatch)
	}
	assert.Equal(t, quota, f.QuotaRemaining(), "re-reading an unchanged pull request costs no quota")

	f.SetCheckRun(providertest.GitHubRepo, shaA, "build", "completed", "success", "https://ci.example.com/1")
	checks, err := p.ReadChecks(ctx, "octo", "widgets", shaA)
	require.NoError(t, err)
	assert.Equal(t, integrations.ChecksGreen, checks.Verdict, "a changed answer is read again")
}

func TestGraphQLEndpointFollowsTheRESTRoot(t *testing.T) {
	tests := []struct {
		name, base, want string
	}{
		{name: "github.com", base: "https://api.github.com/", want: "/graphql"},
		{name: "GitHub Enterprise Server", base: "/api/v3/", want: "/api/graphql"},
		{name: "Enterprise behind a path prefix", base: "/ghe/api/v3/", want: "/ghe/api/graphql"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = r.URL.Path
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"data":{"repository":{"pullRequest":{"reviewThreads":{"totalCount":0,"pageInfo":{"hasNextPage":false,"endCursor":""},"nodes":[]}}}}}`))
			}))
			t.Cleanup(srv.Close)
			base := tc.base
			if !strings.HasPrefix(base, "https://") {
				base = srv.URL + base
			} else {
				base = srv.URL + "/"
			}
			p, err := github.New(github.Options{BaseURL: base, Token: "t0ken-value"})
			require.NoError(t, err)
			_, err = p.ListReviewThreads(context.Background(), "octo", "widgets", 1)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestReviewThreadsRateLimitedAnswer(t *testing.T) {
	t.Run("within the wait cap it waits for the reset and asks again", func(t *testing.T) {
		f, p, sl := newPullFake(t)
		n := f.SeedPull(providertest.GitHubRepo, "feature", "main", shaA, "Feature")
		f.AddReviewThread(providertest.GitHubRepo, n, "bob", "a.go", 1, "why?")
		f.GraphQLRateLimitedNext(20 * time.Second)
		got, err := p.ListReviewThreads(context.Background(), "octo", "widgets", n)
		require.NoError(t, err)
		assert.Len(t, got, 1)
		require.Len(t, sl.all(), 1)
		assert.InDelta(t, 21*time.Second, sl.all()[0], float64(2*time.Second))
	})
	t.Run("beyond the wait cap it is ErrRateLimited with the reset", func(t *testing.T) {
		f, p, sl := newPullFake(t)
		n := f.SeedPull(providertest.GitHubRepo, "feature", "main", shaA, "Feature")
		f.GraphQLRateLimitedNext(2 * time.Hour)
		_, err := p.ListReviewThreads(context.Background(), "octo", "widgets", n)
		require.ErrorIs(t, err, integrations.ErrRateLimited)
		assert.Empty(t, sl.all())
		assert.Contains(t, err.Error(), "retry after")
	})
}

func TestReviewThreadsRefusePartialAnswers(t *testing.T) {
	tests := []struct {
		name, body string
		want       error
	}{
		{name: "data with an error is not read as complete", want: integrations.ErrUnavailable,
			body: `{"data":{"repository":{"pullRequest":{"reviewThreads":{"totalCount":2,"pageInfo":{"hasNextPage":false},"nodes":[{"id":"T1","isResolved":true}]}}}},"errors":[{"message":"Something went wrong while executing your query. This may be the result of a timeout."}]}`},
		{name: "a missing pull request is ErrNotFound", want: integrations.ErrNotFound,
			body: `{"data":{"repository":{"pullRequest":null}},"errors":[{"type":"NOT_FOUND","message":"Could not resolve to a PullRequest with the number of 1."}]}`},
		{name: "forbidden is ErrForbidden", want: integrations.ErrForbidden,
			body: `{"data":null,"errors":[{"type":"FORBIDDEN","message":"Resource not accessible by integration"}]}`},
		{name: "a next page without a cursor stops the listing", want: integrations.ErrMalformed,
			body: `{"data":{"repository":{"pullRequest":{"reviewThreads":{"totalCount":2,"pageInfo":{"hasNextPage":true,"endCursor":""},"nodes":[]}}}}}`},
		{name: "an answer without data", want: integrations.ErrMalformed, body: `{}`},
		{name: "a truncated answer", want: integrations.ErrMalformed, body: `{"data":{"repository":{"pullRequest":{"reviewThr`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(tc.body))
			}))
			t.Cleanup(srv.Close)
			p, err := github.New(github.Options{BaseURL: srv.URL + "/api/v3/", Token: "t0ken-value"})
			require.NoError(t, err)
			_, err = p.ListReviewThreads(context.Background(), "octo", "widgets", 1)
			assert.ErrorIs(t, err, tc.want)
		})
	}
}

func TestUpsertOnAPullRequestConversation(t *testing.T) {
	f, p, _ := newPullFake(t)
	ctx := context.Background()
	n := f.SeedPull(providertest.GitHubRepo, "feature", "main", shaA, "Feature")
	ref := integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: n}
	key := "<!-- the-loop:pr-briefing -->"
	self := []string{f.BotLogin()}

	first, action, err := integrations.UpsertComment(ctx, p, ref, key, "briefing for "+shaA, self)
	require.NoError(t, err)
	assert.Equal(t, integrations.UpsertCreated, action)
	f.PushBranch(providertest.GitHubRepo, "feature", shaB)
	second, action, err := integrations.UpsertComment(ctx, p, ref, key, "briefing for "+shaB, self)
	require.NoError(t, err)
	assert.Equal(t, integrations.UpsertEdited, action)
	assert.Equal(t, first.ID, second.ID)
	stored := f.Comments(ref)
	require.Len(t, stored, 1, "posted once, edited on the next push, never duplicated")
	assert.Contains(t, stored[0].Body, shaB)

	pr, err := p.GetPullRequest(ctx, "octo", "widgets", n)
	require.NoError(t, err)
	assert.False(t, pr.UpdatedAt.Before(stored[0].Updated), "a comment moves the pull request's updated_at")
}
