package mcp

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// handle builds a tool handler that decodes the call's arguments into the
// core's request type R and hands it to call with the dependencies. A tool
// is then its definition and a few lines: call the core, present the
// result.
func handle[R any](call func(ctx context.Context, deps Deps, in R) *mcp.CallToolResult) func(Deps) server.ToolHandlerFunc {
	return func(deps Deps) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			in, bad := decode[R](req)
			if bad != nil {
				return bad, nil
			}
			return call(ctx, deps, in), nil
		}
	}
}

// decode reads the call's arguments into R, whose JSON names are the tool's
// argument names. NewServer has checked them against the tool's schema
// already (names, types, required, enums). As for every list argument,
// list items are trimmed and empty ones dropped.
func decode[R any](req mcp.CallToolRequest) (R, *mcp.CallToolResult) {
	var r R
	args, bad := argumentsOf(req)
	if bad != nil {
		return r, bad
	}
	if direct, ok := decodeDirect[R](args); ok {
		return direct, nil
	}
	return decodeJSON[R](req, args)
}

// decodeJSON is decode through encoding/json: the arguments encoded, list
// items trimmed, and decoded into R.
func decodeJSON[R any](req mcp.CallToolRequest, args map[string]any) (R, *mcp.CallToolResult) {
	var r R
	data, err := json.Marshal(trimLists(args))
	if err != nil {
		return r, argError(req, "the arguments are not JSON data")
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, argError(req, "%v", err)
	}
	return r, nil
}

// trimLists returns args with the string items of every list trimmed and
// the empty ones dropped.
func trimLists(args map[string]any) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = v
		if items, ok := listOf(v); ok {
			out[k] = trimmed(items)
		}
	}
	return out
}

// result is a tool's answer: v as the structured content and text for the
// model, followed by the core's warnings, one line each.
func result(v any, text string, warnings []string) *mcp.CallToolResult {
	return mcp.NewToolResultStructured(v, withWarnings(text, warnings))
}

// withWarnings appends the warnings to text, each on a line of its own.
func withWarnings(text string, warnings []string) string {
	for _, w := range warnings {
		if !strings.HasPrefix(w, "warning: ") {
			w = "warning: " + w
		}
		text += "\n" + w
	}
	return text
}
