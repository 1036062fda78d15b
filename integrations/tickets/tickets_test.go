package tickets_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/jira"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/integrations/tickets"
	"github.com/the-loop/the-loop/internal/httpx"
)

type fixture struct {
	cfg    *config.Config
	gh     *providertest.Server
	jr     *providertest.Server
	ghProv *github.Provider
	jrProv *jira.Provider
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{gh: providertest.NewGitHub(t), jr: providertest.NewJira(t, "cloud")}
	f.cfg = config.Default()
	f.cfg.Integrations.Jira.Projects = []string{"PROJ"}
	var err error
	f.ghProv, err = github.New(github.Options{BaseURL: f.gh.URL(), Token: f.gh.Token(), ClientOptions: httpx.ClientOptions{HTTPClient: &http.Client{Transport: http.DefaultTransport}, MaxRetries: -1}})
	require.NoError(t, err)
	f.jrProv, err = jira.New(jira.Options{BaseURL: f.jr.URL(), Auth: "cloud", Email: f.jr.Email(), Token: f.jr.Token(), Projects: []string{"PROJ"}, ClientOptions: httpx.ClientOptions{HTTPClient: &http.Client{Transport: http.DefaultTransport}, MaxRetries: -1}})
	require.NoError(t, err)
	return f
}

func TestCreateGitHubIssue(t *testing.T) {
	f := newFixture(t)
	got, err := tickets.Create(context.Background(), f.cfg, f.ghProv, tickets.CreateOptions{
		System: "github", Repo: "octo/widgets", Title: " New bug ", Body: "Steps", Labels: []string{"bug", " bug", "triage"},
	})
	require.NoError(t, err)
	assert.Equal(t, tickets.Created{System: "github", Key: "octo/widgets#2", Number: 2, URL: f.gh.URL()[:len(f.gh.URL())-len("/api/v3/")] + "/octo/widgets/issues/2"}, got)
	stored, ok := f.gh.Issue(integrations.Ref{Owner: "octo", Repo: "widgets", Number: 2})
	require.True(t, ok)
	assert.Equal(t, "New bug", stored.Title)
	assert.Equal(t, []string{"bug", "triage"}, stored.Labels)
}

func TestCreateJiraStoryUnderEpic(t *testing.T) {
	f := newFixture(t)
	got, err := tickets.Create(context.Background(), f.cfg, f.jrProv, tickets.CreateOptions{
		System: "jira", Project: "PROJ", Title: "Story", Body: "Details", IssueType: "Story", Parent: "PROJ-1", Labels: []string{"team-a"},
	})
	require.NoError(t, err)
	assert.Equal(t, tickets.Created{System: "jira", Key: "PROJ-2", URL: f.jr.URL() + "browse/PROJ-2"}, got)
	stored, _ := f.jr.Issue(integrations.Ref{System: "jira", Key: "PROJ-2"})
	assert.Equal(t, "PROJ-1", stored.Parent)
	assert.Equal(t, "Story", stored.IssueType)
	assert.Equal(t, []string{"team-a"}, stored.Labels)
}

func TestRefusalsHappenBeforeAnyRequest(t *testing.T) {
	tests := []struct {
		name string
		opts tickets.CreateOptions
		flag string
		want string
	}{
		{name: "no system", opts: tickets.CreateOptions{Title: "x"}, flag: "--system", want: "github or jira"},
		{name: "unknown system", opts: tickets.CreateOptions{System: "gitlab", Title: "x"}, flag: "--system", want: "gitlab"},
		{name: "no title", opts: tickets.CreateOptions{System: "jira", Project: "PROJ", Title: "  "}, flag: "--title", want: "empty"},
		{name: "unconfigured jira project", opts: tickets.CreateOptions{System: "jira", Project: "OPS", Title: "x"}, flag: "--project", want: "integrations.jira.projects (configured: PROJ)"},
		{name: "malformed project", opts: tickets.CreateOptions{System: "jira", Project: "proj", Title: "x"}, flag: "--project", want: "not valid"},
		{name: "parent with a path", opts: tickets.CreateOptions{System: "jira", Project: "PROJ", Title: "x", Parent: "PROJ-1/../../rest/api/2/myself"}, flag: "--parent", want: "PROJECT-NUMBER"},
		{name: "parent with spaces", opts: tickets.CreateOptions{System: "jira", Project: "PROJ", Title: "x", Parent: "PROJ 1"}, flag: "--parent", want: "PROJECT-NUMBER"},
		{name: "jira with a repo", opts: tickets.CreateOptions{System: "jira", Project: "PROJ", Repo: "o/r", Title: "x"}, flag: "--repo", want: "github"},
		{name: "jira label with a space", opts: tickets.CreateOptions{System: "jira", Project: "PROJ", Title: "x", Labels: []string{"needs review"}}, flag: "--labels", want: "whitespace"},
		{name: "mirror of a non-GitHub URL", opts: tickets.CreateOptions{System: "jira", Project: "PROJ", Title: "x", MirrorOf: "https://example.com/page"}, flag: "--mirror-of", want: "GitHub issue URL"},
		{name: "github without repo", opts: tickets.CreateOptions{System: "github", Title: "x"}, flag: "--repo", want: "required"},
		{name: "github bad repo", opts: tickets.CreateOptions{System: "github", Repo: "octo/../x", Title: "x"}, flag: "--repo", want: "OWNER/REPO"},
		{name: "github with parent", opts: tickets.CreateOptions{System: "github", Repo: "octo/widgets", Title: "x", Parent: "PROJ-1"}, flag: "--parent", want: "only to --system jira"},
		{name: "github mirror", opts: tickets.CreateOptions{System: "github", Repo: "octo/widgets", Title: "x", MirrorOf: "https://github.com/o/r/issues/1"}, flag: "--mirror-of", want: "--system jira"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			var p integrations.Provider = f.jrProv
			if tc.opts.System == "github" {
				p = f.ghProv
			}
			_, err := tickets.Create(context.Background(), f.cfg, p, tc.opts)
			require.Error(t, err)
			var oe *tickets.OptionError
			require.True(t, errors.As(err, &oe), "%v", err)
			assert.Equal(t, tc.flag, oe.Flag)
			assert.Contains(t, err.Error(), tc.want)
			assert.ErrorIs(t, err, integrations.ErrInvalid)
			assert.Zero(t, f.gh.RequestCount()+f.jr.RequestCount(), "no request before validation passes")
		})
	}
}

func TestProviderMustMatchTheSystem(t *testing.T) {
	f := newFixture(t)
	_, err := tickets.Create(context.Background(), f.cfg, f.ghProv, tickets.CreateOptions{System: "jira", Project: "PROJ", Title: "x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "provider is github")
	_, err = tickets.Create(context.Background(), f.cfg, nil, tickets.CreateOptions{System: "jira", Project: "PROJ", Title: "x"})
	require.Error(t, err)
	assert.Zero(t, f.gh.RequestCount()+f.jr.RequestCount())
}

func TestJiraMirrorOfAGitHubIssue(t *testing.T) {
	f := newFixture(t)
	ghURL := "https://github.com/octo/widgets/issues/1"
	opts := tickets.CreateOptions{System: "jira", Project: "PROJ", Title: "Mirror", Body: "Context here.", MirrorOf: ghURL, MirrorTracker: f.ghProv}
	got, err := tickets.Create(context.Background(), f.cfg, f.jrProv, opts)
	require.NoError(t, err)
	stored, _ := f.jr.Issue(integrations.Ref{System: "jira", Key: got.Key})
	assert.Contains(t, stored.Labels, integrations.MirrorLabel)
	assert.True(t, strings.HasPrefix(stored.Body, ghURL+"\n\n"), "the description opens with the GitHub URL: %q", stored.Body)
	assert.Contains(t, stored.Body, "Context here.")
	ghIssue, _ := f.gh.Issue(integrations.Ref{Owner: "octo", Repo: "widgets", Number: 1})
	assert.Equal(t, "Seeded body\n\nJira: ["+got.Key+"]("+got.URL+")\n", ghIssue.Body)

	before := f.gh.RequestCount()
	require.NoError(t, tickets.ExportNameMirror(context.Background(), f.ghProv, integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 1}, got))
	assert.Equal(t, before+1, f.gh.RequestCount(), "a body that already names the key is only read, not edited")
}

func TestJiraMirrorWithoutGitHubProviderStillLabels(t *testing.T) {
	f := newFixture(t)
	got, err := tickets.Create(context.Background(), f.cfg, f.jrProv, tickets.CreateOptions{System: "jira", Project: "PROJ", Title: "Mirror", MirrorOf: "octo/widgets#1"})
	require.NoError(t, err)
	stored, _ := f.jr.Issue(integrations.Ref{System: "jira", Key: got.Key})
	assert.Equal(t, "https://github.com/octo/widgets/issues/1", stored.Body)
	assert.Equal(t, []string{integrations.MirrorLabel}, stored.Labels)
	assert.Zero(t, f.gh.RequestCount())
}

func TestMirrorLinkFailureKeepsTheCreatedTicket(t *testing.T) {
	f := newFixture(t)
	got, err := tickets.Create(context.Background(), f.cfg, f.jrProv, tickets.CreateOptions{
		System: "jira", Project: "PROJ", Title: "Mirror", MirrorOf: "https://github.com/octo/widgets/issues/999", MirrorTracker: f.ghProv,
	})
	var mle *tickets.MirrorLinkError
	require.True(t, errors.As(err, &mle), "%v", err)
	assert.Equal(t, "PROJ-2", got.Key)
	assert.Equal(t, got, mle.Created)
	assert.ErrorIs(t, err, integrations.ErrNotFound)
	_, ok := f.jr.Issue(integrations.Ref{System: "jira", Key: "PROJ-2"})
	assert.True(t, ok)
}

func TestProjects(t *testing.T) {
	cfg := config.Default()
	assert.Empty(t, tickets.Projects(cfg))
	cfg.Integrations.Jira.Projects = []string{"PROJ", "OPS"}
	got := tickets.Projects(cfg)
	assert.Equal(t, []string{"PROJ", "OPS"}, got)
	got[0] = "MUTATED"
	assert.Equal(t, "PROJ", cfg.Integrations.Jira.Projects[0], "a copy is returned")
	assert.Nil(t, tickets.Projects(nil))
}
