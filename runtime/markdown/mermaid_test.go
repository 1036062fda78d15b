package markdown

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMermaidBlocks(t *testing.T) {
	text := "# T\n```mermaid\nflowchart LR\n  a --> b\n```\ntext\n  ```mermaid  \n```\n```mermaid\nnever closed\n"
	blocks := MermaidBlocks(text)
	require.Len(t, blocks, 2)
	assert.Equal(t, Block{Index: 1, Line: 2, Lines: []string{"flowchart LR", "  a --> b"}}, blocks[0])
	assert.Equal(t, Block{Index: 2, Line: 7}, blocks[1])
}

func TestLintMermaid(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"valid flowchart", "```mermaid\nflowchart TD\n  A[\"ok\"] --> B\n```\n", nil},
		{"leading blank lines are trimmed", "```mermaid\n\n   \nsequenceDiagram\n  A->>B: hi\n```\n", nil},
		{"stateDiagram-v2 prefix", "```mermaid\nstateDiagram-v2\n```\n", nil},
		{"empty", "```mermaid\n  \n```\n", []string{"mermaid block 1 is empty"}},
		{"no diagram type", "```mermaid\nA --> B\n```\n",
			[]string{`mermaid block 1 does not start with a diagram type (found "A --> B")`}},
		{"long first line is cut to 40 characters", "```mermaid\n" + strings.Repeat("é", 50) + "\n```\n",
			[]string{`mermaid block 1 does not start with a diagram type (found "` + strings.Repeat("é", 40) + `")`}},
		{"backtick in a label", "```mermaid\n\ngraph TD\n  A[\"run `go test`\"] --> B\n  C[ \"x`\"]\n  D[plain `tick`]\n```\n",
			[]string{
				"mermaid block 1 line 2: a backtick inside a node label breaks rendering — use plain text",
				"mermaid block 1 line 3: a backtick inside a node label breaks rendering — use plain text",
			}},
		{"backtick after the closing quote is fine", "```mermaid\ngraph TD\n  A[\"ok\"] `x`\n```\n", nil},
		{"numbering across blocks", "```mermaid\ngraph TD\n```\n```mermaid\n```\n", []string{"mermaid block 2 is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, LintMermaid(MermaidBlocks(tt.text)))
		})
	}
}

func TestLongLines(t *testing.T) {
	long := strings.Repeat("word ", 20) // 100 characters
	text := "short\n" + long + "\n```\n" + long + "\n```\n" + strings.Repeat("x", 100) + "\n" + strings.Repeat("é ", 30) + "\n"
	assert.Equal(t, []int{2}, LongLines(text, 80))
	assert.Equal(t, []int{2, 7}, LongLines(text, 50))
	assert.Nil(t, LongLines(text, 0))
}
