package service

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/workspace"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/internal/httpx"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/store"
)

// pullBenchItems is how many work items, each with one open pull request,
// the poller watches in the benchmark; pullTestItems in the test that pins
// the counts, whose counts are a fixed cost plus a cost per pull request
// that ten show as well as fifty, at a fifth of the setup. At ready-to-ship
// fifty pull requests read more resources than the ETag cache holds
// (httpx.DefaultCacheEntries): the count there is what a busy repository
// pays. The test's ten read more than a cache a fifth of that size holds
// (pullTestCacheEntries), and pay the same per pull request.
const (
	pullBenchItems       = 50
	pullTestItems        = 10
	pullTestCacheEntries = httpx.DefaultCacheEntries * pullTestItems / pullBenchItems
)

// pullBench is the poller over 50 started work items of octo/widgets, each
// standing at implementation with its pull request open, linked, its loop
// started, a build check on its head and the reviewer briefing posted:
// what a busy repository looks like while the agents work. With atShip,
// each pull request's loop is parked at reviewer-briefing on ready-to-ship
// (its CI still running), so every push makes the poller read GitHub for
// it: the briefing, the checks, the review threads (GraphQL), the
// conversation and the changed files.
type pullBench struct {
	fake     *providertest.Server
	poller   *Poller
	branches []string
	round    int
	status   string // the build check's status on every new head
}

// benchShape is what the measured cycle finds.
type benchShape struct {
	checkStatus string // the build check's status on the heads
	dag         bool   // the dependency step is on
	atShip      bool   // the loops are parked on ready-to-ship
	items       int    // work items, each with its pull request (0: pullBenchItems)
	cache       int    // the provider's in-memory ETag cache entries (0: httpx.DefaultCacheEntries)
}

func newPullBench(tb testing.TB, shape benchShape) *pullBench {
	tb.Helper()
	if _, bench := tb.(*testing.B); bench { // tests leave the process-wide logger alone: they run in parallel
		quiet := slog.Default()
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil))) // the store's migration line would split the benchmark's output
		tb.Cleanup(func() { slog.SetDefault(quiet) })
	}
	fake := providertest.NewGitHub(tb)
	fake.SetQuota(1<<30, time.Hour)
	repo := tb.TempDir()
	require.NoError(tb, writeFileTB(filepath.Join(repo, repoconfig.Path), "ticketing:\n  github:\n    owner: octo\n    repo: widgets\n"+passingTests))
	cfg := config.Default()
	cfg.Routing.AuthorizedUsers = []string{"alice"}
	cfg.Routing.SelfLogins = []string{fake.BotLogin()}
	cfg.Polling.Sources = []config.Source{{System: "github", Repos: []string{providertest.GitHubRepo}, Checkout: repo}}
	cfg.DAG.Enabled = &shape.dag
	if shape.atShip {
		withFakeCritic(tb, cfg)
	}
	prov, err := github.New(github.Options{BaseURL: fake.URL(), Token: fake.Token(), ClientOptions: httpx.ClientOptions{CacheEntries: shape.cache}})
	require.NoError(tb, err)
	svc := testService(tb, cfg, Deps{Signer: runtime.NewSigner([]byte("k")), Store: store.NewHandle(filepath.Join(tb.TempDir(), "state.db")),
		Providers: func(string) (integrations.Provider, error) { return prov, nil }})
	ctx := context.Background()
	var branches []string
	items := shape.items
	if items == 0 {
		items = pullBenchItems
	}
	for i := 1; i <= items; i++ {
		ref := integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 1}
		if i > 1 {
			ref = fake.SeedIssue(fmt.Sprintf("item %d", i), nil, true)
		}
		id := fmt.Sprintf("issue-%d", ref.Number)
		item := ItemRequest{Repo: repo, WorkItem: id}
		_, err := svc.Start(ctx, StartRequest{ItemRequest: item, Ref: ref.String()})
		require.NoError(tb, err)
		_, err = svc.Force(ctx, ForceRequest{ItemRequest: item, To: "implementation", Reason: "the benchmark's items stand at implementation", Actor: "@bench"})
		require.NoError(tb, err)
		title := "Seeded ticket"
		if i > 1 {
			title = fmt.Sprintf("item %d", i)
		}
		sha := fmt.Sprintf("%040x", i)
		branches = append(branches, mustBranch(tb, id, title))
		fake.SeedBranch(providertest.GitHubRepo, branches[len(branches)-1], sha)
		fake.SetCheckRun(providertest.GitHubRepo, sha, "build", shape.checkStatus, "success", "https://ci.example.com/1")
		res, err := svc.PRCreate(ctx, PRCreateRequest{ItemRequest: item, Actor: "bench"})
		require.NoError(tb, err)
		writeSpecTB(tb, repo, id, "pr-briefing.md", rigBriefing)
		if shape.atShip {
			parkOnShip(tb, svc, item, res.PullRequest.Number, repo)
			continue
		}
		owner := integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: res.PullRequest.Number}
		_, _, err = integrations.UpsertComment(ctx, prov, owner, "<!-- the-loop:pr-briefing -->",
			"briefing\n<!-- the-loop:pr-briefing-head "+sha+" -->", cfg.Routing.SelfLogins)
		require.NoError(tb, err)
	}
	b := &pullBench{fake: fake, poller: &Poller{Svc: svc, Sources: cfg.Polling.Sources}, branches: branches, status: "completed"}
	if shape.atShip {
		b.status = "in_progress"
	}
	b.poller.RunOnce(ctx) // first sight reads everything once
	return b
}

// parkOnShip walks pull request n's loop of item up to reviewer-briefing
// and claims it: its CI still runs, so it parks on ready-to-ship.
func parkOnShip(tb testing.TB, svc *Service, item ItemRequest, n int, repo string) {
	tb.Helper()
	writeSpecTB(tb, repo, item.WorkItem, loopFolder(tb, n, "")+"/execution-log.md", rigExecutionLog)
	writeSpecTB(tb, repo, item.WorkItem, "evidence/documentation.md", rigDocs)
	writeSpecTB(tb, repo, item.WorkItem, loopFolder(tb, n, "")+"/evidence/self-review.md", rigSelfReview)
	for _, node := range []string{"implementation", "verification", "self-review", "critic-review", "security-review", "reviewer-briefing"} {
		if node == "critic-review" {
			criticRound(tb, svc, item, n, "")
		}
		res, err := svc.Complete(context.Background(), CompleteRequest{ItemRequest: item, Node: node, PR: n, Actor: "bench"})
		require.NoError(tb, err)
		want := runtime.Pass
		if node == "reviewer-briefing" {
			want = runtime.Wait
		}
		require.Equal(tb, string(want), res.Status, "%s: %v", node, res.Messages)
	}
}

// pushAll pushes a new commit to every pull request, its build in the
// bench's status.
func (b *pullBench) pushAll() {
	b.round++
	for i, branch := range b.branches {
		sha := fmt.Sprintf("%08x%032x", b.round, i+1)
		b.fake.PushBranch(providertest.GitHubRepo, branch, sha)
		b.fake.SetCheckRun(providertest.GitHubRepo, sha, "build", b.status, "success", "https://ci.example.com/2")
	}
}

// pullCost is what one cycle spent.
type pullCost struct{ requests, core, graphql int }

func (b *pullBench) measure(tb testing.TB, cycles int, between func()) pullCost {
	var c pullCost
	for range cycles {
		if between != nil {
			between()
		}
		req, core, gql := b.fake.RequestCount(), b.fake.QuotaRemaining(), b.fake.GraphQLQuotaRemaining()
		rep := b.poller.RunOnce(context.Background())
		for _, s := range rep.Sources {
			require.Empty(tb, s.Error)
		}
		c.requests += b.fake.RequestCount() - req
		c.core += core - b.fake.QuotaRemaining()
		c.graphql += gql - b.fake.GraphQLQuotaRemaining()
	}
	return pullCost{c.requests / cycles, c.core / cycles, c.graphql / cycles}
}

// TestPollerPullRequestCycleCounts pins what one poll cycle sends with 10
// work items and 10 open pull requests, the dependency step off (at
// ready-to-ship over an ETag cache of pullTestCacheEntries): idle, two
// conditional listings (free 304s); with CI running on every pull request,
// its checks are read again each cycle, conditionally (free); busy (every
// pull request pushed, CI finished, after a busy cycle), per pull request
// its conversation (changed: the loop edited its briefing last cycle), its
// new head's status and check runs, the pull request and the briefing's
// listing (a free 304) and edit; busy with every loop parked on
// ready-to-ship (CI still running on each new head: the loop waits), 17
// requests per pull request, 9 of them counted: the new head's status and
// check runs (2), the conversation (changed), the briefing's edit, then the
// gate's reading — its reviews and review comments, the pull request (once
// changed, twice a free 304), the head's checks again (free), its review
// threads (one GraphQL query, one point), the conversation again (once
// changed by the edit, three times free) and its changed files. Both
// listings change too: GitHub's issue listing holds the pull requests,
// whose conversations the edits moved.
func TestPollerPullRequestCycleCounts(t *testing.T) {
	t.Parallel()
	const n = pullTestItems
	tests := []struct {
		name    string
		shape   benchShape
		between func(b *pullBench)
		want    pullCost
	}{
		{name: "idle", shape: benchShape{checkStatus: "completed"}, want: pullCost{requests: 2}},
		{name: "idle, CI running", shape: benchShape{checkStatus: "in_progress"}, want: pullCost{requests: 2 + 2*n}},
		{name: "busy: every pull request pushed", shape: benchShape{checkStatus: "completed"}, between: (*pullBench).pushAll,
			want: pullCost{requests: 2 + 6*n, core: 2 + 5*n}},
		{name: "busy at ready-to-ship", shape: benchShape{checkStatus: "in_progress", atShip: true, cache: pullTestCacheEntries}, between: (*pullBench).pushAll,
			want: pullCost{requests: 2 + 17*n, core: 2 + 9*n, graphql: n}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.shape.items == 0 {
				tc.shape.items = n
			}
			b := newPullBench(t, tc.shape)
			var between func()
			if tc.between != nil {
				between = func() { tc.between(b) }
				b.measure(t, 1, between) // the first busy cycle finds no briefing edit of the loop's own to read back
			}
			assert.Equal(t, tc.want, b.measure(t, 2, between))
		})
	}
}

// BenchmarkPollerPullCycle reports the requests, REST quota and GraphQL
// points of one poll cycle over 50 items and 50 open pull requests. The
// floor is the idle cycle of the same run: the two conditional listings.
func BenchmarkPollerPullCycle(b *testing.B) {
	floor := newPullBench(b, benchShape{checkStatus: "completed"}).measure(b, 3, nil)
	for _, bc := range []struct {
		name    string
		shape   benchShape
		between func(p *pullBench)
	}{
		{name: "idle", shape: benchShape{checkStatus: "completed"}},
		{name: "ci-running", shape: benchShape{checkStatus: "in_progress"}},
		{name: "busy", shape: benchShape{checkStatus: "completed"}, between: (*pullBench).pushAll},
		{name: "busy-at-ship", shape: benchShape{checkStatus: "in_progress", atShip: true}, between: (*pullBench).pushAll},
		{name: "idle-with-dag", shape: benchShape{checkStatus: "completed", dag: true}},
		{name: "busy-with-dag", shape: benchShape{checkStatus: "completed", dag: true}, between: (*pullBench).pushAll},
	} {
		b.Run(bc.name, func(b *testing.B) {
			pb := newPullBench(b, bc.shape)
			if bc.between != nil {
				pb.measure(b, 1, func() { bc.between(pb) })
			}
			var c pullCost
			b.ResetTimer()
			for range b.N {
				var between func()
				if bc.between != nil {
					between = func() { b.StopTimer(); bc.between(pb); b.StartTimer() }
				}
				one := pb.measure(b, 1, between)
				c.requests, c.core, c.graphql = c.requests+one.requests, c.core+one.core, c.graphql+one.graphql
			}
			n := float64(b.N)
			b.ReportMetric(float64(c.requests)/n, "requests/cycle")
			b.ReportMetric(float64(c.core)/n, "core-quota/cycle")
			b.ReportMetric(float64(c.graphql)/n, "graphql-points/cycle")
			b.ReportMetric(float64(c.requests)/n/float64(max(floor.requests, 1)), "x-floor-requests")
		})
	}
}

func mustBranch(tb testing.TB, id, title string) string {
	tb.Helper()
	br, err := workspace.BranchFor(id, title)
	require.NoError(tb, err)
	return br
}

func writeFileTB(path, body string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(body), 0o644)
}

func writeSpecTB(tb testing.TB, repo, id, name, body string) {
	tb.Helper()
	require.NoError(tb, writeFileTB(filepath.Join(repo, "docs", "specs", id, name), body))
}
