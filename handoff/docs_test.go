package handoff_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/handoff"
)

// TestDocsListEveryRejectionCode keeps docs/handoff.md's table of rejection
// reasons complete.
func TestDocsListEveryRejectionCode(t *testing.T) {
	doc, err := os.ReadFile("../docs/handoff.md")
	require.NoError(t, err)
	for _, c := range handoff.Codes() {
		assert.True(t, strings.Contains(string(doc), "| `"+string(c)+"` |"), "docs/handoff.md does not list %s", c)
	}
	for _, s := range handoff.Stages() {
		assert.True(t, strings.Contains(string(doc), "| `"+s+"`"), "docs/handoff.md stage table lacks %s", s)
	}
}

// TestDocsExampleParses checks the wire example in docs/handoff.md is a
// record the parser accepts.
func TestDocsExampleParses(t *testing.T) {
	doc, err := os.ReadFile("../docs/handoff.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(doc), "````text\n")
	require.True(t, ok, "the wire example is missing")
	example, _, ok := strings.Cut(rest, "\n````\n")
	require.True(t, ok)
	rec, err := handoff.Parse(example)
	require.NoError(t, err)
	assert.Equal(t, handoff.NodeRequirementsApproval, rec.Enter)
	assert.Equal(t, []string{handoff.Brainstorm}, rec.ApprovedInChat)
}
