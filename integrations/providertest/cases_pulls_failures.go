package providertest

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
)

// pullProbe drives one pull-request operation through the failure modes.
type pullProbe struct {
	// seed stores n listable items and returns the call, which reports how
	// many items it read, and how many it must read.
	seed func(h *rig, n int) (call func() (int, error), want int)
	// missing calls the operation on something the fake does not have.
	missing func(h *rig) error
	// listings is how many paginated listings one call pages through (0:
	// the operation does not page).
	listings int
	// reads picks the requests the operation's listings make.
	reads func(r Request) bool
}

func pullOf(h *rig) int { return h.f.SeedPull(GitHubRepo, "probe", "main", shaA, "probe") }

func onPulls(r Request) bool { return strings.Contains(r.Path, "/pulls") }

var pullProbes = map[integrations.Op]pullProbe{
	integrations.OpOpenPullRequest: {
		seed: func(h *rig, _ int) (func() (int, error), int) {
			h.f.SeedBranch(GitHubRepo, "probe", shaA)
			return func() (int, error) {
				_, _, err := h.p.(integrations.PullRequestOpener).OpenPullRequest(h.ctx, integrations.NewPullRequest{Owner: "octo", Repo: "widgets", Title: "probe", Head: "probe", Base: "main"})
				return 1, err
			}, 1
		},
		missing: func(h *rig) error {
			_, _, err := h.p.(integrations.PullRequestOpener).OpenPullRequest(h.ctx, integrations.NewPullRequest{Owner: "octo", Repo: "absent", Title: "x", Head: "probe", Base: "main"})
			return err
		},
	},
	integrations.OpListPullRequests: {
		seed: func(h *rig, n int) (func() (int, error), int) {
			for i := range n {
				h.f.SeedPull(GitHubRepo, fmt.Sprintf("probe-%d", i), "main", shaA, "probe")
			}
			return func() (int, error) {
				got, err := h.p.(integrations.PullRequestLister).ListPullRequests(h.ctx, integrations.PullRequestQuery{Owner: "octo", Repo: "widgets"})
				return len(got), err
			}, n
		},
		missing: func(h *rig) error {
			_, err := h.p.(integrations.PullRequestLister).ListPullRequests(h.ctx, integrations.PullRequestQuery{Owner: "octo", Repo: "absent"})
			return err
		},
		listings: 1, reads: onPulls,
	},
	integrations.OpListPullRequestFiles: {
		seed: func(h *rig, n int) (func() (int, error), int) {
			pr := pullOf(h)
			var files []string
			for i := range n {
				files = append(files, fmt.Sprintf("f%d.go", i))
			}
			h.f.SetPullFiles(GitHubRepo, pr, files...)
			return func() (int, error) {
				got, err := h.p.(integrations.PullRequestFileLister).ListPullRequestFiles(h.ctx, "octo", "widgets", pr)
				return len(got), err
			}, n
		},
		missing: func(h *rig) error {
			_, err := h.p.(integrations.PullRequestFileLister).ListPullRequestFiles(h.ctx, "octo", "widgets", 999)
			return err
		},
		listings: 1, reads: onPulls,
	},
	integrations.OpListReviews: {
		seed: func(h *rig, n int) (func() (int, error), int) {
			pr := pullOf(h)
			for range n {
				h.f.AddReview(GitHubRepo, pr, "bob", "MEMBER", "COMMENTED", "note")
			}
			return func() (int, error) {
				got, err := h.p.(integrations.ReviewLister).ListReviews(h.ctx, "octo", "widgets", pr)
				return len(got), err
			}, n
		},
		missing: func(h *rig) error {
			_, err := h.p.(integrations.ReviewLister).ListReviews(h.ctx, "octo", "widgets", 999)
			return err
		},
		listings: 1, reads: onPulls,
	},
	integrations.OpListReviewComments: {
		seed: func(h *rig, n int) (func() (int, error), int) {
			pr := pullOf(h)
			for i := range n {
				h.f.AddReviewThread(GitHubRepo, pr, "bob", "a.go", i+1, "why?")
			}
			return func() (int, error) {
				got, err := h.p.(integrations.ReviewCommentLister).ListReviewComments(h.ctx, "octo", "widgets", pr)
				return len(got), err
			}, n
		},
		missing: func(h *rig) error {
			_, err := h.p.(integrations.ReviewCommentLister).ListReviewComments(h.ctx, "octo", "widgets", 999)
			return err
		},
		listings: 1, reads: onPulls,
	},
	integrations.OpReadChecks: {
		seed: func(h *rig, n int) (func() (int, error), int) {
			for i := range n {
				h.f.SetStatus(GitHubRepo, shaA, fmt.Sprintf("ci/%d", i), "success", "https://ci.example.com")
				h.f.SetCheckRun(GitHubRepo, shaA, fmt.Sprintf("run-%d", i), "completed", "success", "https://ci.example.com")
			}
			return func() (int, error) {
				got, err := h.p.(integrations.CheckReader).ReadChecks(h.ctx, "octo", "widgets", shaA)
				return len(got.All), err
			}, 2 * n
		},
		missing: func(h *rig) error {
			_, err := h.p.(integrations.CheckReader).ReadChecks(h.ctx, "octo", "absent", shaA)
			return err
		},
		listings: 2, reads: func(r Request) bool { return strings.Contains(r.Path, "/commits/") },
	},
	integrations.OpListReviewThreads: {
		seed: func(h *rig, n int) (func() (int, error), int) {
			pr := pullOf(h)
			for i := range n {
				h.f.AddReviewThread(GitHubRepo, pr, "bob", "a.go", i+1, "why?")
			}
			return func() (int, error) {
				got, err := h.p.(integrations.ReviewThreadLister).ListReviewThreads(h.ctx, "octo", "widgets", pr)
				return len(got), err
			}, n
		},
		missing: func(h *rig) error {
			_, err := h.p.(integrations.ReviewThreadLister).ListReviewThreads(h.ctx, "octo", "widgets", 999)
			return err
		},
		listings: 1, reads: func(r Request) bool { return strings.HasSuffix(r.Path, "/graphql") },
	},
	integrations.OpLinkTicket: {
		seed: func(h *rig, _ int) (func() (int, error), int) {
			return func() (int, error) {
				pr := integrations.PullRequest{Owner: "octo", Repo: "widgets", Number: 3, URL: "https://github.com/octo/widgets/pull/3"}
				err := h.p.(integrations.TicketLinker).LinkTicket(h.ctx, h.ref(), pr)
				return len(h.f.RemoteLinks(h.ref().Key)), err
			}, 1
		},
		missing: func(h *rig) error {
			return h.p.(integrations.TicketLinker).LinkTicket(h.ctx, h.f.Missing(), integrations.PullRequest{Number: 3, URL: "https://github.com/octo/widgets/pull/3"})
		},
	},
}

// runPullFailures runs every failure mode for each pull-request operation
// the provider declares.
func runPullFailures(t *testing.T, target Target) {
	declared := setup(t, target).p.Operations()
	ops := make([]integrations.Op, 0, len(pullProbes))
	for op := range pullProbes {
		if slices.Contains(declared, op) {
			ops = append(ops, op)
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i] < ops[j] })
	for _, op := range ops {
		pr := pullProbes[op]
		t.Run(string(op), func(t *testing.T) {
			if pr.listings > 0 {
				t.Run("pagination across three pages", func(t *testing.T) { probePagination(t, setup(t, target), pr) })
			}
			t.Run("404 is ErrNotFound", func(t *testing.T) { probeNotFound(t, setup(t, target), pr) })
			t.Run("401 is ErrUnauthorized", func(t *testing.T) { probeUnauthorized(t, setup(t, target, withToken("wrong-token-value-123")), pr) })
			t.Run("502 storm then success", func(t *testing.T) { probeStorm(t, setup(t, target), pr) })
			t.Run("secondary rate limit honours Retry-After", func(t *testing.T) { probeSecondary(t, setup(t, target), pr) })
			t.Run("credentials never reach errors or logs", func(t *testing.T) { probeNoLeak(t, target, pr) })
		})
	}
}

func probePagination(t *testing.T, h *rig, pr pullProbe) {
	call, want := pr.seed(h, 5)
	h.f.SetPageSize(2)
	got, err := call()
	require.NoError(t, err)
	assert.Equal(t, want, got, "every item, across pages")
	n := 0
	for _, r := range h.f.Requests() {
		if pr.reads(r) {
			n++
		}
	}
	assert.Equal(t, 3*pr.listings, n, "five items at two per page take three requests per listing")
}

func probeNotFound(t *testing.T, h *rig, pr pullProbe) {
	err := pr.missing(h)
	require.ErrorIs(t, err, integrations.ErrNotFound)
	assert.Equal(t, 1, h.f.RequestCount(), "a 404 is never retried")
}

func probeUnauthorized(t *testing.T, h *rig, pr pullProbe) {
	call, _ := pr.seed(h, 1)
	_, err := call()
	require.ErrorIs(t, err, integrations.ErrUnauthorized)
	h.noSecret(t, err)
	assert.Equal(t, 1, h.f.RequestCount(), "a 401 is never retried")
}

func probeStorm(t *testing.T, h *rig, pr pullProbe) {
	call, want := pr.seed(h, 1)
	h.f.FailNext(3, http.StatusBadGateway)
	got, err := call()
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Len(t, h.slept(), 3, "three failures, three backoff waits")
}

func probeSecondary(t *testing.T, h *rig, pr pullProbe) {
	call, want := pr.seed(h, 1)
	h.f.SecondaryLimitNext(7 * time.Second)
	got, err := call()
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Equal(t, []time.Duration{7 * time.Second}, h.slept())
}

func probeNoLeak(t *testing.T, target Target, pr pullProbe) {
	wrong := setup(t, target, withToken("wrong-token-value-123"))
	wrong.f.EchoCredentials(true)
	call, _ := pr.seed(wrong, 1)
	_, err := call()
	wrong.noSecret(t, err)

	h := setup(t, target, withRetries(1))
	h.f.EchoCredentials(true)
	err = pr.missing(h)
	h.noSecret(t, err)
	assert.Contains(t, err.Error(), "[REDACTED]", "the echoed credential is redacted, not dropped silently")
	call, _ = pr.seed(h, 1)
	h.f.FailNext(2, http.StatusBadGateway)
	_, err = call()
	assert.ErrorIs(t, err, integrations.ErrUnavailable)
	h.noSecret(t, err)
}
