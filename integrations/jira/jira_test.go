package jira_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/jira"
	"github.com/the-loop/the-loop/integrations/providertest"
)

func TestKeyValidation(t *testing.T) {
	for _, ok := range []string{"PROJ", "AB", "A1", "MY_PROJ"} {
		assert.NoError(t, jira.ValidateProjectKey(ok), ok)
	}
	for _, bad := range []string{"", "P", "proj", "1AB", "PR-OJ", "PROJ ", "PR/OJ", "PRÖJ"} {
		assert.Error(t, jira.ValidateProjectKey(bad), bad)
	}
	for _, ok := range []string{"PROJ-1", "AB-12345", "MY_PROJ-7"} {
		assert.NoError(t, jira.ValidateIssueKey(ok), ok)
	}
	for _, bad := range []string{"", "PROJ", "PROJ-0", "PROJ-01", "proj-1", "PROJ-1/../x", "PROJ-1 ", "PROJ 1", "PROJ-1?x=1", "../PROJ-1", "P-1"} {
		assert.Error(t, jira.ValidateIssueKey(bad), bad)
	}
	assert.Equal(t, "MY_PROJ", jira.ProjectOf("MY_PROJ-7"))
}

func TestParseRef(t *testing.T) {
	for in, want := range map[string]string{
		"jira:PROJ-12": "PROJ-12",
		"PROJ-12":      "PROJ-12",
		"https://example.atlassian.net/browse/PROJ-12": "PROJ-12",
		"https://jira.example.com/jira/browse/OPS-3/":  "OPS-3",
	} {
		ref, err := jira.ParseRef(in)
		require.NoError(t, err, in)
		assert.Equal(t, integrations.Ref{System: "jira", Key: want}, ref)
		assert.Equal(t, "jira:"+want, ref.String())
	}
	for _, bad := range []string{"jira:proj-1", "https://example.atlassian.net/projects/PROJ", "github:o/r#1", "jira:PROJ-1/comment"} {
		_, err := jira.ParseRef(bad)
		assert.Error(t, err, bad)
	}
}

func TestFromConfig(t *testing.T) {
	f := providertest.NewJira(t, "datacenter")
	tests := []struct {
		name    string
		cfg     config.Jira
		vars    map[string]string
		wantErr []string
	}{
		{name: "datacenter personal access token", cfg: config.Jira{BaseURL: f.URL(), Auth: "datacenter", TokenEnv: "JT", Projects: []string{"PROJ"}}, vars: map[string]string{"JT": f.Token()}},
		{name: "no base URL", cfg: config.Jira{Auth: "cloud"}, wantErr: []string{"integrations.jira.baseUrl"}},
		{name: "cloud without email", cfg: config.Jira{BaseURL: f.URL(), Auth: "cloud", EmailEnv: "JE", TokenEnv: "JT"}, vars: map[string]string{"JT": "secret-token-xyz"},
			wantErr: []string{"JE", "integrations.jira.emailEnv", "auth: datacenter"}},
		{name: "cloud without token", cfg: config.Jira{BaseURL: f.URL(), Auth: "cloud", EmailEnv: "JE", TokenEnv: "JT"}, vars: map[string]string{"JE": "me@example.com"},
			wantErr: []string{"JT", "integrations.jira.tokenEnv"}},
		{name: "datacenter without token", cfg: config.Jira{BaseURL: f.URL(), Auth: "datacenter", TokenEnv: "JT"}, wantErr: []string{"JT", "personal access token"}},
		{name: "bad project key", cfg: config.Jira{BaseURL: f.URL(), Auth: "datacenter", TokenEnv: "JT", Projects: []string{"PROJ", "bad key"}}, vars: map[string]string{"JT": "secret-token-xyz"},
			wantErr: []string{"integrations.jira.projects[1]", "bad key"}},
		{name: "unknown auth", cfg: config.Jira{BaseURL: f.URL(), Auth: "oauth"}, wantErr: []string{"cloud, datacenter"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := jira.FromConfig(tc.cfg, func(k string) string { return tc.vars[k] })
			if tc.wantErr != nil {
				require.Error(t, err)
				for _, w := range tc.wantErr {
					assert.Contains(t, err.Error(), w)
				}
				assert.NotContains(t, err.Error(), "secret-token-xyz")
				return
			}
			require.NoError(t, err)
			is, err := p.GetIssue(context.Background(), f.Ticket())
			require.NoError(t, err)
			assert.Equal(t, "Seeded ticket", is.Title)
			projects, err := p.ListProjects(context.Background())
			require.NoError(t, err)
			assert.Equal(t, []string{"PROJ"}, projects)
		})
	}
}

func TestCreateIssueRefusesBeforeAnyRequest(t *testing.T) {
	f := providertest.NewJira(t, "cloud")
	p := newFromFake(t, f, providertest.Env{Token: f.Token()})
	base := f.NewIssue("A story")
	tests := []struct {
		name   string
		mutate func(in *integrations.NewIssue)
		want   string
	}{
		{name: "unconfigured project", mutate: func(in *integrations.NewIssue) { in.Project = "OTHER" }, want: "integrations.jira.projects"},
		{name: "malformed project", mutate: func(in *integrations.NewIssue) { in.Project = "proj" }, want: "--project"},
		{name: "parent with a path", mutate: func(in *integrations.NewIssue) { in.Parent = "PROJ-1/../../rest/api/2/myself" }, want: "--parent"},
		{name: "parent with spaces", mutate: func(in *integrations.NewIssue) { in.Parent = "PROJ 1" }, want: "--parent"},
		{name: "label with whitespace", mutate: func(in *integrations.NewIssue) { in.Labels = []string{"the-loop: auto-execute"} }, want: "whitespace"},
		{name: "odd issue type", mutate: func(in *integrations.NewIssue) { in.IssueType = "Story\"}" }, want: "--issue-type"},
		{name: "empty summary", mutate: func(in *integrations.NewIssue) { in.Title = "  " }, want: "--title"},
		{name: "a GitHub repo", mutate: func(in *integrations.NewIssue) { in.Repo = "o/r" }, want: "GitHub field"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := base
			tc.mutate(&in)
			_, err := p.CreateIssue(context.Background(), in)
			require.ErrorIs(t, err, integrations.ErrInvalid)
			assert.Contains(t, err.Error(), tc.want)
			assert.Zero(t, f.RequestCount(), "refused before any request")
		})
	}
}

func TestCreateIssueDefaultsToTaskAndParentMustExist(t *testing.T) {
	f := providertest.NewJira(t, "datacenter")
	p := newFromFake(t, f, providertest.Env{Token: f.Token()})
	got, err := p.CreateIssue(context.Background(), integrations.NewIssue{Project: "OPS", Title: "Chore"})
	require.NoError(t, err)
	assert.Equal(t, "OPS-1", got.Key)
	assert.Equal(t, f.URL()+"browse/OPS-1", got.URL)
	stored, ok := f.Issue(got.Ref)
	require.True(t, ok)
	assert.Equal(t, "Task", stored.IssueType)
	assert.Empty(t, stored.Parent)

	_, err = p.CreateIssue(context.Background(), integrations.NewIssue{Project: "PROJ", Title: "Orphan", Parent: "PROJ-77"})
	require.ErrorIs(t, err, integrations.ErrInvalid)
	var api *integrations.APIError
	require.ErrorAs(t, err, &api)
	assert.Equal(t, 400, api.Status)
	assert.Contains(t, api.Fields["parent"], "Could not find issue")
}

func TestUnsupportedOperations(t *testing.T) {
	f := providertest.NewJira(t, "cloud")
	p := newFromFake(t, f, providertest.Env{Token: f.Token()})
	assert.False(t, integrations.Supports(p, integrations.OpAddReaction))
	assert.ErrorIs(t, p.AddReaction(context.Background(), f.Ticket(), 1, "eyes"), integrations.ErrUnsupported)
	assert.Zero(t, f.RequestCount())
}

// A credential pasted into tokenEnv or emailEnv is never printed.
func TestJiraCredentialInTheEnvKeyIsNeverPrinted(t *testing.T) {
	tok := "ATATT3xFfGF0T9iYJQWCoLJmX-Zs8o4dQx2cKqPrEeUvYb1W3n5RmK7"
	_, err := jira.FromConfig(config.Jira{BaseURL: "https://x.atlassian.net", TokenEnv: tok}, func(string) string { return "" })
	require.Error(t, err)
	assert.NotContains(t, err.Error(), tok)
	assert.Contains(t, err.Error(), "integrations.jira.tokenEnv does not look like an environment variable name")
}
