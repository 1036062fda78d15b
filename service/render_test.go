package service

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/internal/mermaid"
)

// TestShippedLoopDiagramsParse renders every shipped loop the way
// `graph show --format mermaid` does and parses it with the diagram check.
func TestShippedLoopDiagramsParse(t *testing.T) {
	for _, name := range graphs.Names() {
		g, err := Graph(name)
		require.NoError(t, err)
		res := mermaid.Check(Mermaid(g))
		assert.True(t, res.Checked, name)
		assert.Empty(t, res.Findings, name)
	}
}
