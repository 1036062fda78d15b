package providertest

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
)

// Env is what the suite hands a provider factory.
type Env struct {
	// Sleep must replace the provider's waiting between retries.
	Sleep func(time.Duration)
	// Logger must receive the provider's log lines.
	Logger *slog.Logger
	// Token is the credential to configure (the fake's, or a wrong one).
	Token string
	// MaxRetries is the retry bound to configure (0: the provider default).
	MaxRetries int
	// batched runs the relations cases through the batched read (the
	// harness's, not the factory's).
	batched bool
}

// Target is one provider under contract.
type Target struct {
	// NewFake starts a fresh fake for one case.
	NewFake func(t *testing.T) *Server
	// New builds the provider against the fake's URL with env applied.
	New func(t *testing.T, f *Server, env Env) integrations.Provider
}

// rig is one case's fake, provider and captured side channels.
type rig struct {
	target *Target
	f      *Server
	p      integrations.Provider
	token  string
	mu     sync.Mutex
	sleeps []time.Duration
	logs   *bytes.Buffer
	ctx    context.Context
	// batched: reader reads through ReadRelationsBatch.
	batched bool
}

func (h *rig) slept() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.sleeps)
}

type option func(*Env)

func withToken(tok string) option    { return func(e *Env) { e.Token = tok } }
func withRetries(n int) option       { return func(e *Env) { e.MaxRetries = n } }
func batched(e *Env)                 { e.batched = true }
func (h *rig) ref() integrations.Ref { return h.f.Ticket() }

func setup(t *testing.T, target Target, opts ...option) *rig {
	t.Helper()
	f := target.NewFake(t)
	h := &rig{target: &target, f: f, logs: &bytes.Buffer{}, ctx: context.Background()}
	env := Env{
		Sleep: func(d time.Duration) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.sleeps = append(h.sleeps, d)
		},
		Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: h.logs, mu: &h.mu}, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Token:  f.Token(),
	}
	for _, o := range opts {
		o(&env)
	}
	h.token, h.batched = env.Token, env.batched
	h.p = target.New(t, f, env)
	require.NotNil(t, h.p, "the factory returned no provider")
	t.Cleanup(func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		assert.NotContains(t, h.logs.String(), f.Token(), "a log line carries the token")
		assert.NotContains(t, h.logs.String(), h.token, "a log line carries the token")
	})
	return h
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// noSecret asserts err's text carries no credential of the fake.
func (h *rig) noSecret(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	assert.NotContains(t, err.Error(), h.f.Token())
	assert.NotContains(t, err.Error(), h.token)
	assert.NotContains(t, err.Error(), basicOf(h.f.Email(), h.f.Token()))
}

// Run executes the whole contract against target. Every operation the
// provider declares must have a passing case here; every operation it does
// not declare must answer ErrUnsupported without a request.
func Run(t *testing.T, target Target) {
	t.Run("operations are known and undeclared ones are unsupported", func(t *testing.T) { testOperations(t, target) })
	t.Run("happy paths", func(t *testing.T) {
		h := setup(t, target)
		for _, op := range h.p.Operations() {
			tc, ok := opCases[op]
			if !assert.True(t, ok, "the contract has no case for declared operation %s", op) {
				continue
			}
			t.Run(string(op), func(t *testing.T) { tc(t, setup(t, target)) })
		}
	})
	t.Run("self marker on every posted comment", func(t *testing.T) { testSelfMarker(t, setup(t, target)) })
	t.Run("pagination across three pages", func(t *testing.T) { testPagination(t, setup(t, target)) })
	t.Run("404 is ErrNotFound", func(t *testing.T) { testNotFound(t, setup(t, target)) })
	t.Run("401 is ErrUnauthorized", func(t *testing.T) { testUnauthorized(t, setup(t, target, withToken("wrong-token-value-123"))) })
	t.Run("validation error is ErrInvalid with the field", func(t *testing.T) { testValidation(t, setup(t, target)) })
	t.Run("5xx storm then success", func(t *testing.T) { testStorm(t, setup(t, target)) })
	t.Run("5xx storm past the retries is ErrUnavailable", func(t *testing.T) { testStormExhausted(t, setup(t, target, withRetries(2))) })
	t.Run("a truncated answer is ErrMalformed, never unavailable", func(t *testing.T) { testMalformed(t, setup(t, target)) })
	t.Run("secondary rate limit honours Retry-After", func(t *testing.T) { testSecondaryLimit(t, setup(t, target)) })
	t.Run("primary rate limit waits for the reset", func(t *testing.T) { testPrimaryLimit(t, setup(t, target)) })
	t.Run("rate limit beyond the wait cap is ErrRateLimited", func(t *testing.T) { testLimitBeyondCap(t, setup(t, target)) })
	t.Run("304 on a conditional listing", func(t *testing.T) { testConditional(t, setup(t, target)) })
	t.Run("credentials never reach errors or logs", func(t *testing.T) { testNoCredentialLeak(t, target) })
	t.Run("foreign refs are refused before any request", func(t *testing.T) { testForeignRef(t, setup(t, target)) })
	t.Run("relations", func(t *testing.T) { testRelations(t, target) })
	t.Run("upsert keeps one marked comment", func(t *testing.T) { testUpsertComment(t, setup(t, target)) })
	t.Run("pull-request operations", func(t *testing.T) { runPullFailures(t, target) })
}

var knownOps = []integrations.Op{
	integrations.OpGetIssue, integrations.OpCreateIssue, integrations.OpEditIssue,
	integrations.OpListComments, integrations.OpCreateComment, integrations.OpEditComment,
	integrations.OpAddLabels, integrations.OpRemoveLabel, integrations.OpEnsureLabels,
	integrations.OpAddReaction, integrations.OpCreateBranch, integrations.OpCreatePullRequest,
	integrations.OpGetPullRequest, integrations.OpReadFile, integrations.OpListProjects,
	integrations.OpLinkPullRequest, integrations.OpListOpenIssues, integrations.OpReadRelations,
	integrations.OpOpenPullRequest, integrations.OpListPullRequests, integrations.OpListPullRequestFiles,
	integrations.OpListReviews, integrations.OpListReviewComments, integrations.OpReadChecks,
	integrations.OpListReviewThreads, integrations.OpLinkTicket, integrations.OpReadCheckDetails,
}

// interfaceCalls invokes each Provider method with harmless arguments, so an
// undeclared operation can be checked for ErrUnsupported.
var interfaceCalls = map[integrations.Op]func(h *rig) error{
	integrations.OpGetIssue: func(h *rig) error { _, err := h.p.GetIssue(h.ctx, h.ref()); return err },
	integrations.OpCreateIssue: func(h *rig) error {
		_, err := h.p.CreateIssue(h.ctx, h.f.NewIssue("x"))
		return err
	},
	integrations.OpEditIssue:    func(h *rig) error { return h.p.EditIssueBody(h.ctx, h.ref(), "x") },
	integrations.OpListComments: func(h *rig) error { _, err := h.p.ListComments(h.ctx, h.ref()); return err },
	integrations.OpCreateComment: func(h *rig) error {
		_, err := h.p.CreateComment(h.ctx, h.ref(), "x")
		return err
	},
	integrations.OpEditComment: func(h *rig) error {
		_, err := h.p.EditComment(h.ctx, h.ref(), 1, "x")
		return err
	},
	integrations.OpAddLabels:   func(h *rig) error { return h.p.AddLabels(h.ctx, h.ref(), []string{"x"}) },
	integrations.OpRemoveLabel: func(h *rig) error { return h.p.RemoveLabel(h.ctx, h.ref(), "x") },
	integrations.OpAddReaction: func(h *rig) error { return h.p.AddReaction(h.ctx, h.ref(), 1, "eyes") },
	integrations.OpCreateBranch: func(h *rig) error {
		return h.p.CreateBranch(h.ctx, "octo", "widgets", "b", GitHubMainSHA)
	},
	integrations.OpCreatePullRequest: func(h *rig) error {
		_, err := h.p.CreatePullRequest(h.ctx, integrations.NewPullRequest{Owner: "octo", Repo: "widgets", Title: "t", Head: "b", Base: "main"})
		return err
	},
	integrations.OpGetPullRequest: func(h *rig) error {
		_, err := h.p.GetPullRequest(h.ctx, "octo", "widgets", 1)
		return err
	},
	integrations.OpReadFile: func(h *rig) error {
		_, err := h.p.ReadFile(h.ctx, "octo", "widgets", "docs/readme.md", "")
		return err
	},
	integrations.OpListProjects: func(h *rig) error { _, err := h.p.ListProjects(h.ctx); return err },
}

func testOperations(t *testing.T, target Target) {
	h := setup(t, target)
	declared := h.p.Operations()
	require.NotEmpty(t, declared)
	for _, op := range declared {
		assert.Contains(t, knownOps, op, "declared operation %s is unknown", op)
		assert.True(t, integrations.Supports(h.p, op))
	}
	for op, call := range interfaceCalls {
		if slices.Contains(declared, op) {
			continue
		}
		before := h.f.RequestCount()
		err := call(h)
		assert.ErrorIs(t, err, integrations.ErrUnsupported, "undeclared %s must be unsupported", op)
		assert.Equal(t, before, h.f.RequestCount(), "undeclared %s sent a request", op)
	}
	testOptionalInterfaces(t, h.p)
}
