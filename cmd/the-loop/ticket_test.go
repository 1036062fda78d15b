package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/integrations/tickets"
)

type ticketFixture struct {
	gh, jr *providertest.Server
	config string
	vars   map[string]string
}

func newTicketFixture(t *testing.T, projects string) *ticketFixture {
	t.Helper()
	f := &ticketFixture{gh: providertest.NewGitHub(t), jr: providertest.NewJira(t, "datacenter")}
	f.vars = map[string]string{"TEST_GH_TOKEN": f.gh.Token(), "TEST_JIRA_TOKEN": f.jr.Token()}
	f.config = filepath.Join(t.TempDir(), "config.yaml")
	yaml := fmt.Sprintf(`integrations:
  github:
    baseUrl: %s
    tokenEnv: TEST_GH_TOKEN
  jira:
    baseUrl: %s
    auth: datacenter
    tokenEnv: TEST_JIRA_TOKEN
    projects: %s
`, f.gh.URL(), f.jr.URL(), projects)
	require.NoError(t, os.WriteFile(f.config, []byte(yaml), 0o600))
	return f
}

func (f *ticketFixture) run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return f.vars[k] }, Cwd: t.TempDir()}
	code := Main(context.Background(), env, append([]string{"ticket"}, append(args, "--config", f.config)...))
	return code, out.String(), errOut.String()
}

func TestTicketCreateGitHub(t *testing.T) {
	f := newTicketFixture(t, "[PROJ]")
	code, out, stderr := f.run(t, "", "create", "--system", "github", "--repo", "octo/widgets", "--title", "Broken", "--body", "It broke", "--labels", "bug,triage")
	require.Equal(t, 0, code, stderr)
	fields := strings.Split(strings.TrimSpace(out), "\t")
	require.Len(t, fields, 2, out)
	assert.Equal(t, "octo/widgets#2", fields[0])
	assert.True(t, strings.HasSuffix(fields[1], "/octo/widgets/issues/2"), fields[1])
	stored, ok := f.gh.Issue(integrations.Ref{Owner: "octo", Repo: "widgets", Number: 2})
	require.True(t, ok)
	assert.Equal(t, "It broke", stored.Body)
	assert.Equal(t, []string{"bug", "triage"}, stored.Labels)
}

func TestTicketCreateJiraJSONFromBodyFile(t *testing.T) {
	f := newTicketFixture(t, "[PROJ, OPS]")
	bodyFile := filepath.Join(t.TempDir(), "body.md")
	require.NoError(t, os.WriteFile(bodyFile, []byte("From a file.\n"), 0o600))
	code, out, stderr := f.run(t, "", "create", "--system", "jira", "--project", "PROJ", "--title", "Story", "--body-file", bodyFile,
		"--issue-type", "Story", "--parent", "PROJ-1", "--labels", "team-a", "--format", "json")
	require.Equal(t, 0, code, stderr)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, map[string]any{"system": "jira", "key": "PROJ-2", "number": float64(0), "url": f.jr.URL() + "browse/PROJ-2"}, got)
	stored, _ := f.jr.Issue(integrations.Ref{System: "jira", Key: "PROJ-2"})
	assert.Equal(t, "From a file.\n", stored.Body)
	assert.Equal(t, "PROJ-1", stored.Parent)
	assert.Equal(t, "Story", stored.IssueType)
}

func TestTicketCreateBodyFromStdin(t *testing.T) {
	f := newTicketFixture(t, "[PROJ]")
	code, _, stderr := f.run(t, "piped body", "create", "--system", "jira", "--project", "PROJ", "--title", "T", "--body-file", "-")
	require.Equal(t, 0, code, stderr)
	stored, _ := f.jr.Issue(integrations.Ref{System: "jira", Key: "PROJ-2"})
	assert.Equal(t, "piped body", stored.Body)
}

func TestTicketCreateRefusals(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{name: "unconfigured jira project", args: []string{"--system", "jira", "--project", "OPS", "--title", "T", "--body", "b"}, code: 2, want: "integrations.jira.projects"},
		{name: "parent with a path", args: []string{"--system", "jira", "--project", "PROJ", "--title", "T", "--body", "b", "--parent", "PROJ-1/../x"}, code: 2, want: "--parent"},
		{name: "parent with spaces", args: []string{"--system", "jira", "--project", "PROJ", "--title", "T", "--body", "b", "--parent", "PROJ 1"}, code: 2, want: "--parent"},
		{name: "both bodies", args: []string{"--system", "jira", "--project", "PROJ", "--title", "T", "--body", "b", "--body-file", "x"}, code: 2, want: "not both"},
		{name: "no body", args: []string{"--system", "jira", "--project", "PROJ", "--title", "T"}, code: 2, want: "--body or --body-file"},
		{name: "missing body file", args: []string{"--system", "jira", "--project", "PROJ", "--title", "T", "--body-file", "/no/such/file"}, code: 2, want: "--body-file"},
		{name: "bad format", args: []string{"--system", "github", "--repo", "o/r", "--title", "T", "--body", "b", "--format", "xml"}, code: 2, want: "table, json"},
		{name: "no system", args: []string{"--title", "T", "--body", "b"}, code: 2, want: "--system"},
		{name: "positional argument", args: []string{"extra", "--system", "github", "--repo", "o/r", "--title", "T", "--body", "b"}, code: 2, want: "positional"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newTicketFixture(t, "[PROJ]")
			code, out, stderr := f.run(t, "", append([]string{"create"}, tc.args...)...)
			assert.Equal(t, tc.code, code)
			assert.Contains(t, stderr, tc.want)
			assert.Empty(t, out)
			assert.Zero(t, f.gh.RequestCount()+f.jr.RequestCount(), "refused before any request")
		})
	}
}

func TestTicketCreateMissingTokenNamesTheVariable(t *testing.T) {
	f := newTicketFixture(t, "[PROJ]")
	delete(f.vars, "TEST_GH_TOKEN")
	code, _, stderr := f.run(t, "", "create", "--system", "github", "--repo", "octo/widgets", "--title", "T", "--body", "b")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "TEST_GH_TOKEN")
	assert.Contains(t, stderr, "tokenSource: gh")
	assert.NotContains(t, stderr, f.jr.Token())
}

func TestTicketCreateServerErrorsCarryNoToken(t *testing.T) {
	f := newTicketFixture(t, "[PROJ]")
	f.vars["TEST_JIRA_TOKEN"] = "wrong-token-value-456"
	f.jr.EchoCredentials(true)
	code, out, stderr := f.run(t, "", "create", "--system", "jira", "--project", "PROJ", "--title", "T", "--body", "b")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "unauthorized")
	assert.NotContains(t, stderr, "wrong-token-value-456")
}

func TestTicketCreateJiraMirror(t *testing.T) {
	f := newTicketFixture(t, "[PROJ]")
	ghURL := "https://github.com/octo/widgets/issues/1"
	code, out, stderr := f.run(t, "", "create", "--system", "jira", "--project", "PROJ", "--title", "Mirror", "--body", "Context", "--mirror-of", ghURL, "--format", "json")
	require.Equal(t, 0, code, stderr)
	var got tickets.Created
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	stored, _ := f.jr.Issue(integrations.Ref{System: "jira", Key: got.Key})
	assert.Contains(t, stored.Labels, integrations.MirrorLabel)
	assert.True(t, strings.HasPrefix(stored.Body, ghURL))
	ghIssue, _ := f.gh.Issue(integrations.Ref{Owner: "octo", Repo: "widgets", Number: 1})
	assert.Contains(t, ghIssue.Body, got.Key)
}

func TestTicketProjects(t *testing.T) {
	f := newTicketFixture(t, "[PROJ, OPS]")
	code, out, _ := f.run(t, "", "projects")
	require.Equal(t, 0, code)
	assert.Equal(t, "PROJ\nOPS\n", out)
	code, out, _ = f.run(t, "", "projects", "--format", "json")
	require.Equal(t, 0, code)
	assert.JSONEq(t, `{"projects":["PROJ","OPS"]}`, out)

	empty := newTicketFixture(t, "[]")
	code, out, stderr := empty.run(t, "", "projects")
	require.Equal(t, 0, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "integrations.jira.projects")
	_, out, _ = empty.run(t, "", "projects", "--format", "json")
	assert.JSONEq(t, `{"projects":[]}`, out)
}

func TestTicketSubcommands(t *testing.T) {
	f := newTicketFixture(t, "[PROJ]")
	code, _, stderr := f.run(t, "", "delete")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "create or projects")
	var errOut bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &errOut, Getenv: func(string) string { return "" }}
	assert.Equal(t, 2, Main(context.Background(), env, []string{"ticket"}))
	assert.Contains(t, errOut.String(), "subcommand")
}
