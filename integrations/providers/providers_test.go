package providers

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/integrations/slack"
)

func TestNewBuildsTheConfiguredProvider(t *testing.T) {
	gh := providertest.NewGitHub(t)
	jr := providertest.NewJira(t, "datacenter")
	cfg := config.Default()
	cfg.Integrations.GitHub.BaseURL = gh.URL()
	cfg.Integrations.Jira = config.Jira{BaseURL: jr.URL(), Auth: "datacenter", TokenEnv: "JT", Projects: []string{"PROJ"}}
	vars := map[string]string{"GITHUB_TOKEN": gh.Token(), "JT": jr.Token()}
	getenv := func(k string) string { return vars[k] }

	p, err := New(cfg, "github", getenv)
	require.NoError(t, err)
	assert.Equal(t, "github", p.Name())
	is, err := p.GetIssue(context.Background(), gh.Ticket())
	require.NoError(t, err)
	assert.Equal(t, "Seeded ticket", is.Title)

	p, err = New(cfg, "jira", getenv)
	require.NoError(t, err)
	assert.Equal(t, "jira", p.Name())
	is, err = p.GetIssue(context.Background(), jr.Ticket())
	require.NoError(t, err)
	assert.Equal(t, "Seeded ticket", is.Title)

	_, err = New(cfg, "gitlab", getenv)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "github, jira")

	p, err = New(cfg, "github", func(string) string { return "" })
	require.Error(t, err)
	assert.Nil(t, p, "a failed build returns a nil interface, not a typed nil")
	assert.Contains(t, err.Error(), "GITHUB_TOKEN")
}

type fakeProvider struct {
	integrations.Provider
	ops []integrations.Op
}

func (f fakeProvider) Name() string                  { return "jira" }
func (f fakeProvider) Operations() []integrations.Op { return f.ops }

func TestCheckOperations(t *testing.T) {
	p := fakeProvider{ops: []integrations.Op{integrations.OpListComments, integrations.OpCreateComment}}
	assert.NoError(t, CheckOperations(p, map[integrations.Op]string{integrations.OpListComments: "hook classify-feedback on node design-approval"}))
	assert.NoError(t, CheckOperations(p, nil))

	err := CheckOperations(p, map[integrations.Op]string{
		integrations.OpListComments: "hook classify-feedback on node design-approval",
		integrations.OpAddReaction:  "hook react on node start",
		integrations.OpRemoveLabel:  "hook set-phase-label on node design",
	})
	var missing *integrations.MissingOperationError
	require.True(t, errors.As(err, &missing))
	assert.Equal(t, integrations.OpAddReaction, missing.Op, "the first missing op in name order")
	assert.Equal(t, "jira", missing.Provider)
	assert.Equal(t, "hook react on node start", missing.Needer)
	for _, want := range []string{"add-reaction", "jira", "hook react on node start", "configure a provider", "remove the need"} {
		assert.Contains(t, err.Error(), want)
	}

	err = CheckOperations(nil, map[integrations.Op]string{integrations.OpGetIssue: "hook x"})
	require.True(t, errors.As(err, &missing))
	assert.Equal(t, "none", missing.Provider)
}

func TestParseRef(t *testing.T) {
	tests := []struct {
		in   string
		want integrations.Ref
	}{
		{"github:octo/widgets#3", integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 3}},
		{"octo/widgets#3", integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 3}},
		{"https://github.com/octo/widgets/issues/3", integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 3}},
		{"jira:PROJ-4", integrations.Ref{System: "jira", Key: "PROJ-4"}},
		{"PROJ-4", integrations.Ref{System: "jira", Key: "PROJ-4"}},
		{"https://example.atlassian.net/browse/PROJ-4", integrations.Ref{System: "jira", Key: "PROJ-4"}},
	}
	for _, tc := range tests {
		got, err := ParseRef(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	for _, bad := range []string{"", "nonsense", "jira:proj-1", "github:octo#1", "gitlab:o/r#1"} {
		_, err := ParseRef(bad)
		assert.Error(t, err, bad)
	}
}

func TestNewNotifier(t *testing.T) {
	cfg := config.Default()
	n, err := NewNotifier(cfg, func(string) string { return "" }, slack.Options{})
	require.NoError(t, err)
	assert.Nil(t, n, "no webhook means no notifier")

	n, err = NewNotifier(cfg, func(k string) string {
		if k == "SLACK_WEBHOOK_URL" {
			return "https://hooks.slack.com/services/T/B/X"
		}
		return ""
	}, slack.Options{})
	require.NoError(t, err)
	assert.NotNil(t, n)

	_, err = NewNotifier(cfg, func(k string) string { return "ftp://bad/SECRET" }, slack.Options{})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "SECRET")
}
