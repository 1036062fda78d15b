package mcp

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func request(name string, args any) mcp.CallToolRequest {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return req
}

func errText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.NotNil(t, res, "expected an error result")
	require.True(t, res.IsError)
	return resultText(t, res)
}

func TestArgumentHelpers(t *testing.T) {
	req := request("tool_x", map[string]any{
		"s": "v", "blank": " ", "b": true, "n": float64(3), "frac": 2.5, "num": json.Number("4"), "i": 7, "null": nil,
	})

	s, bad := RequiredString(req, "s")
	assert.Nil(t, bad)
	assert.Equal(t, "v", s)
	_, bad = RequiredString(req, "missing")
	assert.Contains(t, errText(t, bad), `tool_x: missing required argument "missing"`)
	_, bad = RequiredString(req, "blank")
	assert.Contains(t, errText(t, bad), `argument "blank" is empty`)
	_, bad = RequiredString(req, "b")
	assert.Contains(t, errText(t, bad), `argument "b" must be a string, got a boolean`)
	_, bad = RequiredString(req, "null")
	assert.Contains(t, errText(t, bad), `missing required argument "null"`)

	s, bad = OptionalString(req, "missing", "def")
	assert.Nil(t, bad)
	assert.Equal(t, "def", s)
	_, bad = OptionalString(req, "n", "def")
	assert.Contains(t, errText(t, bad), `argument "n" must be a string, got a whole number`)

	b, bad := RequiredBool(req, "b")
	assert.Nil(t, bad)
	assert.True(t, b)
	_, bad = RequiredBool(req, "missing")
	assert.Contains(t, errText(t, bad), `missing required argument "missing" (true or false)`)
	_, bad = RequiredBool(req, "s")
	assert.Contains(t, errText(t, bad), `argument "s" must be true or false, got a string`)
	b, bad = OptionalBool(req, "null", true)
	assert.Nil(t, bad)
	assert.True(t, b, "null means absent")
	_, bad = OptionalBool(req, "n", false)
	assert.NotNil(t, bad)

	for name, want := range map[string]int{"n": 3, "num": 4, "i": 7, "missing": 9} {
		got, bad := OptionalInt(req, name, 9)
		assert.Nil(t, bad, name)
		assert.Equal(t, want, got, name)
	}
	_, bad = OptionalInt(req, "frac", 0)
	assert.Contains(t, errText(t, bad), `argument "frac" must be a whole number, got a fractional number`)

	assert.Nil(t, RejectUnknown(request("t", map[string]any{"a": 1}), "a", "b"))
	assert.Contains(t, errText(t, RejectUnknown(request("t", map[string]any{"a": 1, "zz": 2}), "a")), `unknown argument "zz"; accepted: a`)
	assert.Contains(t, errText(t, RejectUnknown(request("t", map[string]any{"zz": 2}))), "this tool takes no arguments")
	assert.Contains(t, errText(t, RejectUnknown(request("t", "text"))), "arguments must be a JSON object")
	_, bad = RequiredString(request("t", 42), "s")
	assert.Contains(t, errText(t, bad), "got a whole number")
}

func TestCheckArgumentsTypes(t *testing.T) {
	def := NewToolDef("typed", Annotations{Title: "T", ReadOnly: true},
		mcp.WithDescription("d"),
		mcp.WithNumber("ratio", mcp.Description("d")),
		mcp.WithArray("labels", mcp.Description("d"), mcp.WithStringItems()),
		mcp.WithObject("extra", mcp.Description("d")),
		mcp.WithInteger("n", mcp.Description("d"), mcp.Min(2)),
	)
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"ratio": 0.5, "labels": []any{"a"}, "extra": map[string]any{}, "n": 2}, ""},
		{map[string]any{"ratio": "half"}, `argument "ratio" must be a number, got a string`},
		{map[string]any{"labels": "a"}, `argument "labels" must be a list, got a string`},
		{map[string]any{"labels": []any{"a", 3}}, `argument "labels[1]" must be a string, got a whole number`},
		{map[string]any{"extra": []any{}}, `argument "extra" must be an object, got a list`},
		{map[string]any{"n": 1}, `argument "n" must be at least 2, got 1`},
	}
	for _, tt := range tests {
		res := checkArguments(def, request("typed", tt.args))
		if tt.want == "" {
			assert.Nil(t, res, "%v", tt.args)
			continue
		}
		assert.Contains(t, errText(t, res), tt.want)
	}
}

// The shipped tools are one sorted list; a server refuses a tool given
// twice or one with a forbidden name.
func TestAllToolsAndTheServersChecks(t *testing.T) {
	names := []string{}
	for _, tool := range AllTools() {
		names = append(names, tool.Def.Name)
		assert.NoError(t, ValidateTool(tool), tool.Def.Name)
	}
	assert.True(t, slices.IsSorted(names), "sorted by name: %v", names)
	assert.Len(t, names, len(slices.Compact(slices.Clone(names))), "no name twice")

	second := echoTool
	second.Def.Name = "another_echo"
	assert.NotPanics(t, func() { NewServer(Deps{}, []Tool{echoTool, second}, "test") })
	assert.Panics(t, func() { NewServer(Deps{}, []Tool{echoTool, echoTool}, "test") }, "a duplicate name")
	bad := echoTool
	bad.Def.Name = "force_it"
	assert.Panics(t, func() { NewServer(Deps{}, []Tool{bad}, "test") }, "a forbidden name")
}
