package mcp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providers"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/service"
)

// ticketRig is the real core wired to fake GitHub and Jira servers that
// speak the real REST shapes.
type ticketRig struct {
	gh, jr *providertest.Server
	svc    *service.Service
	vars   map[string]string
}

func newTicketRig(t *testing.T, projects ...string) *ticketRig {
	t.Helper()
	r := &ticketRig{gh: providertest.NewGitHub(t), jr: providertest.NewJira(t, "datacenter")}
	r.vars = map[string]string{"TEST_GH_TOKEN": r.gh.Token(), "TEST_JIRA_TOKEN": r.jr.Token()}
	cfg := config.Default()
	cfg.Integrations.GitHub.BaseURL = r.gh.URL()
	cfg.Integrations.GitHub.TokenEnv = "TEST_GH_TOKEN"
	cfg.Integrations.Jira.BaseURL = r.jr.URL()
	cfg.Integrations.Jira.Auth = "datacenter"
	cfg.Integrations.Jira.TokenEnv = "TEST_JIRA_TOKEN"
	cfg.Integrations.Jira.Projects = projects
	r.svc = newLoopServiceWith(t, t.TempDir(), cfg, func(system string) (integrations.Provider, error) {
		return providers.New(cfg, system, func(k string) string { return r.vars[k] })
	})
	return r
}

func (r *ticketRig) requests() int { return r.gh.RequestCount() + r.jr.RequestCount() }

func TestTicketCreateToolGitHub(t *testing.T) {
	r := newTicketRig(t, "PROJ")
	c := loopClient(t, r.svc)
	res := callTool(t, c, "ticket_create", map[string]any{
		"system": "github", "repo": "octo/widgets", "title": "Broken", "body": "It broke", "labels": []any{"bug", "triage", "bug"},
	})
	require.False(t, res.IsError, resultText(t, res))
	got := structured(t, res)
	assert.Equal(t, "github", got["system"])
	assert.Equal(t, "octo/widgets#2", got["key"])
	assert.EqualValues(t, 2, got["number"])
	assert.True(t, strings.HasSuffix(got["url"].(string), "/octo/widgets/issues/2"), got["url"])
	assert.Equal(t, "created octo/widgets#2 "+got["url"].(string), resultText(t, res))

	stored, ok := r.gh.Issue(integrations.Ref{Owner: "octo", Repo: "widgets", Number: 2})
	require.True(t, ok)
	assert.Equal(t, "Broken", stored.Title)
	assert.Equal(t, "It broke", stored.Body)
	assert.Equal(t, []string{"bug", "triage"}, stored.Labels, "labels are de-duplicated")
}

func TestTicketCreateToolJira(t *testing.T) {
	r := newTicketRig(t, "PROJ", "OPS")
	c := loopClient(t, r.svc)
	res := callTool(t, c, "ticket_create", map[string]any{
		"system": "jira", "project": "PROJ", "title": "Story", "body": "", "issueType": "Story", "parent": "PROJ-1", "labels": []any{"team-a"},
	})
	require.False(t, res.IsError, resultText(t, res))
	got := structured(t, res)
	assert.Equal(t, map[string]any{"system": "jira", "key": "PROJ-2", "number": float64(0), "url": r.jr.URL() + "browse/PROJ-2"}, got)
	stored, ok := r.jr.Issue(integrations.Ref{System: "jira", Key: "PROJ-2"})
	require.True(t, ok)
	assert.Equal(t, "PROJ-1", stored.Parent)
	assert.Equal(t, "Story", stored.IssueType)
	assert.Contains(t, stored.Labels, "team-a")
}

func TestTicketCreateToolJiraMirror(t *testing.T) {
	r := newTicketRig(t, "PROJ")
	c := loopClient(t, r.svc)
	ghURL := "https://github.com/octo/widgets/issues/1"
	res := callTool(t, c, "ticket_create", map[string]any{"system": "jira", "project": "PROJ", "title": "Mirror", "body": "Context", "mirrorOf": ghURL})
	require.False(t, res.IsError, resultText(t, res))
	key := structured(t, res)["key"].(string)
	stored, _ := r.jr.Issue(integrations.Ref{System: "jira", Key: key})
	assert.Contains(t, stored.Labels, integrations.MirrorLabel)
	assert.True(t, strings.HasPrefix(stored.Body, ghURL))
	ghIssue, _ := r.gh.Issue(integrations.Ref{Owner: "octo", Repo: "widgets", Number: 1})
	assert.Contains(t, ghIssue.Body, key, "the GitHub issue names its mirror")
}

func TestTicketCreateToolRefusals(t *testing.T) {
	tests := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"unconfigured jira project", map[string]any{"system": "jira", "project": "OPS", "title": "T", "body": "b"},
			[]string{`argument "project"`, "integrations.jira.projects", "configured: PROJ", "nothing was created"}},
		{"github with a jira project", map[string]any{"system": "github", "repo": "o/r", "project": "PROJ", "title": "T", "body": "b"},
			[]string{`argument "project"`, "applies only to system jira"}},
		{"github without a repo", map[string]any{"system": "github", "title": "T", "body": "b"},
			[]string{`argument "repo"`, "required with system github"}},
		{"jira with a repo", map[string]any{"system": "jira", "repo": "o/r", "title": "T", "body": "b"},
			[]string{`argument "repo"`, "takes project KEY"}},
		{"parent with a path", map[string]any{"system": "jira", "project": "PROJ", "title": "T", "body": "b", "parent": "PROJ-1/../x"},
			[]string{`argument "parent"`}},
		{"bad issue type", map[string]any{"system": "jira", "project": "PROJ", "title": "T", "body": "b", "issueType": "not a type!"},
			[]string{`argument "issueType"`}},
		{"mirror on github", map[string]any{"system": "github", "repo": "o/r", "title": "T", "body": "b", "mirrorOf": "https://github.com/o/r/issues/1"},
			[]string{`argument "mirrorOf"`, "use it with system jira"}},
		{"blank title", map[string]any{"system": "github", "repo": "o/r", "title": "  ", "body": "b"},
			[]string{`argument "title" is empty`}},
		{"unknown system", map[string]any{"system": "gitlab", "repo": "o/r", "title": "T", "body": "b"},
			[]string{`argument "system" must be one of github, jira`}},
		{"missing body", map[string]any{"system": "github", "repo": "o/r", "title": "T"},
			[]string{`missing required argument "body"`}},
		{"labels not a list", map[string]any{"system": "github", "repo": "o/r", "title": "T", "body": "b", "labels": "bug"},
			[]string{`argument "labels" must be a list`}},
		{"label not a string", map[string]any{"system": "github", "repo": "o/r", "title": "T", "body": "b", "labels": []any{"bug", 3}},
			[]string{`argument "labels[1]" must be a string`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTicketRig(t, "PROJ")
			c := loopClient(t, r.svc)
			res := callTool(t, c, "ticket_create", tt.args)
			require.True(t, res.IsError)
			text := resultText(t, res)
			for _, w := range tt.want {
				assert.Contains(t, text, w)
			}
			assert.NotContains(t, text, "--", "the message names tool arguments, not CLI flags")
			assert.Zero(t, r.requests(), "refused before any request")
		})
	}
}

func TestTicketCreateToolIntegrationFailures(t *testing.T) {
	t.Run("no integration wired", func(t *testing.T) {
		svc := newLoopService(t, t.TempDir())
		c := loopClient(t, svc)
		res := callTool(t, c, "ticket_create", map[string]any{"system": "github", "repo": "o/r", "title": "T", "body": "b"})
		require.True(t, res.IsError)
		assert.Contains(t, resultText(t, res), "no ticket integration is configured")
	})
	t.Run("missing token names the variable", func(t *testing.T) {
		r := newTicketRig(t, "PROJ")
		delete(r.vars, "TEST_GH_TOKEN")
		c := loopClient(t, r.svc)
		res := callTool(t, c, "ticket_create", map[string]any{"system": "github", "repo": "o/r", "title": "T", "body": "b"})
		require.True(t, res.IsError)
		assert.Contains(t, resultText(t, res), "TEST_GH_TOKEN")
		assert.NotContains(t, resultText(t, res), r.jr.Token())
	})
	t.Run("a rejected token is not echoed", func(t *testing.T) {
		r := newTicketRig(t, "PROJ")
		r.vars["TEST_JIRA_TOKEN"] = "wrong-token-value-456"
		r.jr.EchoCredentials(true)
		c := loopClient(t, r.svc)
		res := callTool(t, c, "ticket_create", map[string]any{"system": "jira", "project": "PROJ", "title": "T", "body": "b"})
		require.True(t, res.IsError)
		assert.Contains(t, resultText(t, res), "unauthorized")
		assert.NotContains(t, resultText(t, res), "wrong-token-value-456")
	})
}

func TestTicketProjectsTool(t *testing.T) {
	r := newTicketRig(t, "PROJ", "OPS")
	c := loopClient(t, r.svc)
	res := callTool(t, c, "ticket_projects", map[string]any{})
	require.False(t, res.IsError)
	assert.Equal(t, map[string]any{"projects": []any{"PROJ", "OPS"}}, structured(t, res))
	assert.Equal(t, "configured Jira projects: PROJ, OPS", resultText(t, res))
	assert.Zero(t, r.requests(), "listing the projects sends no request")

	empty := newTicketRig(t)
	c = loopClient(t, empty.svc)
	res = callTool(t, c, "ticket_projects", nil)
	require.False(t, res.IsError)
	assert.Equal(t, map[string]any{"projects": []any{}}, structured(t, res))
	assert.Contains(t, resultText(t, res), "integrations.jira.projects")

	res = callTool(t, c, "ticket_projects", map[string]any{"system": "jira"})
	require.True(t, res.IsError)
	assert.Contains(t, resultText(t, res), "this tool takes no arguments")
}
