package mcp

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertListOffersNoHumanDecision lists the tools of a server built from
// tools and fails on any tool or argument name reserved for humans.
func assertListOffersNoHumanDecision(t *testing.T, tools []Tool) []mcp.Tool {
	t.Helper()
	c := inProcess(t, Deps{}, tools...)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	require.NoError(t, err)
	for _, tool := range list.Tools {
		assert.NoError(t, CheckToolName(tool.Name))
		for name := range tool.InputSchema.Properties {
			assert.NoError(t, CheckArgumentName(name), "tool %q", tool.Name)
		}
	}
	return list.Tools
}

func TestToolsListNeverOffersHumanDecisions(t *testing.T) {
	listed := assertListOffersNoHumanDecision(t, AllTools())
	assert.Len(t, listed, len(AllTools()), "every shipped tool is listed")

	// The same check over a server that does list a tool, so it is seen
	// to look at real entries.
	listed = assertListOffersNoHumanDecision(t, append(AllTools(), echoTool))
	require.Len(t, listed, len(AllTools())+1)
}

func TestCheckToolName(t *testing.T) {
	forbidden := []string{
		"force", "force_transition", "graph_force", "declare_skip", "skip_node", "tick_checklist",
		"checklist_untick", "answer_checklist", "approve_gate", "gate_approval", "set_config",
		"update_configuration", "configure", "change_settings", "bypass_gate", "override_check",
		"waive_check", "forceComplete",
	}
	for _, name := range forbidden {
		assert.Error(t, CheckToolName(name), name)
	}
	allowed := []string{"check", "graph_status", "graph_complete", "handoff", "ticket_read", "continuity_note", "gate_status"}
	for _, name := range allowed {
		assert.NoError(t, CheckToolName(name), name)
	}
	err := CheckToolName("approve_gate")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "only an authorized human may do on the ticket")
}

func TestCheckArgumentName(t *testing.T) {
	for _, name := range []string{"force", "skip", "skipChecks", "approved", "override_gate", "answer"} {
		assert.Error(t, CheckArgumentName(name), name)
	}
	for _, name := range []string{"workItem", "node", "repo", "artifact", "limit"} {
		assert.NoError(t, CheckArgumentName(name), name)
	}
}
