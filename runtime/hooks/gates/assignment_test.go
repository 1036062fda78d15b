package gates

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

// TestAssignmentNamesNoCommandForASkippedOrFinishedNode: an assignment tells
// a session which command to run only where there is work left to do.
func TestAssignmentNamesNoCommandForASkippedOrFinishedNode(t *testing.T) {
	g := hooktest.CompileShipped(t, "pdlc-work-item-loop")
	design, _ := g.Node("design")
	complete, ok := g.Node("complete")
	require.True(t, ok)
	require.Equal(t, "finish-tasks", complete.Command, "the graph names a command on its terminal node")

	tests := []struct {
		name    string
		node    *runtime.Node
		status  string
		command bool
		claim   bool
	}{
		{"entered", design, "", true, true},
		{"blocked", design, string(runtime.Block), true, true},
		{"skipped by declaration", design, string(runtime.Skip), false, true},
		{"passed, waiting for the claim", design, string(runtime.Pass), false, true},
		{"the finished walk", complete, string(runtime.Pass), false, false},
		{"the finished walk, not evaluated", complete, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := AssignmentText(g, tt.node, Assignment{WorkItem: "issue-7", Status: tt.status})
			if tt.command {
				assert.Contains(t, text, "work it with: `/the-loop:"+tt.node.Command+" issue-7`")
			} else {
				assert.NotContains(t, text, "work it with")
				assert.NotContains(t, text, "/the-loop:")
			}
			if tt.claim {
				assert.Contains(t, text, "report back: `the-loop graph complete issue-7`")
			} else {
				assert.NotContains(t, text, "graph complete")
				assert.Contains(t, text, "the walk is finished here; there is nothing to claim")
			}
		})
	}
}

// TestAPullRequestLoopsAssignmentNamesItsOwnRecordFolder: a pull request
// loop's review record is assigned under the loop's own folder, where its
// gate reads it; what it reads from the item keeps its bare name.
func TestAPullRequestLoopsAssignmentNamesItsOwnRecordFolder(t *testing.T) {
	g := hooktest.CompileShipped(t, "pdlc-pr-loop")
	var review *runtime.Node
	for _, id := range []string{"self-review", "critic-review"} {
		n, ok := g.Node(id)
		require.True(t, ok, id)
		require.NotEmpty(t, n.Produces, id)
		review = n
		text := AssignmentText(g, n, Assignment{WorkItem: "issue-7", PR: 8, LoopDir: "pr-loops/pr-8"})
		assert.Contains(t, text, "  produce: pr-loops/pr-8/"+n.Produces[0]+"\n", id)
	}
	assert.Contains(t, AssignmentText(g, review, Assignment{WorkItem: "issue-7"}), "  produce: "+review.Produces[0]+"\n",
		"the item's own loop keeps the bare name")
	other := &runtime.Node{ID: "x", Produces: []string{"design.md"}}
	assert.Contains(t, AssignmentText(g, other, Assignment{WorkItem: "issue-7", PR: 8, LoopDir: "pr-loops/pr-8"}), "  produce: design.md\n",
		"a file that is not a record stays the item's")
}
