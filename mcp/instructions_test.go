package mcp

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
)

// The server's instructions work as written: the ids they give as examples
// are ids, the reference they warn about is refused, the tools they name
// exist, and following them on the fixture — list with check all, then
// graph_status on a listed id — succeeds.
func TestInstructionsWorkAsWritten(t *testing.T) {
	for _, id := range []string{"issue-12", "PROJ-12"} {
		assert.Contains(t, Instructions, id)
		assert.NoError(t, runtime.ValidateID(id), "an example id in the instructions is a valid id")
	}
	assert.Regexp(t, `such as OWNER/REPO#12 or a URL is not an id`, Instructions, "the ticket reference is named only as what an id is not")
	assert.Error(t, runtime.ValidateID("OWNER/REPO#12"))
	names := map[string]bool{}
	for _, tool := range AllTools() {
		names[tool.Def.Name] = true
	}
	for _, named := range regexp.MustCompile(`\b[a-z]+_[a-z_]+\b|\bcheck\b`).FindAllString(Instructions, -1) {
		assert.True(t, names[named], "the instructions name %s, which the server lists", named)
	}

	c := loopClient(t, newLoopService(t, copyFixture(t)))
	res := callTool(t, c, "check", map[string]any{"all": true})
	require.False(t, res.IsError, resultText(t, res))
	reports := structured(t, res)["reports"].([]any)
	require.NotEmpty(t, reports)
	for _, r := range reports {
		id := r.(map[string]any)["workItem"].(string)
		res = callTool(t, c, "graph_status", map[string]any{"workItem": id})
		assert.False(t, res.IsError, "graph_status on the listed %s: %s", id, resultText(t, res))
	}
	res = callTool(t, c, "graph_status", map[string]any{"workItem": "octo/widgets#2"})
	require.True(t, res.IsError)
	assert.Contains(t, resultText(t, res), "an id is a spec folder name")
}

func TestInstructionsOfAConfinedServerNameItsItem(t *testing.T) {
	assert.Equal(t, Instructions, instructionsFor(""))
	got := instructionsFor("issue-12")
	assert.Contains(t, got, Instructions)
	assert.Contains(t, got, "it answers for issue-12 only")
}
