package mermaid_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/markdown"
)

// TestRepositoryDocsDiagramsParse parses every diagram in the README and
// docs/, so the project's own pages pass the check it ships.
func TestRepositoryDocsDiagramsParse(t *testing.T) {
	root := filepath.Join("..", "..")
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	pages = append(pages, filepath.Join(root, "README.md"))
	blocks := 0
	for _, p := range pages {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		bs := markdown.MermaidBlocks(string(data))
		blocks += len(bs)
		faults, notes := markdown.CheckMermaid(bs)
		assert.Empty(t, faults, p)
		assert.Empty(t, notes, p)
	}
	assert.Positive(t, blocks, "docs/process.md carries the generated loop diagrams")
}
