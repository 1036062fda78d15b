package mcp

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/runtimetest"
	"github.com/the-loop/the-loop/service"
	"github.com/the-loop/the-loop/store"
)

// signingService is the core over repo holding the key the fixture's
// committed public key verifies: the poller's host.
func signingService(t *testing.T, repo string) *service.Service {
	t.Helper()
	svc := service.New(config.Default(), service.Deps{Store: store.NewHandle(filepath.Join(t.TempDir(), "state.db")), DefaultRepo: repo,
		Signer: runtime.NewEd25519Signer(runtimetest.FixtureKey()), Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(func() { _ = svc.Close() })
	return svc
}

// Over MCP a repository declaration may only add work: one that drops a
// declared repository, or the origin repository when none is declared, is
// refused, and clearing is not an argument at all.
func TestGraphReposOverMCPCannotReduceWork(t *testing.T) {
	repo := copyFixture(t)
	c := loopClient(t, signingService(t, repo))
	item := map[string]any{ArgWorkItem: "issue-3"}
	with := func(repos ...any) map[string]any {
		return map[string]any{ArgWorkItem: "issue-3", argRepositories: repos}
	}

	res := callTool(t, c, "graph_repos", with("acme/infra"))
	assert.True(t, res.IsError, "the origin repository acme/widgets is required while nothing is declared")
	assert.Contains(t, resultText(t, res), "the declaration must keep acme/widgets")
	assert.Contains(t, resultText(t, res), "only an operator's `the-loop graph repos` may remove one")

	res = callTool(t, c, "graph_repos", with("acme/widgets", "acme/infra"))
	require.False(t, res.IsError, resultText(t, res))
	assert.Equal(t, []any{"acme/widgets", "acme/infra"}, structured(t, res)["repositories"])
	assert.Equal(t, "mcp", structured(t, res)["by"])

	res = callTool(t, c, "graph_repos", with("acme/infra"))
	assert.True(t, res.IsError, "dropping a declared repository removes work")
	res = callTool(t, c, "graph_repos", with("acme/widgets", "acme/infra", "acme/docs"))
	require.False(t, res.IsError, resultText(t, res))

	res = callTool(t, c, "graph_repos", map[string]any{ArgWorkItem: "issue-3", "clear": true})
	assert.True(t, res.IsError, "clear is an operator's act, not a tool argument")
	res = callTool(t, c, "graph_repos", item)
	require.False(t, res.IsError, resultText(t, res))
	assert.Equal(t, []any{"acme/widgets", "acme/infra", "acme/docs"}, structured(t, res)["repositories"], "no repositories reads the declaration")
}

// A session's server may open its own item's pull request and add to its
// repositories, never another item's.
func TestConfinedServerOpensPullRequestsForItsItemOnly(t *testing.T) {
	repo := copyFixture(t)
	svc := signingService(t, repo)
	c := inProcess(t, Deps{Backend: svc, DefaultRepo: repo, WorkItem: "issue-3", Operator: "dev"}, AllTools()...)

	res := callTool(t, c, "pr_create", map[string]any{ArgWorkItem: "issue-2"})
	assert.True(t, res.IsError)
	assert.Contains(t, resultText(t, res), "it answers for issue-3 only, never issue-2")
	res = callTool(t, c, "graph_repos", map[string]any{ArgWorkItem: "issue-2", argRepositories: []any{"acme/widgets"}})
	assert.True(t, res.IsError)
	assert.Contains(t, resultText(t, res), "never issue-2")

	res = callTool(t, c, "pr_create", map[string]any{})
	assert.True(t, res.IsError, "no integration is configured here")
	assert.NotContains(t, resultText(t, res), "confined", "its own item is not refused by the confinement")
	res = callTool(t, c, "graph_repos", map[string]any{argRepositories: []any{"acme/widgets", "acme/infra"}})
	require.False(t, res.IsError, resultText(t, res))
}

// A session's server holds no code host integration: its pr_create records
// the ask, once, for the poller to open, and answers so.
func TestConfinedServerAsksThePollerToOpenThePullRequest(t *testing.T) {
	repo := copyFixture(t)
	db := filepath.Join(t.TempDir(), "state.db")
	svc := service.New(config.Default(), service.Deps{Store: store.NewHandle(db), DefaultRepo: repo, DeferEntry: true,
		Signer: runtime.NewEd25519Signer(runtimetest.FixtureKey()), Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(func() { _ = svc.Close() })
	c := inProcess(t, Deps{Backend: svc, DefaultRepo: repo, WorkItem: "issue-3", Operator: "dev"}, AllTools()...)

	for range 2 {
		res := callTool(t, c, "pr_create", map[string]any{})
		require.False(t, res.IsError, resultText(t, res))
		assert.Equal(t, "asked: the loop opens (or adopts) the pull request of issue-3 in acme/widgets from its branch on its next poll cycle (for: code); "+
			"its pdlc-pr-loop starts then, and the next assignment names its number for graph_complete's pr", resultText(t, res))
		assert.Equal(t, true, structured(t, res)["asked"])
	}
	evs, err := svc.Events(context.Background(), service.ItemRequest{Repo: repo, WorkItem: "issue-3"})
	require.NoError(t, err)
	asked := 0
	for _, e := range evs.Events {
		if e.Name == "graph.pull_request_asked" {
			asked++
		}
	}
	assert.Equal(t, 1, asked, "asking twice records one ask")

	res := callTool(t, c, "pr_create", map[string]any{ArgWorkItem: "issue-2"})
	assert.True(t, res.IsError, "never for another item")
}
