package artifacts

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

func TestEnforcesBoundariesFrom(t *testing.T) {
	designNode := &runtime.Node{ID: "design", Produces: []string{"design.md"}}
	params := map[string]any{"upstream": "requirements.md|bugfix.md", "markers": []any{"trust boundary", "Abuse case"}}
	tests := []struct {
		name   string
		node   *runtime.Node
		params map[string]any
		files  map[string]string
		status runtime.Status
		want   []string
	}{
		{
			name:   "no upstream declared",
			node:   designNode,
			params: map[string]any{"markers": []any{"trust boundary"}},
			status: runtime.Skip,
			want:   []string{"no upstream artifact declared"},
		},
		{
			name:   "upstream absent",
			node:   designNode,
			params: params,
			files:  map[string]string{"design.md": "x"},
			status: runtime.Skip,
			want:   []string{"upstream or downstream artifact absent"},
		},
		{
			name:   "node produces nothing",
			node:   &runtime.Node{ID: "n"},
			params: params,
			files:  map[string]string{"requirements.md": "trust boundary"},
			status: runtime.Skip,
			want:   []string{"upstream or downstream artifact absent"},
		},
		{
			name:   "markers named upstream and unanswered downstream block",
			node:   designNode,
			params: params,
			files: map[string]string{
				"requirements.md": "## Security\nThe TRUST BOUNDARY is the API. One abuse case: replay.\n",
				"design.md":       "---\nnote: trust boundary\n---\n## Architecture\nnothing about it\n",
			},
			status: runtime.Block,
			want: []string{
				"boundary named upstream is unanswered here: trust boundary",
				"boundary named upstream is unanswered here: Abuse case",
			},
		},
		{
			name:   "answered markers pass, case-insensitively",
			node:   designNode,
			params: params,
			files: map[string]string{
				"bugfix.md": "the trust boundary moves",
				"design.md": "## Security design\nTrust Boundary: unchanged.\n",
			},
			status: runtime.Pass,
		},
		{
			name:   "a marker absent upstream asks nothing",
			node:   designNode,
			params: params,
			files: map[string]string{
				"requirements.md": "plain",
				"design.md":       "plain",
			},
			status: runtime.Pass,
		},
		{
			name:   "upstream files read as one text: a marker spans two only across the newline joining them",
			node:   designNode,
			params: map[string]any{"upstream": "requirements.md|bugfix.md", "markers": []any{"Trust\nBoundary", "trustboundary", "trust boundary"}},
			files: map[string]string{
				"requirements.md": "---\nkind: x\n---\nthe TRUST",
				"bugfix.md":       "boundary moves",
				"design.md":       "nothing",
			},
			status: runtime.Block,
			want:   []string{"boundary named upstream is unanswered here: Trust\nBoundary"},
		},
		{
			name:   "only ASCII letters fold",
			node:   designNode,
			params: map[string]any{"upstream": "requirements.md", "markers": []any{"Été", "ÉTÉ"}},
			files: map[string]string{
				"requirements.md": "ÉTÉ",
				"design.md":       "été",
			},
			status: runtime.Block,
			want:   []string{"boundary named upstream is unanswered here: ÉTÉ"},
		},
		{
			name:   "a declared but missing downstream answers nothing",
			node:   &runtime.Node{ID: "design", Produces: []string{"design.md", "other.md"}},
			params: params,
			files:  map[string]string{"requirements.md": "abuse case", "other.md": "unrelated"},
			status: runtime.Block,
			want:   []string{"boundary named upstream is unanswered here: Abuse case"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := hooktest.NewContext(t, tt.node, tt.params)
			for n, text := range tt.files {
				hooktest.WriteArtifact(t, hc, n, text)
			}
			r, err := EnforceBoundaries(hc)
			require.NoError(t, err)
			assert.Equal(t, tt.status, r.Status, hooktest.Texts(r))
			assert.Equal(t, tt.want, hooktest.NilIfEmpty(hooktest.Texts(r)))
		})
	}
}

func TestEnforcesBoundariesFromRefusesTraversal(t *testing.T) {
	hc := hooktest.NewContext(t, &runtime.Node{ID: "design", Produces: []string{"design.md"}},
		map[string]any{"upstream": "../../../etc/passwd", "markers": []any{"root"}})
	hooktest.WriteArtifact(t, hc, "design.md", "x")
	r, err := EnforceBoundaries(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Block, r.Status)
	assert.False(t, r.Retriable)
	assert.Contains(t, r.Messages[0].Text, "is not a file inside the spec folder")
}

func TestEnforcesBoundariesFromUndecodableUpstreamIsAHookFailure(t *testing.T) {
	hc := hooktest.NewContext(t, &runtime.Node{ID: "design", Produces: []string{"design.md"}},
		map[string]any{"upstream": "requirements.md", "markers": []any{"x"}})
	hooktest.WriteArtifact(t, hc, "requirements.md", "\xff\xfe")
	hooktest.WriteArtifact(t, hc, "design.md", "x")
	_, err := EnforceBoundaries(hc)
	assert.ErrorContains(t, err, "docs/specs/issue-1/requirements.md")
}
