package mcp

import (
	"testing"

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
		{"handoff_post", "handoff_post", map[string]any{ArgWorkItem: "octo/widgets#2", "record": map[string]any{}}, "a handoff needs the developer present"},
		{"ticket_create", "ticket_create", map[string]any{"system": "github", "title": "x"}, "a new ticket needs the developer present"},
		{"handoff_note", "handoff_note", map[string]any{ArgWorkItem: "issue-2", "branch": "the-loop/x", "pullRequest": 1}, "is not available here"},
		{"ticket_projects", "ticket_projects", map[string]any{}, "is not available here"},
		{"plan", "plan", map[string]any{"item": "#1"}, "is not available here"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			res := callToolAs(t, c, stdioCaller, tt.tool, tt.args)
			assert.True(t, res.IsError)
			assert.Contains(t, resultText(t, res), tt.want)
			assert.Contains(t, resultText(t, res), "Nothing was done")
		})
	}
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
