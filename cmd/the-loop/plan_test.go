package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/internal/httpx"
)

// planProject is the test project: the epic octo/widgets#1 with three
// sub-issues in a chain — Schema (#2), API (#3, blocked by #2) and CLI (#4,
// blocked by #3 and by the Jira ticket PROJ-2) — watched by the poller, with
// Schema and API armed by alice and answered.
type planProject struct {
	gh, jira *providertest.Server
	repo     string
	config   string
	vars     map[string]string
}

func newPlanProject(t *testing.T) *planProject {
	t.Helper()
	p := &planProject{gh: providertest.NewGitHub(t), jira: providertest.NewJira(t, "datacenter"), repo: t.TempDir()}
	require.NoError(t, os.MkdirAll(filepath.Join(p.repo, ".the-loop"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(p.repo, ".the-loop", "harness-config.yaml"), []byte("ticketing:\n  github:\n    owner: octo\n    repo: widgets\n"), 0o644))
	p.vars = map[string]string{"TEST_GH_TOKEN": p.gh.Token(), "TEST_JIRA_TOKEN": p.jira.Token(), "THE_LOOP_DB": filepath.Join(t.TempDir(), "state.db")}
	p.config = filepath.Join(t.TempDir(), "config.yaml")
	yaml := fmt.Sprintf(`integrations:
  github: {baseUrl: %s, tokenEnv: TEST_GH_TOKEN}
  jira: {baseUrl: %s, auth: datacenter, tokenEnv: TEST_JIRA_TOKEN, projects: [PROJ]}
routing:
  authorizedUsers: [alice]
  selfLogins: [%s, %s]
polling:
  sources:
    - {system: github, repos: [octo/widgets], checkout: %s}
    - {system: jira, projects: [PROJ], checkout: %s}
`, p.gh.URL(), p.jira.URL(), p.gh.BotLogin(), p.jira.BotLogin(), p.repo, p.repo)
	require.NoError(t, os.WriteFile(p.config, []byte(yaml), 0o600))

	epic := p.gh.Ticket()
	schema := p.gh.SeedIssue("Schema", nil, true)
	api := p.gh.SeedIssue("API", nil, true)
	cli := p.gh.SeedIssue("CLI", nil, true)
	firewall := p.jira.SeedIssue("Open the firewall", nil, true)
	for _, c := range []integrations.Ref{schema, api, cli} {
		p.gh.AddSubIssue(epic, c)
	}
	p.gh.AddBlocker(api, schema)
	p.gh.AddBlocker(cli, api)
	gh, err := github.New(github.Options{BaseURL: p.gh.URL(), Token: p.gh.Token(), ClientOptions: httpx.ClientOptions{HTTPClient: &http.Client{Transport: http.DefaultTransport}}})
	require.NoError(t, err)
	require.NoError(t, gh.EditIssueBody(context.Background(), cli, "The command line.\n\nBlocked by: jira:"+firewall.Key+"\n"))

	for _, ref := range []integrations.Ref{schema, api} {
		p.gh.AddComment(ref, "alice", "OWNER", "the-loop start")
	}
	p.run(t, 0, "poll", "--once")
	for _, ref := range []integrations.Ref{schema, api} {
		p.gh.AddComment(ref, "alice", "OWNER", "the-loop execute")
	}
	p.run(t, 0, "poll", "--once")
	p.run(t, 0, "poll", "--once")
	return p
}

// run runs the-loop with args and wants exit code want; it returns stdout
// and stderr.
func (p *planProject) run(t *testing.T, want int, args ...string) (string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return p.vars[k] }, Cwd: p.repo}
	code := Main(context.Background(), env, append(args, "--config", p.config))
	require.Equal(t, want, code, "%v: %s", args, errOut.String())
	return out.String(), errOut.String()
}

func TestPlanOfTheTestProject(t *testing.T) {
	p := newPlanProject(t)
	table, _ := p.run(t, 0, "plan", "#1")
	t.Logf("the-loop plan '#1':\n%s", table)
	u, err := url.Parse(p.gh.URL())
	require.NoError(t, err)
	host := regexp.QuoteMeta(u.Host)
	lines := strings.Split(strings.TrimSpace(table), "\n")
	require.Len(t, lines, 6, table)
	assert.Regexp(t, `^ITEM\s+TITLE\s+STATE\s+LOOP\s+AT\s+STATUS$`, lines[0])
	assert.Regexp(t, `^github:`+host+`/octo/widgets#1\s+Seeded ticket\s+open\s+-\s+-\s+ready$`, lines[1])
	assert.Regexp(t, `^github:`+host+`/octo/widgets#2\s+Schema\s+open\s+pdlc-work-item-loop\s+brainstorming\s+working$`, lines[2])
	assert.Regexp(t, `^github:`+host+`/octo/widgets#3\s+API\s+open\s+pdlc-work-item-loop\s+phase-selection\s+blocked by #2 \(at brainstorming\)$`, lines[3])
	assert.Regexp(t, `^jira:PROJ-2\s+Open the firewall\s+open\s+-\s+-\s+ready$`, lines[4])
	assert.Regexp(t, `^github:`+host+`/octo/widgets#4\s+CLI\s+open\s+-\s+-\s+blocked by #3 \(at phase-selection\), jira:PROJ-2 \(not started\)$`, lines[5])

	mermaid, _ := p.run(t, 0, "plan", "issue-1", "--format", "mermaid")
	t.Logf("the-loop plan issue-1 --format mermaid:\n%s", mermaid)
	for _, want := range []string{
		"flowchart TD\n", `n3["#35;3 API<br/>held"]`, "  n2 --> n3\n", "  n4 --> n5\n", "  n1 -.-> n5\n",
		"  class n3,n5 held\n",
	} {
		assert.Contains(t, mermaid, want)
	}

	doc, _ := p.run(t, 0, "plan", "github:octo/widgets#3", "--format", "json")
	assert.Contains(t, doc, `"status": "blocked by #2 (at brainstorming)"`)
	assert.Contains(t, doc, `"verdict": "held"`)
	assert.Contains(t, doc, `"cycles": []`)
}

func TestPlanRefusesBadInput(t *testing.T) {
	p := newPlanProject(t)
	_, stderr := p.run(t, exitUsage, "plan")
	assert.Contains(t, stderr, "plan takes one item")
	_, stderr = p.run(t, exitUsage, "plan", "#1", "--format", "dot")
	assert.Contains(t, stderr, `--format "dot" is not one of table, json, mermaid`)
	_, stderr = p.run(t, exitUsage, "plan", "soon")
	assert.Contains(t, stderr, `item "soon" is neither a work item of`)
}

func TestCLIAndToolReturnTheSamePlan(t *testing.T) {
	p := newPlanProject(t)
	side := newParity(t, p.config, p.vars)
	for _, item := range []string{"#1", "issue-3", "jira:PROJ-2"} {
		assert.JSONEq(t, side.cli("plan", item, "--repo", p.repo, "--format", "json"),
			side.tool(p.repo, "plan", map[string]any{"item": item}), "plan %s", item)
	}
}

// check prints a held item as waiting, with the poller's read and its age,
// and --fail-on block does not fail it; graph status tells the agent.
func TestCheckAndGraphStatusPrintTheHold(t *testing.T) {
	p := newPlanProject(t)
	out, _ := p.run(t, exitUnmet, "check", "issue-3")
	t.Logf("the-loop check issue-3:\n%s", out)
	assert.Contains(t, out, "issue-3: UNMET (at phase-selection)\n")
	assert.Contains(t, out, "  WAIT   phase-selection\n         · blocked by #2 (at brainstorming)\n")
	assert.Regexp(t, `  DEPS   blocked by #2 \(at brainstorming\) \(read \d+s ago\)\n`, out)
	p.run(t, exitOK, "check", "issue-3", "--fail-on", "block")
	status, _ := p.run(t, exitOK, "graph", "status", "issue-3")
	assert.Contains(t, status, "dependencies: blocked by #2 (at brainstorming)")
	assert.Contains(t, status, "do not start work on this item")
}

// The plan tool is read-only: it sends no request that writes, and the
// state it reads is unchanged.
func TestThePlanToolWritesNothing(t *testing.T) {
	p := newPlanProject(t)
	side := newParity(t, p.config, p.vars)
	before, _ := p.run(t, exitUnmet, "check", "--all", "--format", "json")
	ghSent, jiraSent := len(p.gh.Requests()), len(p.jira.Requests())
	side.tool(p.repo, "plan", map[string]any{"item": "#1"})
	for _, r := range append(p.gh.Requests()[ghSent:], p.jira.Requests()[jiraSent:]...) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/graphql") {
			continue // the batched relations read: a query (the fake answers no mutation)
		}
		assert.Equal(t, http.MethodGet, r.Method, "%s %s", r.Method, r.Path)
	}
	after, _ := p.run(t, exitUnmet, "check", "--all", "--format", "json")
	assert.JSONEq(t, before, after)
}
