package github_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/providertest"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// fakeGH writes an executable that behaves like `gh auth token`.
func fakeGH(t *testing.T, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gh")
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o755))
	return path
}

func TestFromConfigTokenSources(t *testing.T) {
	f := providertest.NewGitHub(t)
	tests := []struct {
		name    string
		cfg     config.GitHub
		vars    map[string]string
		wantErr []string
	}{
		{name: "token from the named variable", cfg: config.GitHub{BaseURL: f.URL(), TokenEnv: "MY_GH_TOKEN"}, vars: map[string]string{"MY_GH_TOKEN": f.Token()}},
		{name: "gh auth token when the variable is empty", cfg: config.GitHub{BaseURL: f.URL(), TokenEnv: "MY_GH_TOKEN", TokenSource: "gh", GHBinary: fakeGH(t, `[ "$1 $2" = "auth token" ] && echo `+f.Token())}},
		{name: "missing token names the variable and both fixes", cfg: config.GitHub{BaseURL: f.URL(), TokenEnv: "MY_GH_TOKEN", TokenSource: "env"},
			wantErr: []string{"MY_GH_TOKEN", "integrations.github.tokenEnv", "tokenSource: gh"}},
		{name: "failing gh names the variable and gh auth login", cfg: config.GitHub{BaseURL: f.URL(), TokenEnv: "MY_GH_TOKEN", TokenSource: "gh", GHBinary: fakeGH(t, "echo 'not logged in' >&2; exit 1")},
			wantErr: []string{"MY_GH_TOKEN", "gh auth login", "exit status 1", "auth status` to see why"}},
		{name: "gh not installed", cfg: config.GitHub{BaseURL: f.URL(), TokenEnv: "MY_GH_TOKEN", TokenSource: "gh", GHBinary: filepath.Join(t.TempDir(), "no-such-gh")},
			wantErr: []string{"not found on PATH", "integrations.github.ghBinary"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := github.FromConfig(tc.cfg, env(tc.vars))
			if tc.wantErr != nil {
				require.Error(t, err)
				for _, w := range tc.wantErr {
					assert.Contains(t, err.Error(), w)
				}
				assert.NotContains(t, err.Error(), f.Token())
				return
			}
			require.NoError(t, err)
			is, err := p.GetIssue(context.Background(), f.Ticket())
			require.NoError(t, err, "the resolved token authenticates")
			assert.Equal(t, "Seeded ticket", is.Title)
		})
	}
}

func TestGHOutputNeverReachesErrors(t *testing.T) {
	gh := fakeGH(t, "echo 'two tokens here'")
	_, err := github.FromConfig(config.GitHub{BaseURL: "https://api.github.com/", TokenEnv: "T", TokenSource: "gh", GHBinary: gh}, env(nil))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "two tokens here")
}

// gh's stderr can hold the token (a debug line, a half-printed secret): it
// never reaches an error.
func TestGHStderrNeverReachesErrors(t *testing.T) {
	gh := fakeGH(t, "echo 'token ghp_0123456789abcdefghijABCDEFGHIJ012345 rejected' >&2; exit 4")
	_, err := github.FromConfig(config.GitHub{BaseURL: "https://api.github.com/", TokenEnv: "T", TokenSource: "gh", GHBinary: gh}, env(nil))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "ghp_0123456789")
	assert.NotContains(t, err.Error(), "rejected")
	assert.Contains(t, err.Error(), "exit status 4")
}

// A token pasted into tokenEnv instead of a variable name is never printed.
func TestTokenEnvHoldingTheTokenIsNeverPrinted(t *testing.T) {
	for _, tok := range []string{"ghp_0123456789abcdefghijABCDEFGHIJ012345", "github_pat_11ABCDEFG0123456789_abcdefghij", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0"} {
		_, err := github.FromConfig(config.GitHub{BaseURL: "https://api.github.com/", TokenEnv: tok}, env(nil))
		require.Error(t, err, tok)
		assert.NotContains(t, err.Error(), tok)
		assert.Contains(t, err.Error(), "integrations.github.tokenEnv does not look like an environment variable name")

		_, err = config.Parse([]byte("integrations:\n  github:\n    tokenEnv: " + tok + "\n"))
		require.Error(t, err, tok)
		assert.NotContains(t, err.Error(), tok, "the config refusal never quotes it either")
		assert.Contains(t, err.Error(), "integrations.github.tokenEnv")
	}
}

func TestNewRejectsBadBaseURL(t *testing.T) {
	for _, u := range []string{"ftp://x/", "not a url", "https://"} {
		_, err := github.New(github.Options{BaseURL: u})
		require.Error(t, err, u)
		assert.Contains(t, err.Error(), "integrations.github.baseUrl")
	}
}

func TestRefOnAnotherHostIsRefused(t *testing.T) {
	f := providertest.NewGitHub(t)
	p := newFromFake(t, f, providertest.Env{Token: f.Token()})
	ref := f.Ticket()
	ref.Host = "ghe.other.example"
	_, err := p.GetIssue(context.Background(), ref)
	require.ErrorIs(t, err, integrations.ErrInvalid)
	assert.Contains(t, err.Error(), "integrations.github.baseUrl")
	assert.Zero(t, f.RequestCount())
}

type sleepLog struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleepLog) sleep(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
}

// After an answer that spends the last unit, go-github refuses further calls
// locally until the reset; the provider waits for it when the reset is near
// and never sends while the budget is exhausted.
func TestExhaustedBudgetIsNotSpentFurther(t *testing.T) {
	tests := []struct {
		name      string
		resetIn   time.Duration
		wantSleep bool
	}{
		{name: "reset within the wait cap is waited for", resetIn: 30 * time.Second, wantSleep: true},
		{name: "reset beyond the wait cap fails at once", resetIn: time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := providertest.NewGitHub(t)
			sl := &sleepLog{}
			p := newFromFake(t, f, providertest.Env{Token: f.Token(), Sleep: sl.sleep})
			f.SetQuota(1, tc.resetIn)
			_, err := p.GetIssue(context.Background(), f.Ticket())
			require.NoError(t, err, "the last unit is spent")
			sent := f.RequestCount()

			_, err = p.GetIssue(context.Background(), f.Ticket())
			require.ErrorIs(t, err, integrations.ErrRateLimited)
			assert.Equal(t, sent, f.RequestCount(), "nothing is sent while the budget is exhausted")
			if tc.wantSleep {
				require.Len(t, sl.d, 1)
				assert.InDelta(t, float64(tc.resetIn+time.Second), float64(sl.d[0]), float64(2*time.Second))
			} else {
				assert.Empty(t, sl.d)
			}
		})
	}
}

func TestCommentsTooLongAreRefusedBeforeSending(t *testing.T) {
	f := providertest.NewGitHub(t)
	p := newFromFake(t, f, providertest.Env{Token: f.Token()})
	long := make([]byte, 70000)
	for i := range long {
		long[i] = 'a'
	}
	_, err := p.CreateComment(context.Background(), f.Ticket(), string(long))
	require.ErrorIs(t, err, integrations.ErrInvalid)
	assert.Contains(t, err.Error(), "65536")
	assert.Zero(t, f.RequestCount())
}

func TestStatsCountNotModified(t *testing.T) {
	f := providertest.NewGitHub(t)
	p := newFromFake(t, f, providertest.Env{Token: f.Token()})
	for range 3 {
		_, err := p.ListComments(context.Background(), f.Ticket())
		require.NoError(t, err)
	}
	st := p.Stats()
	assert.Equal(t, int64(3), st.Sent)
	assert.Equal(t, int64(2), st.NotModified)
}

func TestIdleIssuePollCostsNoQuota(t *testing.T) {
	f := providertest.NewGitHub(t)
	p := newFromFake(t, f, providertest.Env{Token: f.Token()})
	_, err := p.ListOpenIssues(context.Background(), "octo/widgets", "")
	require.NoError(t, err)
	quota := f.QuotaRemaining()
	got, err := p.ListOpenIssues(context.Background(), "octo/widgets", "")
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, quota, f.QuotaRemaining())
	assert.Equal(t, int64(1), p.Stats().NotModified)
}

// The listing carries each issue's updated time, which moves when the issue
// changes; an unchanged listing is answered 304 and costs no quota.
func TestListOpenIssuesCarriesUpdatedTimeAndIsConditional(t *testing.T) {
	f := providertest.NewGitHub(t)
	p, err := github.New(github.Options{BaseURL: f.URL(), Token: f.Token()})
	require.NoError(t, err)
	ctx := context.Background()
	first, err := p.ListOpenIssues(ctx, providertest.GitHubRepo, "")
	require.NoError(t, err)
	require.Len(t, first, 1)
	require.False(t, first[0].UpdatedAt.IsZero())

	quota := f.QuotaRemaining()
	again, err := p.ListOpenIssues(ctx, providertest.GitHubRepo, "")
	require.NoError(t, err)
	assert.Equal(t, first, again)
	assert.Equal(t, quota, f.QuotaRemaining(), "an unchanged listing is free")
	reqs := f.Requests()
	assert.NotEmpty(t, reqs[len(reqs)-1].IfNoneMatch)
	assert.Equal(t, 304, reqs[len(reqs)-1].Status)

	f.AddComment(f.Ticket(), "bob", "NONE", "moved")
	moved, err := p.ListOpenIssues(ctx, providertest.GitHubRepo, "")
	require.NoError(t, err)
	assert.True(t, moved[0].UpdatedAt.After(first[0].UpdatedAt), "a new comment moves the issue")
}
