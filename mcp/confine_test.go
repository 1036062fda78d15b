package mcp

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/handoff/handofftest"
	"github.com/the-loop/the-loop/mcp/transport"
)

// A session's server (serve --work-item) answers for its own item only, and
// never posts a handoff or creates a ticket.
func TestConfinedServerAnswersForItsItemOnly(t *testing.T) {
	repo := copyFixture(t)
	svc := newLoopService(t, repo)
	c := inProcess(t, Deps{Backend: svc, DefaultRepo: repo, WorkItem: "issue-2", Operator: "dev"}, AllTools()...)

	res := callTool(t, c, "check", map[string]any{ArgWorkItem: "issue-2"})
	require.False(t, res.IsError, resultText(t, res))
	res = callTool(t, c, "graph_status", map[string]any{})
	require.False(t, res.IsError, resultText(t, res))
	assert.Equal(t, "issue-2", structured(t, res)["workItem"], "an absent workItem is the confined one")

	refusals := []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"another item", "check", map[string]any{ArgWorkItem: "issue-3"}, "it answers for issue-2 only, never issue-3"},
		{"another item's claim", "graph_complete", map[string]any{ArgWorkItem: "issue-3"}, "never issue-3"},
		{"every item", "check", map[string]any{"all": true}, "`all` is refused"},
		{"another repository", "graph_status", map[string]any{"repo": t.TempDir()}, "its own working tree only"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			res := callToolAs(t, c, stdioCaller, tt.tool, tt.args)
			assert.True(t, res.IsError)
			assert.Contains(t, resultText(t, res), tt.want)
			assert.Contains(t, resultText(t, res), "Nothing was done")
		})
	}

	// It lists only the tools it answers; the others are not there to call.
	listed, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	require.NoError(t, err)
	var names []string
	for _, tool := range listed.Tools {
		names = append(names, tool.Name)
	}
	assert.ElementsMatch(t, []string{"check", "graph_status", "graph_complete", "graph_show", "pr_create", "graph_repos", "critic_list", "critic_run",
		"handoff_show", "handoff_import", "continuity_update", "continuity_brief", "continuity_prompt"}, names)
	for _, tool := range []string{"handoff_post", "ticket_create", "handoff_note", "ticket_projects", "plan", "continuity_resume"} {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, map[string]any{}
		_, err := c.CallTool(context.Background(), req)
		assert.ErrorContains(t, err, "not found", "%s is not served", tool)
	}
}

// A session's server answers claims of the node its session was launched
// for only (of its pull request's loop, when it works one).
func TestConfinedServerClaimsItsSessionsNodeOnly(t *testing.T) {
	repo := copyFixture(t)
	svc := newLoopService(t, repo)
	c := inProcess(t, Deps{Backend: svc, DefaultRepo: repo, WorkItem: "issue-2", Node: "design", Operator: "dev"}, AllTools()...)
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"node": "requirements-approval"}, "its session was launched for design and claims that node only, never requirements-approval"},
		{map[string]any{"pr": 7}, "never one of pull request 7"},
		{map[string]any{"prRepo": "octo/infra"}, "never one of octo/infra"},
	} {
		res := callTool(t, c, "graph_complete", tt.args)
		assert.True(t, res.IsError)
		assert.Contains(t, resultText(t, res), tt.want)
	}
	res := callTool(t, c, "graph_complete", map[string]any{})
	assert.NotContains(t, resultText(t, res), "its session was launched for", "its own node is claimed")

	pr := inProcess(t, Deps{Backend: svc, DefaultRepo: repo, WorkItem: "issue-2", Node: "implementation", PR: 7, PRRepo: "octo/infra", Operator: "dev"}, AllTools()...)
	res = callTool(t, pr, "graph_complete", map[string]any{"pr": 8})
	assert.Contains(t, resultText(t, res), "its session was launched for implementation of octo/infra#7 and claims that node only, never one of pull request 8")
}

// A handoff record is posted for the caller's person: the operator on
// stdio and for the static token, the OAuth subject — never the loop, and
// never for nobody or for someone unauthorized.
func TestHandoffPostIsAttributedToTheCaller(t *testing.T) {
	r := newHandoffToolRig(t)
	c := loopClient(t, r.svc)
	rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageRequirementsSettled, CarriedBy: handoff.CarriedByArtifact})
	args := map[string]any{ArgWorkItem: r.ref.String(), "record": recordArg(t, rec)}

	res := callTool(t, c, "handoff_post", args)
	assert.True(t, res.IsError, "no authenticated caller")
	assert.Contains(t, resultText(t, res), "nobody to attribute the record to")
	res = callToolAs(t, c, transport.Principal{Subject: "mallory", Method: "oauth"}, "handoff_post", args)
	assert.True(t, res.IsError)
	assert.Contains(t, resultText(t, res), "@mallory is not in routing.authorizedUsers")
	assert.Empty(t, r.gh.Comments(r.ref), "nothing is posted")

	for _, tt := range []struct {
		p    transport.Principal
		want string
	}{
		{transport.Principal{Subject: "alice", Method: "oauth"}, "alice"},
		{transport.Principal{Subject: "bearer", Method: "bearer"}, "dev"},
		{stdioCaller, "dev"},
	} {
		res = callToolAs(t, c, tt.p, "handoff_post", args)
		require.False(t, res.IsError, resultText(t, res))
		cs := r.gh.Comments(r.ref)
		by, ok := handoff.PostedBy(cs[len(cs)-1].Body)
		require.True(t, ok)
		assert.Equal(t, tt.want, by, tt.p.Method)
	}
}
