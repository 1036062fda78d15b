package artifacts

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

func TestLintArtifacts(t *testing.T) {
	node := &runtime.Node{ID: "design", Produces: []string{"design.md"}}
	badDiagram := "# D\n```mermaid\nA --> B\n```\n```mermaid\n```\n"
	long := strings.Repeat("word ", 30)
	tests := []struct {
		name   string
		params map[string]any
		files  map[string]string
		status runtime.Status
		want   []string
	}{
		{
			name:   "nothing produced",
			files:  map[string]string{"execution-log.md": badDiagram},
			status: runtime.Skip,
			want:   []string{"no artifacts to lint"},
		},
		{
			name:   "diagram findings carry the file",
			files:  map[string]string{"design.md": badDiagram},
			status: runtime.Block,
			want: []string{
				`mermaid block 1 does not start with a diagram type (found "A --> B") (docs/specs/issue-1/design.md)`,
				"mermaid block 2 is empty (docs/specs/issue-1/design.md)",
			},
		},
		{
			name:   "diagrams can be turned off",
			params: map[string]any{"diagrams": false},
			files:  map[string]string{"design.md": badDiagram},
			status: runtime.Pass,
		},
		{
			name:   "no line limit by default",
			files:  map[string]string{"design.md": long},
			status: runtime.Pass,
		},
		{
			name:   "line limit outside fences",
			params: map[string]any{"maxLineLength": 100},
			files:  map[string]string{"design.md": "ok\n" + long + "\n```\n" + long + "\n```\n"},
			status: runtime.Block,
			want:   []string{"line 2 exceeds 100 characters (docs/specs/issue-1/design.md)"},
		},
		{
			name:   "a diagram type the parser does not read passes with a note",
			files:  map[string]string{"design.md": "# D\n```mermaid\npie title Share\n  \"a\" : 1\n```\n"},
			status: runtime.Pass,
			want:   []string{"mermaid block 1: mermaid diagram type pie is not checked (docs/specs/issue-1/design.md)"},
		},
		{
			name:   "the note rides along with a block",
			files:  map[string]string{"design.md": "```mermaid\nclassDiagram\n```\n```mermaid\nflowchart TD\n  A[open\n```\n"},
			status: runtime.Block,
			want: []string{
				"mermaid block 2 line 2: node A: the label opened here is never closed with ] (docs/specs/issue-1/design.md)",
				"mermaid block 1: mermaid diagram type classDiagram is not checked (docs/specs/issue-1/design.md)",
			},
		},
		{
			name:   "a clean artifact passes",
			params: map[string]any{"maxLineLength": 100},
			files:  map[string]string{"design.md": "# D\n```mermaid\nflowchart LR\n  a --> b\n```\n"},
			status: runtime.Pass,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := hooktest.NewContext(t, node, tt.params)
			for n, text := range tt.files {
				hooktest.WriteArtifact(t, hc, n, text)
			}
			r, err := LintArtifacts(hc)
			require.NoError(t, err)
			assert.Equal(t, tt.status, r.Status, hooktest.Texts(r))
			assert.Equal(t, tt.want, hooktest.NilIfEmpty(hooktest.Texts(r)))
		})
	}
}

func TestLintArtifactsLintsEveryPresentAlternative(t *testing.T) {
	hc := hooktest.NewContext(t, &runtime.Node{ID: "r", Produces: []string{"requirements.md|bugfix.md"}}, nil)
	hooktest.WriteArtifact(t, hc, "requirements.md", "```mermaid\n```\n")
	hooktest.WriteArtifact(t, hc, "bugfix.md", "```mermaid\n```\n")
	r, err := LintArtifacts(hc)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"mermaid block 1 is empty (docs/specs/issue-1/requirements.md)",
		"mermaid block 1 is empty (docs/specs/issue-1/bugfix.md)",
	}, hooktest.Texts(r))
}

func TestLintArtifactsRejectsABadLimit(t *testing.T) {
	for _, v := range []any{"eighty", -5, 1.5} {
		hc := hooktest.NewContext(t, &runtime.Node{ID: "d", Produces: []string{"d.md"}}, map[string]any{"maxLineLength": v})
		_, err := LintArtifacts(hc)
		assert.ErrorContains(t, err, "maxLineLength", "%v", v)
	}
}
