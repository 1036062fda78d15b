package dag_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/jira"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/integrations/relations"
	"github.com/the-loop/the-loop/internal/httpx"
	"github.com/the-loop/the-loop/runtime/dag"
)

// testProject is an epic on the fake GitHub with three sub-issues in a
// chain, the last also waiting for a ticket on the fake Jira.
type testProject struct {
	gh, jira               *providertest.Server
	ghp                    *github.Provider
	trackers               relations.Trackers
	epic, schema, api, cli integrations.Ref
	firewall               integrations.Ref
}

func newTestProject(t *testing.T) *testProject {
	t.Helper()
	p := &testProject{gh: providertest.NewGitHub(t), jira: providertest.NewJira(t, jira.AuthDataCenter)}
	var err error
	p.ghp, err = github.New(github.Options{BaseURL: p.gh.URL(), Token: p.gh.Token(), ClientOptions: httpx.ClientOptions{HTTPClient: &http.Client{Transport: http.DefaultTransport}}})
	require.NoError(t, err)
	jp, err := jira.New(jira.Options{BaseURL: p.jira.URL(), Auth: jira.AuthDataCenter, Token: p.jira.Token(), ClientOptions: httpx.ClientOptions{HTTPClient: &http.Client{Transport: http.DefaultTransport}}})
	require.NoError(t, err)
	u, err := url.Parse(p.gh.URL())
	require.NoError(t, err)
	p.trackers = relations.Trackers{GitHub: p.ghp, GitHubHost: u.Host, Jira: jp}
	p.epic = p.trackers.Canon(p.gh.Ticket())
	p.schema = p.trackers.Canon(p.gh.SeedIssue("Schema", nil, true))
	p.api = p.trackers.Canon(p.gh.SeedIssue("API", nil, true))
	p.cli = p.trackers.Canon(p.gh.SeedIssue("CLI", nil, true))
	p.firewall = p.jira.SeedIssue("Open the firewall", nil, true)
	for _, c := range []integrations.Ref{p.cli, p.api, p.schema} {
		p.gh.AddSubIssue(p.epic, c)
	}
	p.gh.AddBlocker(p.api, p.schema)
	p.gh.AddBlocker(p.cli, p.api)
	require.NoError(t, p.ghp.EditIssueBody(context.Background(), p.cli, "The command line.\n\nBlocked by: jira:"+p.firewall.Key+"\n"))
	return p
}

func (p *testProject) plan(t *testing.T, look progress) dag.Plan {
	t.Helper()
	res, err := relations.Collect(context.Background(), p.trackers, []integrations.Ref{p.epic}, relations.Options{})
	require.NoError(t, err)
	plan := dag.FromRelations(res.Items).Evaluate(look.lookup)
	plan.Warnings = res.Warnings
	return plan
}

func TestPlanOfTheTestProject(t *testing.T) {
	p := newTestProject(t)
	plan := p.plan(t, progress{p.schema: at("design"), p.api: at("phase-selection")})
	var b bytes.Buffer
	require.NoError(t, plan.WriteTable(&b))
	t.Logf("plan table:\n%s\n%s", b.String(), plan.Mermaid())
	m := messages(plan)
	assert.Equal(t, "working", m[p.schema])
	assert.Equal(t, "blocked by #2 (at design)", m[p.api])
	assert.Equal(t, "blocked by #3 (at phase-selection), jira:PROJ-2 (not started)", m[p.cli])
	assert.Equal(t, "ready", m[p.firewall])
	order, _ := plan.ArmingOrder(p.epic)
	assert.Equal(t, []integrations.Ref{p.schema, p.api, p.cli}, order)

	// The schema completes and the firewall ticket is closed as done: the
	// API is released; the CLI still waits for the API.
	p.jira.SetState(p.firewall, false, "Done")
	plan = p.plan(t, progress{p.schema: done, p.api: at("phase-selection")})
	m = messages(plan)
	assert.Equal(t, "ready", m[p.api])
	assert.Equal(t, "blocked by #3 (at phase-selection)", m[p.cli])

	// Someone removes the CLI's dependency on the API in GitHub: the next
	// read releases it.
	p.gh.RemoveBlocker(p.cli, p.api)
	plan = p.plan(t, progress{p.schema: done, p.api: at("design")})
	assert.Equal(t, "ready", messages(plan)[p.cli])
}

func TestPlanOfTheTestProjectWithACycle(t *testing.T) {
	p := newTestProject(t)
	p.gh.AddBlocker(p.schema, p.cli)
	plan := p.plan(t, progress{})
	require.Len(t, plan.Cycles, 1)
	assert.Len(t, plan.Cycles[0], 3)
	for _, r := range []integrations.Ref{p.schema, p.api, p.cli} {
		s, _ := plan.Find(r)
		assert.Equal(t, dag.VerdictCycle, s.Verdict, "%s", r)
		assert.True(t, s.Hold)
	}
	assert.Empty(t, plan.NextToArm(p.epic), "nothing in a cycle is armed")
	var b bytes.Buffer
	require.NoError(t, plan.WriteTable(&b))
	assert.True(t, strings.Contains(b.String(), "cycle: "), b.String())
}
