package service

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/jira"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/internal/httpx"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/store"
)

// A Jira work item's code lands through the same pull request flow: the
// pull request is opened in the repository the checkout tracks, linked
// from the ticket by a remote link and one marked comment, and its body
// closes nothing on GitHub.
func TestAJiraItemsPullRequestIsLinkedFromTheTicket(t *testing.T) {
	gh, jr := providertest.NewGitHub(t), providertest.NewJira(t, "datacenter")
	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, repoconfig.Path), "ticketing:\n  system: jira\n  jira:\n    project: PROJ\n  github:\n    owner: octo\n    repo: widgets\n")
	ghp, err := github.New(github.Options{BaseURL: gh.URL(), Token: gh.Token()})
	require.NoError(t, err)
	jp, err := jira.New(jira.Options{BaseURL: jr.URL(), Auth: jira.AuthDataCenter, Token: jr.Token(), ClientOptions: httpx.ClientOptions{HTTPClient: &http.Client{Transport: http.DefaultTransport}}})
	require.NoError(t, err)
	cfg := config.Default()
	cfg.Routing.AuthorizedUsers = []string{"alice"}
	cfg.Routing.SelfLogins = []string{gh.BotLogin(), jr.BotLogin()}
	svc := testService(t, cfg, Deps{Signer: runtime.NewSigner([]byte("k")), Store: store.NewHandle(filepath.Join(t.TempDir(), "state.db")),
		Providers: func(system string) (integrations.Provider, error) {
			if system == "jira" {
				return jp, nil
			}
			return ghp, nil
		}, Clock: time.Now})
	ctx := context.Background()
	item := ItemRequest{Repo: repo, WorkItem: "PROJ-1"}
	_, err = svc.Start(ctx, StartRequest{ItemRequest: item, Ref: "jira:PROJ-1"})
	require.NoError(t, err)

	gh.SeedBranch(providertest.GitHubRepo, "the-loop/PROJ-1-seeded-ticket", strings.Repeat("a", 40))
	res, err := svc.PRCreate(ctx, PRCreateRequest{ItemRequest: item, Actor: "mcp"})
	require.NoError(t, err)
	assert.Empty(t, res.Warnings)
	assert.Equal(t, "the-loop/PROJ-1-seeded-ticket", res.PullRequest.Head, "the branch is named from the Jira ticket's title")
	assert.Equal(t, "pr-loops/pr-2", res.PullRequest.InnerLoop)
	body, _ := gh.PullBody(providertest.GitHubRepo, 2)
	assert.NotContains(t, body, "Closes", "a GitHub keyword cannot close a Jira ticket")
	links := jr.RemoteLinks("PROJ-1")
	require.Len(t, links, 1)
	assert.Equal(t, res.PullRequest.URL, links[0].URL)
	assert.Len(t, filterMarker(jr.Comments(integrations.Ref{System: "jira", Key: "PROJ-1"}), "<!-- the-loop:pr-link:octo__widgets-2 -->"), 1)

	_, err = svc.PRCreate(ctx, PRCreateRequest{ItemRequest: item, Actor: "mcp"})
	require.NoError(t, err)
	assert.Len(t, jr.RemoteLinks("PROJ-1"), 1, "linking again updates the one link")
}
