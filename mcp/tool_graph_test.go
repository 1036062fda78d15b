package mcp

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/service"
)

func TestGraphStatusTool(t *testing.T) {
	repo := copyFixture(t)
	c := loopClient(t, newLoopService(t, repo))

	res := callTool(t, c, "graph_status", map[string]any{"workItem": "issue-2"})
	require.False(t, res.IsError, resultText(t, res))
	gs := structured(t, res)
	assert.Equal(t, "issue-2", gs["workItem"])
	assert.Equal(t, true, gs["started"])
	assert.Equal(t, "requirements-definition", gs["currentNode"])
	assert.Equal(t, "block", gs["status"])
	assert.Contains(t, gs["needs"], "required section is empty: Security considerations (docs/specs/issue-2/requirements.md)")
	assert.Equal(t, gs["graphContext"], resultText(t, res), "the text is the graph context block for the prompt")
	assert.Contains(t, resultText(t, res), "claim it: the graph_complete tool")

	res = callTool(t, c, "graph_status", map[string]any{"workItem": "issue-1"})
	require.False(t, res.IsError)
	assert.Equal(t, false, structured(t, res)["started"])
	assert.Contains(t, resultText(t, res), "NOT ENTERED YET")
}

func TestGraphStatusToolRefusals(t *testing.T) {
	c := loopClient(t, newLoopService(t, copyFixture(t)))
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no work item", map[string]any{}, `missing required argument "workItem"`},
		{"id with a path", map[string]any{"workItem": "a/b"}, "not a plain folder name"},
		{"missing repository", map[string]any{"workItem": "issue-2", "repo": "/no/such/checkout"}, "not a readable directory"},
		{"a misspelled id", map[string]any{"workItem": "isue-2"}, `unknown work item "isue-2"`},
		{"a misspelled id names the nearest", map[string]any{"workItem": "isue-2"}, `did you mean "issue-2"?`},
		{"an id with a space", map[string]any{"workItem": "issue 2"}, "an id is a spec folder name"},
		{"a ticket reference is not an id", map[string]any{"workItem": "octo/widgets#2"}, "such as issue-12, PROJ-12"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := callTool(t, c, "graph_status", tt.args)
			require.True(t, res.IsError)
			assert.Contains(t, resultText(t, res), tt.want)
		})
	}
}

func TestGraphShowTool(t *testing.T) {
	c := loopClient(t, newLoopService(t, t.TempDir()))
	res := callTool(t, c, "graph_show", map[string]any{})
	require.False(t, res.IsError, resultText(t, res))
	view := structured(t, res)
	assert.Equal(t, "pdlc-work-item-loop", view["name"])
	assert.Equal(t, "phase-selection", view["start"])
	assert.NotEmpty(t, view["nodes"])
	assert.NotEmpty(t, view["edges"])
	assert.Contains(t, resultText(t, res), "pdlc-work-item-loop v")

	for _, loop := range service.Loops() {
		res := callTool(t, c, "graph_show", map[string]any{"loop": loop})
		require.False(t, res.IsError, "loop %s: %s", loop, resultText(t, res))
		assert.Equal(t, loop, structured(t, res)["name"])
	}

	res = callTool(t, c, "graph_show", map[string]any{"loop": "my-own-loop"})
	require.True(t, res.IsError)
	assert.Contains(t, resultText(t, res), `argument "loop" must be one of`)
}

func TestGraphCompleteTool(t *testing.T) {
	repo := copyFixture(t)
	svc := newLoopService(t, repo)
	c := loopClient(t, svc)

	// issue-2 sits at requirements-definition with an empty required
	// section: the claim runs the exit checks and returns the finding.
	res := callTool(t, c, "graph_complete", map[string]any{"workItem": "issue-2"})
	require.False(t, res.IsError, resultText(t, res))
	env := structured(t, res)
	assert.Equal(t, "requirements-definition", env["node"])
	assert.Equal(t, "block", env["status"])
	assert.Equal(t, false, env["moved"])
	assert.Contains(t, env["messages"], "required section is empty: Security considerations (docs/specs/issue-2/requirements.md)")
	assert.Contains(t, resultText(t, res), "requirements-definition: block")
	assert.Contains(t, resultText(t, res), "- required section is empty: Security considerations")

	evlog, err := svc.Events(context.Background(), service.ItemRequest{WorkItem: "issue-2"})
	evs := evlog.Events
	require.NoError(t, err)
	var claims []map[string]any
	for _, e := range evs {
		if e.Name == "graph.completion_claimed" {
			claims = append(claims, e.Data)
		}
	}
	require.Len(t, claims, 1)
	assert.Equal(t, "mcp", claims[0]["by"], "the claim is recorded as made through MCP")

	// The same failing check twice in a row escalates to a human.
	res = callTool(t, c, "graph_complete", map[string]any{"workItem": "issue-2"})
	require.False(t, res.IsError)
	assert.Equal(t, "escalated", structured(t, res)["currentNode"])
}

func TestGraphCompleteToolRefusals(t *testing.T) {
	repo := copyFixture(t)
	c := loopClient(t, newLoopService(t, repo))
	tests := []struct {
		name   string
		args   map[string]any
		status string
		reason string
		want   string
	}{
		{"never started", map[string]any{"workItem": "issue-1"}, "refused", "not-started", "has not entered the graph"},
		{"human gate", map[string]any{"workItem": "issue-3"}, "refused", "human-gate", "design-approval is a human gate"},
		{"node ahead of the current one", map[string]any{"workItem": "issue-2", "node": "design"}, "refused", "not-current", `the current node is "requirements-definition"`},
		{"node behind the current one", map[string]any{"workItem": "issue-2", "node": "phase-selection"}, "noop", "already-past", "behind it"},
		{"unknown node", map[string]any{"workItem": "issue-2", "node": "deploy"}, "refused", "unknown-node", `has no node "deploy"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := callTool(t, c, "graph_complete", tt.args)
			require.False(t, res.IsError, "a refused claim is a verdict, not a failure: %s", resultText(t, res))
			env := structured(t, res)
			assert.Equal(t, tt.status, env["status"])
			assert.Equal(t, tt.reason, env["reason"])
			assert.Equal(t, false, env["moved"])
			assert.Contains(t, resultText(t, res), tt.want)
		})
	}

	for name, args := range map[string]map[string]any{
		"no work item":   {},
		"id with a path": {"workItem": "../issue-2"},
		"force argument": {"workItem": "issue-2", "force": true},
		"skip argument":  {"workItem": "issue-2", "skip": true},
	} {
		t.Run(name, func(t *testing.T) {
			res := callTool(t, c, "graph_complete", args)
			assert.True(t, res.IsError, resultText(t, res))
		})
	}
}
