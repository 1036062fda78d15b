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
	items, ok := listOf(v)
	if !ok {
		return nil, argError(req, "argument %q must be a list of strings, got %s", name, jsonKind(v))
	}
	out := make([]string, 0, len(items))
	for i, item := range items {
		if _, ok := item.(string); !ok {
			return nil, argError(req, "argument %q: item %d must be a string, got %s", name, i, jsonKind(item))
		}
	}
	for _, item := range trimmed(items) {
		out = append(out, item.(string))
	}
	return out, nil
}

// listOf returns v's items when v is a list ([]any from JSON, or []string
// from an in-process caller).
func listOf(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case []string:
		items := make([]any, len(x))
		for i, s := range x {
			items[i] = s
		}
		return items, true
	}
	return nil, false
}

// trimmed returns items with every string trimmed and the empty ones
// dropped: the rule of every list argument.
func trimmed(items []any) []any {
	kept := make([]any, 0, len(items))
	for _, item := range items {
		if s, ok := item.(string); ok {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			item = s
		}
		kept = append(kept, item)
	}
	return kept
}

// stringList is the schema option for a list-of-strings argument.
func stringList(name, description string) mcp.ToolOption {
	return mcp.WithArray(name, mcp.Description(description), mcp.WithStringItems())
}
