package relations_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/relations"
)

var (
	ghHome   = integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: 1}
	gheHome  = integrations.Ref{System: "github", Host: "ghe.example.com", Owner: "octo", Repo: "widgets", Number: 1}
	jiraHome = integrations.Ref{System: "jira", Key: "PROJ-1"}
)

func gh(host, owner, repo string, n int) integrations.Ref {
	return integrations.Ref{System: "github", Host: host, Owner: owner, Repo: repo, Number: n}
}

func jr(key string) integrations.Ref { return integrations.Ref{System: "jira", Key: key} }

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		home integrations.Ref
		want integrations.Ref
	}{
		{"#12", ghHome, gh("", "octo", "widgets", 12)},
		{"#12", gheHome, gh("ghe.example.com", "octo", "widgets", 12)},
		{"octo/gadgets#3", gheHome, gh("ghe.example.com", "octo", "gadgets", 3)},
		{"github:octo/gadgets#3", jiraHome, gh("", "octo", "gadgets", 3)},
		{"GitHub:octo/gadgets#3", ghHome, gh("", "octo", "gadgets", 3)},
		{"github:ghe.example.com/octo/gadgets#3", jiraHome, gh("ghe.example.com", "octo", "gadgets", 3)},
		{"jira:OPS-7", ghHome, jr("OPS-7")},
		{"JIRA:OPS-7", ghHome, jr("OPS-7")},
		{"OPS-7", jiraHome, jr("OPS-7")},
		{"https://github.com/octo/gadgets/issues/3", jiraHome, gh("github.com", "octo", "gadgets", 3)},
		{"https://ghe.example.com/octo/gadgets/issues/3", jiraHome, gh("ghe.example.com", "octo", "gadgets", 3)},
		{"https://example.atlassian.net/browse/OPS-7", ghHome, jr("OPS-7")},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := relations.Parse(tt.in, tt.home)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseRefusesWhatIsNotAReference(t *testing.T) {
	tests := []struct {
		in   string
		home integrations.Ref
	}{
		{"", ghHome},
		{"#12", jiraHome},            // a bare number means nothing in Jira
		{"OPS-7", ghHome},            // a bare key is ambiguous from GitHub
		{"octo/gadgets#3", jiraHome}, // relative GitHub form from Jira
		{"#0", ghHome},
		{"#-1", ghHome},
		{"jira:ops-7", ghHome},
		{"jira:OPS-7/../x", ghHome},
		{"gitlab:octo/gadgets#3", ghHome},
		{"https://github.com/octo/gadgets/pull", ghHome},
		{"a/b/c#3", ghHome},
		{"../../etc#3", ghHome},
		{"task", ghHome},
	}
	for _, tt := range tests {
		_, err := relations.Parse(tt.in, tt.home)
		assert.Error(t, err, "%q from %s", tt.in, tt.home)
	}
}

func TestShort(t *testing.T) {
	tests := []struct {
		ref, home integrations.Ref
		want      string
	}{
		{gh("", "octo", "widgets", 2), ghHome, "#2"},
		{gh("", "Octo", "Widgets", 2), ghHome, "#2"},
		{gh("", "octo", "gadgets", 2), ghHome, "octo/gadgets#2"},
		{gh("ghe.example.com", "octo", "widgets", 2), ghHome, "github:ghe.example.com/octo/widgets#2"},
		{jr("PROJ-2"), jiraHome, "PROJ-2"},
		{jr("PROJ-2"), ghHome, "jira:PROJ-2"},
		{gh("", "octo", "widgets", 2), jiraHome, "github:octo/widgets#2"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, relations.Short(tt.ref, tt.home))
	}
}

func TestKeyIgnoresGitHubCase(t *testing.T) {
	assert.Equal(t, relations.Key(gh("", "Octo", "Widgets", 2)), relations.Key(gh("", "octo", "widgets", 2)))
	assert.NotEqual(t, relations.Key(gh("", "octo", "widgets", 2)), relations.Key(gh("ghe.example.com", "octo", "widgets", 2)))
	assert.NotEqual(t, relations.Key(jr("PROJ-2")), relations.Key(jr("PROJ-3")))
}
