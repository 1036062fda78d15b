package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/continuity"
	"github.com/the-loop/the-loop/handoff"
	loopmcp "github.com/the-loop/the-loop/mcp"
	"github.com/the-loop/the-loop/mcp/transport"
)

// parityTests names, for every shipped MCP tool, the test that runs the
// tool and its CLI verb over the same input and compares what they return.
var parityTests = map[string]func(*testing.T){
	"check":             TestCLIAndToolReturnTheSameCheckReport,
	"plan":              TestCLIAndToolReturnTheSamePlan,
	"critic_list":       TestCLIAndToolRunTheSameCritic,
	"critic_run":        TestCLIAndToolRunTheSameCritic,
	"graph_status":      TestCLIAndToolReturnTheSameGraphReports,
	"graph_show":        TestCLIAndToolReturnTheSameGraphReports,
	"graph_complete":    TestCLIAndToolReturnTheSameGraphReports,
	"graph_repos":       TestCLIAndToolDeclareTheSameRepositories,
	"pr_create":         TestCLIAndToolOpenTheSamePullRequest,
	"ticket_create":     TestCLIAndToolCreateTheSameTicket,
	"ticket_projects":   TestCLIAndToolCreateTheSameTicket,
	"continuity_update": TestCLIAndToolKeepTheSameContinuityRecord,
	"continuity_brief":  TestCLIAndToolKeepTheSameContinuityRecord,
	"continuity_prompt": TestCLIAndToolKeepTheSameContinuityRecord,
	"continuity_resume": TestCLIAndToolResumeTheSameContinuityRecord,
	"handoff_post":      TestCLIAndToolPostTheSameHandoffRecord,
	"handoff_show":      TestCLIAndToolShareTheFrozenHandoff,
	"handoff_import":    TestCLIAndToolShareTheFrozenHandoff,
	"handoff_note":      TestCLIAndToolShareTheFrozenHandoff,
}

// Every tool has a CLI↔tool parity test: a new tool cannot ship without one.
func TestEveryToolHasAParityTest(t *testing.T) {
	var names []string
	for _, tool := range loopmcp.AllTools() {
		names = append(names, tool.Def.Name)
	}
	covered := make([]string, 0, len(parityTests))
	for name := range parityTests {
		covered = append(covered, name)
	}
	slices.Sort(names)
	slices.Sort(covered)
	assert.Equal(t, names, covered, "add the new tool's parity test to parityTests")
}

// The CLI verbs and the MCP tools are bindings over the same core: these
// tests run the CLI through Main and the tool through an in-process MCP
// client on loopmcp.NewServer, over the same input, and compare the JSON.

// copyRepoFixture copies testdata/repo (six work items) into a temp dir.
func copyRepoFixture(t *testing.T) string {
	t.Helper()
	return copyDir(t, fixtureRepo(t))
}

// parity runs CLI commands and MCP tool calls against one config and one
// state store.
type parity struct {
	t      *testing.T
	config string
	vars   map[string]string
}

func newParity(t *testing.T, config string, vars map[string]string) *parity {
	t.Helper()
	if config == "" {
		config = filepath.Join(t.TempDir(), "config.yaml")
		require.NoError(t, os.WriteFile(config, nil, 0o600))
	}
	all := map[string]string{"THE_LOOP_DB": filepath.Join(t.TempDir(), "state.db")}
	for k, v := range vars {
		all[k] = v
	}
	return &parity{t: t, config: config, vars: all}
}

func (p *parity) env() *Env {
	return &Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &lockedBuffer{}, Getenv: func(k string) string { return p.vars[k] }, Cwd: p.t.TempDir()}
}

// cli runs the-loop with args and returns stdout (exit 0 or 1 allowed).
func (p *parity) cli(args ...string) string {
	p.t.Helper()
	env := p.env()
	code := Main(context.Background(), env, append(args, "--config", p.config))
	require.Contains(p.t, []int{exitOK, exitUnmet}, code, "%v: %s", args, env.Stderr)
	return env.Stdout.(*bytes.Buffer).String()
}

// tool calls an MCP tool on a server built the way `the-loop serve` builds
// it, as the stdio caller (the local operator), and returns its structured
// content as JSON.
func (p *parity) tool(repo, name string, args map[string]any) string {
	p.t.Helper()
	f := newFactory(p.env())
	f.ConfigPath = p.config
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc, err := newServeService(f, "", repo, false, logger, nil)
	require.NoError(p.t, err)
	defer svc.Close()
	srv := loopmcp.NewServer(serverDeps(svc, logger, repo, ""), loopmcp.AllTools(), Version())
	c, err := client.NewInProcessClient(srv)
	require.NoError(p.t, err)
	defer c.Close()
	ctx := transport.WithPrincipal(context.Background(), transport.Principal{Subject: "local", Method: "stdio"})
	require.NoError(p.t, c.Start(ctx))
	_, err = c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "parity", Version: "1"}}})
	require.NoError(p.t, err)
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(ctx, req)
	require.NoError(p.t, err)
	require.False(p.t, res.IsError, "%s: %v", name, res.Content)
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(p.t, err)
	return string(b)
}

func TestCLIAndToolReturnTheSameCheckReport(t *testing.T) {
	repo := copyRepoFixture(t)
	p := newParity(t, "", nil)
	for _, recompute := range []bool{false, true} {
		flag := []string{}
		if recompute {
			flag = []string{"--recompute"}
		}
		for _, id := range []string{"issue-1", "issue-2", "issue-3", "issue-4", "issue-5", "issue-6"} {
			cli := p.cli(append([]string{"check", id, "--repo", repo, "--format", "json"}, flag...)...)
			tool := p.tool(repo, "check", map[string]any{"workItem": id, "recompute": recompute})
			assert.JSONEq(t, cli, tool, "check %s recompute=%v", id, recompute)
		}
		cli := p.cli(append([]string{"check", "--all", "--repo", repo, "--format", "json"}, flag...)...)
		tool := p.tool(repo, "check", map[string]any{"all": true, "recompute": recompute})
		assert.JSONEq(t, `{"reports":`+cli+`}`, tool, "check --all recompute=%v", recompute)
	}
}

func TestCLIAndToolReturnTheSameGraphReports(t *testing.T) {
	repo := copyRepoFixture(t)
	p := newParity(t, "", nil)
	for _, id := range []string{"issue-1", "issue-2", "issue-3"} {
		assert.JSONEq(t, p.cli("graph", "status", id, "--repo", repo, "--format", "json"),
			p.tool(repo, "graph_status", map[string]any{"workItem": id}), "graph status %s", id)
	}
	assert.JSONEq(t, p.cli("graph", "show", "--format", "json"), p.tool(repo, "graph_show", nil))

	// graph complete writes, so each side claims on its own copy and store.
	for _, id := range []string{"issue-1", "issue-2", "issue-3"} {
		cliRepo, toolRepo := copyRepoFixture(t), copyRepoFixture(t)
		cliSide, toolSide := newParity(t, "", nil), newParity(t, "", nil)
		assert.JSONEq(t, cliSide.cli("graph", "complete", id, "--repo", cliRepo),
			toolSide.tool(toolRepo, "graph_complete", map[string]any{"workItem": id}), "graph complete %s", id)
	}
}

func TestCLIAndToolCreateTheSameTicket(t *testing.T) {
	cases := []struct {
		name string
		cli  []string
		args map[string]any
	}{
		{"github", []string{"--system", "github", "--repo", "octo/widgets", "--title", "Broken", "--body", "It broke", "--labels", "bug,triage"},
			map[string]any{"system": "github", "repo": "octo/widgets", "title": "Broken", "body": "It broke", "labels": []any{"bug", "triage"}}},
		{"jira", []string{"--system", "jira", "--project", "PROJ", "--title", "Story", "--body", "b", "--issue-type", "Story", "--parent", "PROJ-1"},
			map[string]any{"system": "jira", "project": "PROJ", "title": "Story", "body": "b", "issueType": "Story", "parent": "PROJ-1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cf, tf := newTicketFixture(t, "[PROJ]"), newTicketFixture(t, "[PROJ]")
			cli := newParity(t, cf.config, cf.vars).cli(append([]string{"ticket", "create", "--format", "json"}, tc.cli...)...)
			tool := newParity(t, tf.config, tf.vars).tool(t.TempDir(), "ticket_create", tc.args)
			// Each side has its own fake server, so only the port differs.
			host := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
			assert.JSONEq(t, host.ReplaceAllString(cli, "HOST"), host.ReplaceAllString(tool, "HOST"))
		})
	}

	f := newTicketFixture(t, "[PROJ, OPS]")
	p := newParity(t, f.config, f.vars)
	assert.JSONEq(t, p.cli("ticket", "projects", "--format", "json"), p.tool(t.TempDir(), "ticket_projects", nil))
}

// liveGitCheckout is a git checkout with a live continuity set, started
// the way `the-loop continuity init --goal` starts one.
func liveGitCheckout(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := filepath.Join(t.TempDir(), "checkout")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, args := range [][]string{{"init", "-q", "."}, {"remote", "add", "origin", "https://github.com/acme/widgets.git"}} {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	set, err := continuity.Open(dir)
	require.NoError(t, err)
	_, err = set.Init(continuity.InitOptions{Goal: "ship the widget importer"})
	require.NoError(t, err)
	return dir
}

func TestCLIAndToolKeepTheSameContinuityRecord(t *testing.T) {
	p := newParity(t, "", nil)
	cliRepo, toolRepo := liveGitCheckout(t), liveGitCheckout(t)
	updates := []struct {
		cli  []string
		args map[string]any
	}{
		{[]string{"--kind", "decision", "--text", "parse with encoding/csv", "--why", "no new dependency", "--files", "importer/parse.go"},
			map[string]any{"kind": "decision", "text": "parse with encoding/csv", "why": "no new dependency", "files": []any{"importer/parse.go"}}},
		{[]string{"--kind", "task", "--text", "write the parser tests", "--node", "t1", "--status", "open", "--next", "write the tests"},
			map[string]any{"kind": "task", "text": "write the parser tests", "node": "t1", "status": "open", "next": "write the tests"}},
		{[]string{"--kind", "blocker", "--text", "fixture CSV is missing", "--blocks", "t1"},
			map[string]any{"kind": "blocker", "text": "fixture CSV is missing", "blocks": "t1"}},
	}
	for _, u := range updates {
		cli := p.cli(append([]string{"continuity", "update", "--repo", cliRepo, "--format", "json"}, u.cli...)...)
		tool := p.tool(toolRepo, "continuity_update", u.args)
		assert.JSONEq(t, cli, tool, "continuity update %v", u.cli)
	}

	// brief and prompt read; both sides read the same checkout. The age is
	// the seconds since the last update, so it may tick between the two.
	age := regexp.MustCompile(`("age": ?"|- age: )\d+s`)
	cli := p.cli("continuity", "brief", "--repo", cliRepo, "--format", "json")
	tool := p.tool(cliRepo, "continuity_brief", nil)
	assert.JSONEq(t, age.ReplaceAllString(cli, "${1}Ns"), age.ReplaceAllString(tool, "${1}Ns"))

	var cliPrompt, toolPrompt map[string]any
	require.NoError(t, json.Unmarshal([]byte(p.cli("continuity", "prompt", "--repo", cliRepo, "--format", "json", "--task", "Review the importer error handling", "--non-goal", "a rewrite")), &cliPrompt))
	require.NoError(t, json.Unmarshal([]byte(p.tool(cliRepo, "continuity_prompt", map[string]any{"task": "Review the importer error handling", "nonGoals": []any{"a rewrite"}})), &toolPrompt))
	delete(cliPrompt, "notice") // the CLI says it found no clipboard; the tool never uses one
	assert.Equal(t, cliPrompt, toolPrompt)
	assert.Equal(t, false, toolPrompt["copied"])
}

func TestCLIAndToolResumeTheSameContinuityRecord(t *testing.T) {
	p := newParity(t, "", nil)
	cliRepo, toolRepo := liveGitCheckout(t), liveGitCheckout(t)
	cli := p.cli("continuity", "resume", "--repo", cliRepo, "--format", "json")
	tool := p.tool(toolRepo, "continuity_resume", nil)
	// Each side resumes its own set, so only the session handles differ.
	session := regexp.MustCompile(`"(session|resumedFrom)": ?"[^"]*"`)
	assert.JSONEq(t, session.ReplaceAllString(cli, `"$1":"S"`), session.ReplaceAllString(tool, `"$1":"S"`))
	assert.Contains(t, tool, `"mode":"resumed"`)
}

// handoffParity is a fake GitHub with one issue, a checkout with the
// record's files, and the config and variables both sides run with.
type handoffParity struct {
	*handoffCLI
	p   *parity
	rec handoff.Record
}

func newHandoffParity(t *testing.T) *handoffParity {
	t.Helper()
	f := newHandoffCLI(t)
	return &handoffParity{handoffCLI: f, rec: f.specBranch(handoff.StageRequirementsSettled),
		p: newParity(t, f.config, map[string]string{"TEST_GH_TOKEN": f.gh.Token(), "THE_LOOP_DB": f.db})}
}

func TestCLIAndToolPostTheSameHandoffRecord(t *testing.T) {
	cliSide, toolSide := newHandoffParity(t), newHandoffParity(t)
	cli := cliSide.p.cli("handoff", "post", "--work-item", cliSide.ref.String(), "--record", cliSide.writeRecord(cliSide.rec), "--repo", cliSide.checkout, "--format", "json")
	raw, err := handoff.EncodeJSON(toolSide.rec)
	require.NoError(t, err)
	var record map[string]any
	require.NoError(t, json.Unmarshal(raw, &record))
	tool := toolSide.p.tool(toolSide.checkout, "handoff_post", map[string]any{"workItem": toolSide.ref.String(), "record": record})
	// Each side has its own fake server, so only the port differs.
	host := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	assert.JSONEq(t, host.ReplaceAllString(cli, "HOST"), host.ReplaceAllString(tool, "HOST"))
	assert.Contains(t, tool, `"existing":false`)
}

// show, import and note run on one armed item: show reads, and import and
// note do the same again on a second call, so each side's answer is the
// other's.
func TestCLIAndToolShareTheFrozenHandoff(t *testing.T) {
	h := newHandoffParity(t)
	h.p.cli("handoff", "post", "--work-item", h.ref.String(), "--record", h.writeRecord(h.rec), "--repo", h.checkout)
	h.gh.AddComment(h.ref, "dev", "MEMBER", "the-loop start")
	h.p.cli("poll", "--once")
	h.gh.AddComment(h.ref, "alice", "MEMBER", "the-loop execute")
	h.p.cli("poll", "--once")

	repo := []string{"--repo", h.checkout, "--format", "json"}
	show := h.p.tool(h.checkout, "handoff_show", map[string]any{"workItem": h.id})
	assert.JSONEq(t, h.p.cli(append([]string{"handoff", "show", h.id}, repo...)...), show)
	assert.Contains(t, show, `"currentNode":"import-handoff"`, "the item is armed with the record frozen")
	imported := h.p.tool(h.checkout, "handoff_import", map[string]any{"workItem": h.id})
	assert.JSONEq(t, h.p.cli(append([]string{"handoff", "import", h.id}, repo...)...), imported)
	assert.Contains(t, imported, `"ok":true`)
	note := []string{"handoff", "note", h.id, "--branch", h.rec.Branch, "--pull-request", fmt.Sprint(h.rec.PullRequest)}
	cli := h.p.cli(append(note, repo...)...)
	assert.JSONEq(t, cli, h.p.tool(h.checkout, "handoff_note", map[string]any{"workItem": h.id, "branch": h.rec.Branch, "pullRequest": h.rec.PullRequest}))
	assert.Contains(t, cli, `"action": "edited"`)
}
