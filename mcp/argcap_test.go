package mcp

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordingTool counts the calls that reached its handler.
func recordingTool(calls *atomic.Int64) Tool {
	return Tool{
		Def: NewToolDef("record", Annotations{Title: "Record", ReadOnly: true, Idempotent: true},
			mcp.WithDescription("Counts its calls."),
			mcp.WithString("text", mcp.Description("Any text.")),
			mcp.WithArray("items", mcp.Description("Any strings."), mcp.WithStringItems()),
			mcp.WithObject("fields", mcp.Description("Any object.")),
		),
		Handler: func(Deps) server.ToolHandlerFunc {
			return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				calls.Add(1)
				return mcp.NewToolResultText("ok"), nil
			}
		},
	}
}

// An argument over mcp.maxArgumentBytes is refused, naming the argument and
// the limit, and never reaches the tool: in a string, in a list, in an
// object, or as the name itself. One at the limit goes through.
func TestAnArgumentOverTheLimitIsRefusedBeforeTheToolReadsIt(t *testing.T) {
	var calls atomic.Int64
	c := inProcess(t, Deps{MaxArgumentBytes: 1000}, recordingTool(&calls))
	fits := strings.Repeat("a", 1000)
	over := fits + "a"

	res := callTool(t, c, "record", map[string]any{"text": fits, "items": []any{fits[:500], fits[:500]}})
	require.False(t, res.IsError, resultText(t, res))
	assert.EqualValues(t, 1, calls.Load())

	cases := map[string]struct {
		args map[string]any
		says string
	}{
		"string": {map[string]any{"text": over}, `record: argument "text" is 1001 bytes, over the 1000-byte limit of one argument (mcp.maxArgumentBytes); send less`},
		"list":   {map[string]any{"items": []any{fits, "b"}}, `record: argument "items" holds more than the 1000-byte limit of one argument (mcp.maxArgumentBytes)`},
		"object": {map[string]any{"fields": map[string]any{"k": fits}}, `record: argument "fields" holds more than the 1000-byte limit of one argument`},
		"name":   {map[string]any{over: "x"}, `record: an argument whose name is 1001 bytes holds more than the 1000-byte limit of one argument`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res := callTool(t, c, "record", tc.args)
			require.True(t, res.IsError)
			text := resultText(t, res)
			assert.Contains(t, text, tc.says)
			assert.Contains(t, text, "raise mcp.maxArgumentBytes in the server's config")
			assert.NotContains(t, text, fits[:300], "the refusal repeats nothing of the argument")
		})
	}
	assert.EqualValues(t, 1, calls.Load(), "no refused call reached the tool")
}

// Without a configured cap the server refuses past DefaultMaxArgumentBytes:
// a one-megabyte argument to a tool that scans its text costs nothing.
func TestTheDefaultCapRefusesAMegabyteArgument(t *testing.T) {
	c := loopClient(t, newLoopService(t, liveCheckout(t)))
	res := callTool(t, c, "continuity_prompt", map[string]any{"task": strings.Repeat("A", 1<<20)})
	require.True(t, res.IsError)
	assert.Contains(t, resultText(t, res), `continuity_prompt: argument "task" is 1048576 bytes, over the 262144-byte limit of one argument (mcp.maxArgumentBytes)`)
}
