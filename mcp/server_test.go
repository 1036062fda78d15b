package mcp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewServerIdentity(t *testing.T) {
	srv := NewServer(Deps{}, []Tool{echoTool}, "v9.8.7")
	c, err := client.NewInProcessClient(srv)
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, c.Start(ctx))
	init, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_LEGACY_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "t", Version: "1"},
	}})
	require.NoError(t, err)
	assert.Equal(t, "the-loop", init.ServerInfo.Name)
	assert.Equal(t, "v9.8.7", init.ServerInfo.Version)
	assert.Equal(t, Instructions, init.Instructions)
	assert.Contains(t, init.Instructions, "graph_status", "instructions name the first tool to call")
}

func TestToolArguments(t *testing.T) {
	c := inProcess(t, Deps{DefaultRepo: "/repo"}, echoTool)
	tests := []struct {
		name    string
		args    any
		isError bool
		want    []string
	}{
		{"valid", map[string]any{"workItem": "o/r#1", "mode": "loud", "count": 2}, false, []string{"O/R#1O/R#1"}},
		{"no optional arguments", map[string]any{"workItem": "o/r#1"}, false, []string{"o/r#1"}},
		{"null optional is absent", map[string]any{"workItem": "o/r#1", "mode": nil}, false, []string{"o/r#1"}},
		{"missing required", map[string]any{"mode": "plain"}, true, []string{`missing required argument "workItem"`, "Fix the arguments"}},
		{"no arguments at all", nil, true, []string{`missing required argument "workItem"`}},
		{"null required", map[string]any{"workItem": nil}, true, []string{`argument "workItem" is null`}},
		{"empty required", map[string]any{"workItem": "  "}, true, []string{`argument "workItem" is empty`}},
		{"unknown argument", map[string]any{"workItem": "x", "force": true}, true, []string{`unknown argument "force"`, "accepted: count, mode, note, verbose, workItem"}},
		{"string for integer", map[string]any{"workItem": "x", "count": "3"}, true, []string{`argument "count" must be a whole number, got a string`}},
		{"fraction for integer", map[string]any{"workItem": "x", "count": 1.5}, true, []string{`argument "count" must be a whole number`}},
		{"above maximum", map[string]any{"workItem": "x", "count": 9}, true, []string{`argument "count" must be at most 5`}},
		{"string for boolean", map[string]any{"workItem": "x", "verbose": "yes"}, true, []string{`argument "verbose" must be true or false`}},
		{"outside enum", map[string]any{"workItem": "x", "mode": "shout"}, true, []string{`argument "mode" must be one of plain, loud`, `got "shout"`}},
		{"number for string", map[string]any{"workItem": 7}, true, []string{`argument "workItem" must be a string, got a whole number`}},
		{"not an object", []any{"x"}, true, []string{"arguments must be a JSON object", "got a list"}},
		{"several problems at once", map[string]any{"mode": 1, "bogus": 2}, true, []string{`unknown argument "bogus"`, `argument "mode" must be a string`, `missing required argument "workItem"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := callTool(t, c, "echo_item", tt.args)
			assert.Equal(t, tt.isError, res.IsError)
			text := resultText(t, res)
			for _, w := range tt.want {
				assert.Contains(t, text, w)
			}
		})
	}
}

func TestHandlerFailuresAreToolResults(t *testing.T) {
	c := inProcess(t, Deps{}, echoTool)
	tests := []struct {
		mode string
		want string
	}{
		{"fail", "work item x is not known; check the id and call again"},
		{"boom", "echo_item failed: backend unavailable"},
		{"panic", "echo_item hit an internal fault"},
		{"nil", "echo_item returned no result"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			res := callTool(t, c, "echo_item", map[string]any{"workItem": "x", "mode": tt.mode})
			require.True(t, res.IsError)
			assert.Contains(t, resultText(t, res), tt.want)
		})
	}
}

func TestUnknownToolIsProtocolError(t *testing.T) {
	c := inProcess(t, Deps{}, echoTool)
	req := mcp.CallToolRequest{}
	req.Params.Name = "no_such_tool"
	_, err := c.CallTool(context.Background(), req)
	require.Error(t, err, "an unknown tool is a malformed request, answered with a JSON-RPC error")
	assert.Contains(t, err.Error(), "no_such_tool")
}

func TestCallLogging(t *testing.T) {
	var logs syncBuffer
	c := inProcess(t, Deps{Logger: jsonLogger(&logs)}, echoTool)
	callTool(t, c, "echo_item", map[string]any{"workItem": "acme/app#7", "note": "hunter2-secret-body"})
	callTool(t, c, "echo_item", map[string]any{"workItem": "acme/app#8", "mode": "fail", "note": "hunter2-secret-body"})
	callTool(t, c, "echo_item", map[string]any{"workItem": "acme/app#9", "mode": "boom"})
	callTool(t, c, "echo_item", map[string]any{"count": 2})

	assert.NotContains(t, logs.String(), "hunter2", "argument bodies are never logged")
	var calls []map[string]any
	for _, l := range logLines(t, &logs) {
		if l["msg"] == "mcp tool call" {
			calls = append(calls, l)
		}
	}
	require.Len(t, calls, 4)
	want := []struct{ item, outcome string }{
		{"acme/app#7", "ok"}, {"acme/app#8", "tool_error"}, {"acme/app#9", "fault"}, {"", "tool_error"},
	}
	for i, w := range want {
		assert.Equal(t, "echo_item", calls[i]["tool"])
		assert.Equal(t, w.outcome, calls[i]["outcome"], "call %d", i)
		if w.item == "" {
			assert.NotContains(t, calls[i], "workItem")
		} else {
			assert.Equal(t, w.item, calls[i]["workItem"])
		}
		assert.Contains(t, calls[i], "duration_ms")
	}
}

func TestNewToolDefSetsEveryAnnotation(t *testing.T) {
	def := NewToolDef("t", Annotations{Title: "T", ReadOnly: false, Destructive: false, Idempotent: true, OpenWorld: false})
	a := def.Annotations
	require.NotNil(t, a.ReadOnlyHint)
	require.NotNil(t, a.DestructiveHint)
	require.NotNil(t, a.IdempotentHint)
	require.NotNil(t, a.OpenWorldHint)
	assert.False(t, *a.ReadOnlyHint)
	assert.False(t, *a.DestructiveHint, "mcp.NewTool would default this to true")
	assert.True(t, *a.IdempotentHint)
	assert.False(t, *a.OpenWorldHint, "mcp.NewTool would default this to true")
	assert.Equal(t, false, def.InputSchema.AdditionalProperties)
	assert.Equal(t, "T", def.Title)
}

func TestValidateToolRefusesBadDefinitions(t *testing.T) {
	handler := echoTool.Handler
	ann := Annotations{Title: "X", ReadOnly: true}
	tests := []struct {
		name string
		tool Tool
		want string
	}{
		{"forbidden name", Tool{Def: NewToolDef("approve_gate", ann, mcp.WithDescription("d")), Handler: handler}, `"approve" means approving a gate`},
		{"forbidden argument", Tool{Def: NewToolDef("graph_complete", ann, mcp.WithDescription("d"), mcp.WithBoolean("force", mcp.Description("d"))), Handler: handler}, `argument "force" is forbidden`},
		{"camel name", Tool{Def: NewToolDef("graphStatus", ann, mcp.WithDescription("d")), Handler: handler}, "snake_case"},
		{"no description", Tool{Def: NewToolDef("x", ann), Handler: handler}, "description"},
		{"argument without description", Tool{Def: NewToolDef("x", ann, mcp.WithDescription("d"), mcp.WithString("a")), Handler: handler}, `argument "a" has no description`},
		{"read-only and destructive", Tool{Def: NewToolDef("x", Annotations{Title: "X", ReadOnly: true, Destructive: true}, mcp.WithDescription("d")), Handler: handler}, "cannot be destructive"},
		{"annotations unset", Tool{Def: mcp.Tool{Name: "x", Title: "X", Description: "d", InputSchema: mcp.ToolInputSchema{Type: "object", AdditionalProperties: false}}, Handler: handler}, "every annotation hint must be set"},
		{"open schema", Tool{Def: NewToolDef("x", ann, mcp.WithDescription("d"), mcp.WithSchemaAdditionalProperties(true)), Handler: handler}, "additionalProperties false"},
		{"nil handler", Tool{Def: NewToolDef("x", ann, mcp.WithDescription("d"))}, "Handler is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateTool(tt.tool)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Panics(t, func() { NewServer(Deps{}, []Tool{tt.tool}, "v") }, "NewServer never registers an invalid tool")
		})
	}
	require.NoError(t, ValidateTool(echoTool))
	assert.Panics(t, func() { NewServer(Deps{}, []Tool{echoTool, echoTool}, "v") }, "duplicate names")
}

func TestDepsReachHandler(t *testing.T) {
	c := inProcess(t, Deps{DefaultRepo: "/r"}, echoTool)
	res := callTool(t, c, "echo_item", map[string]any{"workItem": "x", "verbose": true})
	assert.False(t, res.IsError)
	assert.True(t, strings.HasSuffix(resultText(t, res), " in /r"))
}

var _ server.ToolHandlerFunc = echoTool.Handler(Deps{})
