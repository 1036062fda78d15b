package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/runtimetest"
)

// signingConfig is a config holding the key the fixture's committed public
// key verifies (the poller's host), plus extra.
func signingConfig(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	key := filepath.Join(dir, "signing.key")
	require.NoError(t, runtime.WritePrivateKey(key, runtimetest.FixtureKey()))
	cfg := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("signing:\n  privateKeyFile: "+key+"\n"+extra), 0o600))
	return cfg
}

// who and when differ between a shell and a tool caller; the rest must not.
var actorFields = regexp.MustCompile(`"(by|at|linkedAt|linkedBy)":\s*"[^"]*"`)

func sameButActor(s string) string { return actorFields.ReplaceAllString(s, `"$1":"-"`) }

func TestCLIAndToolDeclareTheSameRepositories(t *testing.T) {
	cliRepo, toolRepo := copyRepoFixture(t), copyRepoFixture(t)
	cliSide, toolSide := newParity(t, signingConfig(t, ""), nil), newParity(t, signingConfig(t, ""), nil)
	cli := cliSide.cli("graph", "repos", "issue-3", "--repository", "acme/widgets", "--repository", "acme/infra", "--repo", cliRepo, "--format", "json")
	tool := toolSide.tool(toolRepo, "graph_repos", map[string]any{"workItem": "issue-3", "repositories": []any{"acme/widgets", "acme/infra"}})
	assert.JSONEq(t, sameButActor(cli), sameButActor(tool))
	assert.Contains(t, cli, `"repositories": [`)

	// Both read the same declaration from one store.
	read := cliSide.cli("graph", "repos", "issue-3", "--repo", cliRepo, "--format", "json")
	assert.JSONEq(t, read, cliSide.tool(cliRepo, "graph_repos", map[string]any{"workItem": "issue-3"}))
	assert.Contains(t, read, `"declared": true`)
}

// prFixture is a copy of the fixture whose repository config names
// octo/widgets, with issue-1 started on the fake's seeded ticket and the
// item's branch pushed.
func prFixture(t *testing.T) (string, *parity, *providertest.Server) {
	t.Helper()
	gh := providertest.NewGitHub(t)
	repo := copyRepoFixture(t)
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".the-loop"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".the-loop", "harness-config.yaml"), []byte("ticketing:\n  github:\n    owner: octo\n    repo: widgets\n"), 0o644))
	cfg := signingConfig(t, fmt.Sprintf("integrations:\n  github:\n    baseUrl: %s\n    tokenEnv: TEST_GH_TOKEN\nrouting:\n  selfLogins: [%s]\n", gh.URL(), gh.BotLogin()))
	p := newParity(t, cfg, map[string]string{"TEST_GH_TOKEN": gh.Token()})
	p.cli("graph", "start", "issue-1", "--repo", repo)
	gh.SeedBranch(providertest.GitHubRepo, "the-loop/issue-1-seeded-ticket", strings.Repeat("a", 40))
	return repo, p, gh
}

func TestCLIAndToolOpenTheSamePullRequest(t *testing.T) {
	cliRepo, cliSide, cliGH := prFixture(t)
	toolRepo, toolSide, _ := prFixture(t)
	cli := cliSide.cli("pr", "create", "--work-item", "issue-1", "--repo", cliRepo, "--format", "json")
	tool := toolSide.tool(toolRepo, "pr_create", map[string]any{"workItem": "issue-1"})
	host := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	norm := func(s string) string { return host.ReplaceAllString(sameButActor(s), "HOST") }
	assert.JSONEq(t, norm(cli), norm(tool))
	assert.Contains(t, cli, `"innerLoop": "pr-loops/pr-2"`)
	body, ok := cliGH.PullBody(providertest.GitHubRepo, 2)
	require.True(t, ok)
	assert.Contains(t, body, "Closes #1")
}
