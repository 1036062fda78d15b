package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/mcp/transport"
)

// Fault 11 (tool output): whatever a caller sends, one tool result stays
// within MaxToolResultBytes, and a refusal never repeats a long argument
// back (a 10 MB argument used to come back up to four times in one line;
// one past mcp.maxArgumentBytes is now refused before any tool reads it).
func TestToolOutputIsCappedAndNeverEchoesALongArgument(t *testing.T) {
	dir := liveCheckout(t)
	c := loopClient(t, newLoopService(t, dir))
	huge := strings.Repeat("A", 1<<20) // past the argument cap: refused before any tool reads it
	// Under the cap and 32 times longer than any refusal may repeat: every
	// tool and argument is called with it, so its size is the test's cost
	// (under -race, JSON in and out), not its proof.
	big := huge[:32*echoLimit]
	chunk := big[:2000]
	check := func(t *testing.T, tool string, args map[string]any) {
		res := callTool(t, c, tool, args)
		wire, err := json.Marshal(res)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(wire), MaxToolResultBytes+4096, "%s: the result is capped", tool)
		if res.IsError {
			assert.NotContains(t, string(wire), chunk, "%s: a refusal does not repeat the argument", tool)
		}
	}
	t.Run("megabytes", func(t *testing.T) {
		check(t, "continuity_prompt", map[string]any{"task": huge})
		check(t, "graph_status", map[string]any{"workItem": huge})
	})
	for _, tool := range AllTools() {
		t.Run(tool.Def.Name, func(t *testing.T) {
			for name, prop := range tool.Def.InputSchema.Properties {
				switch typ, _ := prop.(map[string]any)["type"].(string); typ {
				case "string":
					check(t, tool.Def.Name, map[string]any{name: big})
				case "array":
					check(t, tool.Def.Name, map[string]any{name: []any{big}})
				}
			}
			check(t, tool.Def.Name, map[string]any{"x" + big: "unknown"})
		})
	}
}

func TestBoundResultKeepsSmallResultsAsTheyAre(t *testing.T) {
	dir := liveCheckout(t)
	c := loopClient(t, newLoopService(t, dir))
	res := callTool(t, c, "continuity_prompt", map[string]any{"task": "Review the importer error handling"})
	require.False(t, res.IsError, resultText(t, res))
	assert.Contains(t, resultText(t, res), "Review the importer error handling")
	assert.NotNil(t, res.StructuredContent)
	res = callTool(t, c, "graph_status", map[string]any{"workItem": "../" + strings.Repeat("b", 300)})
	require.True(t, res.IsError)
	assert.Contains(t, resultText(t, res), "[workItem: 303 bytes, not repeated]", "the refusal names the argument it did not repeat")
	assert.Contains(t, resultText(t, res), "is not a plain folder name", "and keeps its reason")
}

func TestCapResultCutsOnARuneBoundary(t *testing.T) {
	text := strings.Repeat("é", MaxToolResultBytes) // 2 bytes a rune
	res := capResult(&mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, StructuredContent: map[string]any{"x": 1}})
	require.Len(t, res.Content, 1)
	got := res.Content[0].(mcp.TextContent).Text
	assert.True(t, utf8.ValidString(got))
	assert.Nil(t, res.StructuredContent, "structured content over the bound is dropped")
	assert.Contains(t, got, "over the 1048576-byte limit of one tool result")
	assert.LessOrEqual(t, len(got), MaxToolResultBytes)
}

// A result's structured content is encoded once, and leaves in the form
// its transport writes at the least cost (transport.StructuredForm): with
// no transport to say, the value, which mcp-go encodes itself.
func TestBoundResultHandsEachTransportItsForm(t *testing.T) {
	value := map[string]any{"workItem": "issue-2", "ok": false}
	res := boundResult(context.Background(), mcp.CallToolRequest{}, result(value, "issue-2: UNMET", nil))
	assert.Equal(t, value, res.StructuredContent, "mcp-go encodes the value itself")

	report := map[string]any{"workItem": "issue-3"}
	encoded := transport.Encoded{Value: report, JSON: []byte(`{"workItem":"issue-3"}`)}
	res = boundResult(context.Background(), mcp.CallToolRequest{}, result(encoded, "issue-3: ok", nil))
	assert.Equal(t, report, res.StructuredContent, "an encoded answer is handed over as its value")

	res = capResult(result(value, "issue-2: UNMET", nil))
	got, ok := res.StructuredContent.(transport.Encoded)
	require.True(t, ok, "a line transport gets the value with its encoding")
	assert.JSONEq(t, `{"workItem":"issue-2","ok":false}`, string(got.JSON))
	assert.Equal(t, value, got.Value)
}
