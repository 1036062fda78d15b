package mcp

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/handoff/handofftest"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providers"
	"github.com/the-loop/the-loop/integrations/providertest"
	"github.com/the-loop/the-loop/service"
)

// handoffRig is the real core over an empty checkout, wired to the fake
// GitHub server, with dev and alice authorized and the fake's bot as the
// loop's own login.
type handoffToolRig struct {
	gh     *providertest.Server
	svc    *service.Service
	poller *service.Poller
	ref    integrations.Ref
	id     string
}

func newHandoffToolRig(t *testing.T) *handoffToolRig {
	t.Helper()
	gh := providertest.NewGitHub(t)
	repo := t.TempDir()
	cfg := config.Default()
	cfg.Integrations.GitHub.BaseURL = gh.URL()
	cfg.Integrations.GitHub.TokenEnv = "TEST_GH_TOKEN"
	cfg.Routing.AuthorizedUsers = []string{"dev", "alice"}
	cfg.Routing.SelfLogins = []string{gh.BotLogin()}
	cfg.Routing.Operator = "dev"
	svc := newLoopServiceWith(t, repo, cfg, func(system string) (integrations.Provider, error) {
		return providers.New(cfg, system, func(string) string { return gh.Token() })
	})
	ref := gh.SeedIssue("Export CSV", nil, true)
	return &handoffToolRig{gh: gh, svc: svc, ref: ref, id: fmt.Sprintf("issue-%d", ref.Number),
		poller: &service.Poller{Svc: svc, Sources: []config.Source{{System: "github", Repos: []string{providertest.GitHubRepo}, Checkout: repo}}}}
}

// recordArg is a record as a tool argument: its JSON form as an object.
func recordArg(t *testing.T, rec handoff.Record) map[string]any {
	t.Helper()
	b, err := handoff.EncodeJSON(rec)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func filesArg(files map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range files {
		out[k] = v
	}
	return out
}

// armAndSelect posts start and execute as authorized people and runs the
// poller after each.
func (r *handoffToolRig) armAndSelect(t *testing.T) {
	t.Helper()
	r.gh.AddComment(r.ref, "dev", "MEMBER", "the-loop start")
	r.poller.RunOnce(t.Context())
	r.gh.AddComment(r.ref, "alice", "MEMBER", "the-loop execute")
	r.poller.RunOnce(t.Context())
}

func TestHandoffToolsWalk(t *testing.T) {
	r := newHandoffToolRig(t)
	c := loopClient(t, r.svc)
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, CarriedBy: handoff.CarriedByArtifact})

	res := callToolAs(t, c, stdioCaller, "handoff_post", map[string]any{ArgWorkItem: r.ref.String(), "record": recordArg(t, rec)})
	require.False(t, res.IsError, resultText(t, res))
	posted := structured(t, res)
	comments := posted["comments"].([]any)
	require.Len(t, comments, 1)
	recordURL := comments[0].(map[string]any)["url"].(string)
	assert.Contains(t, resultText(t, res), "comment 0 posted: "+recordURL)

	r.armAndSelect(t)
	res = callTool(t, c, "handoff_show", map[string]any{ArgWorkItem: r.id})
	require.False(t, res.IsError, resultText(t, res))
	view := structured(t, res)
	assert.Equal(t, "import-handoff", view["currentNode"])
	assert.Equal(t, recordURL, view["handoff"].(map[string]any)["commentUrl"])
	assert.Equal(t, rec.SpecArtifact, view["claudeArtifactUrl"])
	assert.Contains(t, resultText(t, res), "handed off by @dev at design-settled, enter design-approval, carried by artifact", "attributed to the operator who posted it, never the loop")

	res = callTool(t, c, "handoff_import", map[string]any{ArgWorkItem: r.id, "files": filesArg(files)})
	require.False(t, res.IsError, resultText(t, res))
	imp := structured(t, res)
	assert.Equal(t, true, imp["ok"])
	assert.Equal(t, []any{handoff.Brainstorm, handoff.Requirements, handoff.DesignDoc, handoff.TestingPlan}, imp["written"])

	branch := "the-loop/" + r.id + "-export-csv"
	r.gh.SeedBranch(providertest.GitHubRepo, branch, providertest.GitHubMainSHA)
	p, err := r.svc.Provider("github")
	require.NoError(t, err)
	pr, err := p.CreatePullRequest(t.Context(), integrations.NewPullRequest{Owner: "octo", Repo: "widgets", Title: "Spec", Head: branch, Base: "main", Draft: true})
	require.NoError(t, err)
	res = callTool(t, c, "handoff_note", map[string]any{ArgWorkItem: r.id, "branch": branch, "pullRequest": pr.Number})
	require.False(t, res.IsError, resultText(t, res))
	assert.Equal(t, "edited", structured(t, res)["action"])

	res = callTool(t, c, "graph_complete", map[string]any{ArgWorkItem: r.id})
	require.False(t, res.IsError, resultText(t, res))
	assert.Equal(t, "design-approval", structured(t, res)["currentNode"])
}

func TestHandoffImportToolReportsRefusedFiles(t *testing.T) {
	r := newHandoffToolRig(t)
	c := loopClient(t, r.svc)
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageRequirementsSettled, CarriedBy: handoff.CarriedByArtifact})
	res := callToolAs(t, c, stdioCaller, "handoff_post", map[string]any{ArgWorkItem: r.ref.String(), "record": recordArg(t, rec)})
	require.False(t, res.IsError, resultText(t, res))
	r.armAndSelect(t)

	res = callTool(t, c, "handoff_import", map[string]any{ArgWorkItem: r.id, "files": filesArg(handofftest.Tampered(files, handoff.Brainstorm))})
	assert.True(t, res.IsError)
	assert.Contains(t, resultText(t, res), "nothing verified, nothing written")
	assert.Contains(t, resultText(t, res), "Refused: brainstorm.md does not match the record's sha256")
	imp := structured(t, res)
	assert.Equal(t, false, imp["ok"])
	assert.Equal(t, []any{handoff.Requirements}, imp["held"])

	res = callTool(t, c, "handoff_import", map[string]any{ArgWorkItem: r.id, "files": map[string]any{"../../etc/passwd": "x"}})
	assert.True(t, res.IsError)
	assert.Contains(t, resultText(t, res), `"../../etc/passwd" is not an artifact name`)
}

func TestHandoffPostToolRefusals(t *testing.T) {
	r := newHandoffToolRig(t)
	c := loopClient(t, r.svc)
	rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, CarriedBy: handoff.CarriedByArtifact})
	arg := recordArg(t, rec)
	arg["enter"] = "implementation"
	res := callToolAs(t, c, stdioCaller, "handoff_post", map[string]any{ArgWorkItem: r.ref.String(), "record": arg})
	assert.True(t, res.IsError)
	assert.Contains(t, resultText(t, res), "never starts past design-approval")

	arg = recordArg(t, rec)
	arg["author"] = "dev"
	arg["extra"] = true
	res = callToolAs(t, c, stdioCaller, "handoff_post", map[string]any{ArgWorkItem: r.ref.String(), "record": arg})
	assert.True(t, res.IsError)
	assert.Contains(t, resultText(t, res), `unknown field "extra"`)

	res = callToolAs(t, c, stdioCaller, "handoff_post", map[string]any{ArgWorkItem: r.ref.String(), "record": "not an object"})
	assert.True(t, res.IsError)
	assert.Contains(t, resultText(t, res), `argument "record" must be an object`)
	assert.Empty(t, r.gh.Comments(r.ref), "nothing is posted")
}

func TestHandoffToolsRefuseABackendWithoutHandoffs(t *testing.T) {
	c := inProcess(t, Deps{Backend: newFakeBackend()}, handoffShowTool, handoffPostTool, handoffImportTool, handoffNoteTool)
	for name, args := range map[string]map[string]any{
		"handoff_show":   {ArgWorkItem: "issue-1"},
		"handoff_post":   {ArgWorkItem: "octo/widgets#1", "record": map[string]any{}},
		"handoff_import": {ArgWorkItem: "issue-1"},
		"handoff_note":   {ArgWorkItem: "issue-1", "branch": "the-loop/x", "pullRequest": 1},
	} {
		res := callTool(t, c, name, args)
		assert.True(t, res.IsError, name)
		assert.Contains(t, resultText(t, res), name+" is not available", name)
	}
}

func TestHandoffShowToolWithoutAHandoff(t *testing.T) {
	r := newHandoffToolRig(t)
	c := loopClient(t, r.svc)
	res := callTool(t, c, "handoff_show", map[string]any{ArgWorkItem: r.id})
	require.False(t, res.IsError, resultText(t, res))
	assert.Equal(t, r.id+" carries no handoff: it walks the ordinary loop.", resultText(t, res))
	assert.Nil(t, structured(t, res)["handoff"])
}
