package mcp

import (
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// OptionalStringList returns the named list-of-strings argument, or nil
// when absent or null. Items are trimmed and empty items dropped. A value
// that is not a list of strings yields an error result naming the argument.
func OptionalStringList(req mcp.CallToolRequest, name string) ([]string, *mcp.CallToolResult) {
	v, present, bad := lookup(req, name)
	if bad != nil || !present {
		return nil, bad
	}
	var items []any
	switch x := v.(type) {
	case []any:
		items = x
	case []string:
		for _, s := range x {
			items = append(items, s)
		}
	default:
		return nil, argError(req, "argument %q must be a list of strings, got %s", name, jsonKind(v))
	}
	out := make([]string, 0, len(items))
	for i, item := range items {
		s, ok := item.(string)
		if !ok {
			return nil, argError(req, "argument %q: item %d must be a string, got %s", name, i, jsonKind(item))
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// stringList is the schema option for a list-of-strings argument.
func stringList(name, description string) mcp.ToolOption {
	return mcp.WithArray(name, mcp.Description(description), mcp.WithStringItems())
}
