package mcp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What the core warns about reaches the model: every tool appends the
// core's warnings to its text, one line each.
func TestToolsPassTheCoresWarningsOn(t *testing.T) {
	repo := copyFixture(t)
	// A repository cannot override the shipped graphs: the core says so.
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".the-loop", "graph.yaml"), []byte("nodes: []\n"), 0o644))
	c := loopClient(t, newLoopService(t, repo))
	for name, args := range map[string]map[string]any{
		"check":          {"workItem": "issue-2"},
		"graph_status":   {"workItem": "issue-2"},
		"graph_complete": {"workItem": "issue-3"},
		"handoff_show":   {"workItem": "issue-2"},
	} {
		t.Run(name, func(t *testing.T) {
			res := callTool(t, c, name, args)
			require.False(t, res.IsError, resultText(t, res))
			assert.Contains(t, resultText(t, res), "\nwarning: ignoring .the-loop/graph.yaml: the shipped graphs cannot be overridden by a repository")
		})
	}
}
