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
		name   string
		text   string
		faults []string
		notes  []string
	}{
		{name: "valid flowchart", text: "```mermaid\nflowchart TD\n  A[\"ok\"] --> B\n```\n"},
		{name: "leading blank lines are trimmed", text: "```mermaid\n\n   \nsequenceDiagram\n  A->>B: hi\n```\n"},
		{name: "a type that is not parsed is named, not faulted", text: "```mermaid\nstateDiagram-v2\n```\n",
			notes: []string{"mermaid block 1: mermaid diagram type stateDiagram-v2 is not checked"}},
		{name: "empty", text: "```mermaid\n  \n```\n", faults: []string{"mermaid block 1 is empty"}},
		{name: "no diagram type", text: "```mermaid\nA --> B\n```\n",
			faults: []string{`mermaid block 1 does not start with a diagram type (found "A --> B")`}},
		{name: "long first line is cut to 40 characters", text: "```mermaid\n" + strings.Repeat("é", 50) + "\n```\n",
			faults: []string{`mermaid block 1 does not start with a diagram type (found "` + strings.Repeat("é", 40) + `")`}},
		// A backtick inside a quoted label is valid mermaid (the old
		// heuristic blocked it); text before the quote is not.
		{name: "backtick in a quoted label is valid; a space before the quote is not",
			text:   "```mermaid\n\ngraph TD\n  A[\"run `go test`\"] --> B\n  C[ \"x`\"]\n  D[plain `tick`]\n```\n",
			faults: []string{"mermaid block 1 line 3: node C: the label contains \"\\\"\" — put the whole label in quotes"}},
		{name: "an unclosed node is a fault", text: "```mermaid\ngraph TD\n  A[open --> B\n```\n",
			faults: []string{"mermaid block 1 line 2: node A: the label opened here is never closed with ]"}},
		{name: "text after a statement is a fault", text: "```mermaid\ngraph TD\n  A[\"ok\"] `x`\n```\n",
			faults: []string{"mermaid block 1 line 2: unexpected \"`x`\" — a statement ends at a newline or ;"}},
		{name: "numbering across blocks", text: "```mermaid\ngraph TD\n```\n```mermaid\n```\n", faults: []string{"mermaid block 2 is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			faults, notes := CheckMermaid(MermaidBlocks(tt.text))
			assert.Equal(t, faults, LintMermaid(MermaidBlocks(tt.text)), "LintMermaid is CheckMermaid's faults")
			assert.Equal(t, tt.faults, faults)
			assert.Equal(t, tt.notes, notes)
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
