package mcp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/continuity"
)

// Fault 11 (continuity): a set that refuses updates can be resumed over MCP;
// no one has to reach for the CLI.
func TestContinuityResumeToolRevivesASetThatRefusesUpdates(t *testing.T) {
	dir := liveCheckout(t)
	set, err := continuity.Open(dir)
	require.NoError(t, err)
	_, err = set.End(continuity.EndOptions{Kind: continuity.EndInterrupted, Next: "write the parser tests"})
	require.NoError(t, err)
	c := loopClient(t, newLoopService(t, dir))

	res := callTool(t, c, "continuity_update", map[string]any{"kind": "decision", "text": "x"})
	require.True(t, res.IsError)
	assert.Contains(t, resultText(t, res), "the continuity_resume tool")

	res = callTool(t, c, "continuity_resume", map[string]any{})
	require.False(t, res.IsError, resultText(t, res))
	got := structured(t, res)
	assert.Equal(t, continuity.ModeResumed, got["mode"])
	assert.Equal(t, "write the parser tests", got["nextAction"])
	assert.Contains(t, resultText(t, res), "resumed: session ")

	res = callTool(t, c, "continuity_update", map[string]any{"kind": "decision", "text": "parse with encoding/csv"})
	require.False(t, res.IsError, resultText(t, res))

	fresh := gitCheckout(t)
	res = callTool(t, loopClient(t, newLoopService(t, fresh)), "continuity_resume", map[string]any{})
	require.True(t, res.IsError)
	assert.Contains(t, resultText(t, res), "no goal to start a fresh one")
}
