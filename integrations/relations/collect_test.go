package relations_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/jira"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/integrations/relations"
	"github.com/the-loop/the-loop/internal/httpx"
)

type world struct {
	gh, jira *providertest.Server
	trackers relations.Trackers
}

func newWorld(t *testing.T, ghToken string) *world {
	t.Helper()
	w := &world{gh: providertest.NewGitHub(t), jira: providertest.NewJira(t, jira.AuthCloud)}
	if ghToken == "" {
		ghToken = w.gh.Token()
	}
	gp, err := github.New(github.Options{BaseURL: w.gh.URL(), Token: ghToken, ClientOptions: httpx.ClientOptions{HTTPClient: &http.Client{Transport: http.DefaultTransport}, MaxRetries: -1}})
	require.NoError(t, err)
	jp, err := jira.New(jira.Options{BaseURL: w.jira.URL(), Auth: jira.AuthCloud, Email: w.jira.Email(), Token: w.jira.Token(), Projects: w.jira.Projects(), ClientOptions: httpx.ClientOptions{HTTPClient: &http.Client{Transport: http.DefaultTransport}}})
	require.NoError(t, err)
	u, err := url.Parse(w.gh.URL())
	require.NoError(t, err)
	w.trackers = relations.Trackers{GitHub: gp, GitHubHost: u.Host, Jira: jp}
	return w
}

func keysOf(res relations.Result) []string {
	var out []string
	for _, it := range res.Items {
		out = append(out, relations.Key(it.Item.Ref))
	}
	return out
}

func (w *world) find(t *testing.T, res relations.Result, ref integrations.Ref) integrations.Relations {
	t.Helper()
	for _, it := range res.Items {
		if relations.Key(it.Item.Ref) == relations.Key(w.trackers.Canon(ref)) {
			return it
		}
	}
	require.Failf(t, "not collected", "%s", ref)
	return integrations.Relations{}
}

func TestCollectAcrossTrackers(t *testing.T) {
	w := newWorld(t, "")
	host := w.trackers.GitHubHost
	epic := w.gh.Ticket()
	schema := w.gh.SeedIssue("Schema", nil, true)
	api := w.gh.SeedIssue("API", nil, true)
	tool := w.gh.SeedIssue("Tool", nil, true)
	w.gh.AddSubIssue(epic, schema)
	w.gh.AddSubIssue(epic, api)
	w.gh.AddBlocker(api, schema)
	ticket := w.jira.SeedIssue("Contract", nil, true)
	require.NoError(t, w.trackers.GitHub.(*github.Provider).EditIssueBody(context.Background(), schema, "Blocked by: jira:"+ticket.Key+", jira:PROJ-99\n"))
	w.jira.AddRemoteLink(ticket, "is blocked by", "http://"+host+"/octo/widgets/issues/4")

	res, err := relations.Collect(context.Background(), w.trackers, []integrations.Ref{epic}, relations.Options{})
	require.NoError(t, err)
	k := func(r integrations.Ref) string { return relations.Key(w.trackers.Canon(r)) }
	assert.Equal(t, []string{k(epic), k(schema), k(api), k(ticket), "jira:PROJ-99", k(tool)}, keysOf(res), "breadth first, across trackers")

	s := w.find(t, res, schema)
	require.Len(t, s.BlockedBy, 2)
	assert.Equal(t, []any{"jira", ticket.Key, "body"}, []any{s.BlockedBy[0].Ref.System, s.BlockedBy[0].Ref.Key, s.BlockedBy[0].Via})
	assert.Equal(t, []string{k(api)}, []string{relations.Key(s.Blocking[0].Ref)}, "native dependencies are kept")
	j := w.find(t, res, ticket)
	require.Len(t, j.BlockedBy, 1)
	assert.Equal(t, k(tool), relations.Key(j.BlockedBy[0].Ref), "the remote link's URL resolves to the canonical GitHub ref")
	assert.Equal(t, "remote-link", j.BlockedBy[0].Via)
	missing := w.find(t, res, integrations.Ref{System: "jira", Key: "PROJ-99"})
	assert.Equal(t, integrations.StateUnknown, missing.Item.State)
	assert.Contains(t, res.Warnings, "jira:PROJ-99 was not found; it counts as unfinished")
}

func TestCollectWithoutTheOtherTracker(t *testing.T) {
	w := newWorld(t, "")
	w.trackers.Jira = nil
	require.NoError(t, w.trackers.GitHub.(*github.Provider).EditIssueBody(context.Background(), w.gh.Ticket(), "Depends on: jira:OPS-4, github:elsewhere.example.com/o/r#1\n"))
	res, err := relations.Collect(context.Background(), w.trackers, []integrations.Ref{w.gh.Ticket()}, relations.Options{})
	require.NoError(t, err)
	require.Len(t, res.Items, 3)
	for _, it := range res.Items[1:] {
		assert.Equal(t, integrations.StateUnknown, it.Item.State, "%s", it.Item.Ref)
	}
	assert.Contains(t, res.Warnings, "jira:OPS-4 is on no configured tracker; it counts as unfinished")
	assert.Contains(t, res.Warnings, "github:elsewhere.example.com/o/r#1 is on no configured tracker; it counts as unfinished")
}

func TestCollectFailsOnUnauthorized(t *testing.T) {
	w := newWorld(t, "wrong-token-value-123")
	_, err := relations.Collect(context.Background(), w.trackers, []integrations.Ref{w.gh.Ticket()}, relations.Options{})
	require.ErrorIs(t, err, integrations.ErrUnauthorized)
	assert.NotContains(t, err.Error(), "wrong-token-value-123")
}

func TestCollectRefusesAPartialGraph(t *testing.T) {
	w := newWorld(t, "")
	for range 3 {
		w.gh.AddSubIssue(w.gh.Ticket(), w.gh.SeedIssue("child", nil, true))
	}
	_, err := relations.Collect(context.Background(), w.trackers, []integrations.Ref{w.gh.Ticket()}, relations.Options{MaxItems: 2})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "more than 2 tickets are reachable")
}

func TestCollectWarnsOnceForAMissingFeature(t *testing.T) {
	w := newWorld(t, "")
	w.gh.DisableRelations()
	require.NoError(t, w.trackers.GitHub.(*github.Provider).EditIssueBody(context.Background(), w.gh.Ticket(), "- [ ] #2\n- [ ] #3\n"))
	w.gh.SeedIssue("two", nil, true)
	w.gh.SeedIssue("three", nil, true)
	res, err := relations.Collect(context.Background(), w.trackers, []integrations.Ref{w.gh.Ticket()}, relations.Options{})
	require.NoError(t, err)
	assert.Len(t, res.Items, 3, "the task list stands in for sub-issues")
	assert.Len(t, res.Warnings, 2, "one warning per missing feature, not per ticket: %v", res.Warnings)
}
