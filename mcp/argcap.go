package mcp

import (
	"fmt"
	"sort"

	"github.com/mark3labs/mcp-go/mcp"
)

// DefaultMaxArgumentBytes is mcp.maxArgumentBytes when the config leaves it
// out: 256 KiB, far above any id, path or note a tool takes, far below what
// would cost seconds to scan.
const DefaultMaxArgumentBytes = 256 << 10

// oversizedArgument refuses a call with an argument over max bytes, before
// anything else reads the call: the schema check, the handler, the secret
// and path scans, the refusal's own elision. An argument's size is its
// string's length, or the lengths of the strings and names inside a list or
// an object (a number, true, false or null counts 8); nil when every
// argument fits.
func oversizedArgument(tool string, req mcp.CallToolRequest, max int) *mcp.CallToolResult {
	args, ok := req.Params.Arguments.(map[string]any)
	if !ok {
		return nil // not an object: the argument check refuses it
	}
	var over []string
	for name, v := range args {
		if len(name) > max || argumentSize(v, max) > max {
			over = append(over, name)
		}
	}
	if len(over) == 0 {
		return nil
	}
	sort.Strings(over) // one answer for one call
	name := over[0]
	label := fmt.Sprintf("argument %q", name)
	if len(name) > echoLimit {
		label = fmt.Sprintf("an argument whose name is %d bytes", len(name))
	}
	size := fmt.Sprintf("holds more than the %d-byte limit", max)
	if s, ok := args[name].(string); ok && len(name) <= max {
		size = fmt.Sprintf("is %d bytes, over the %d-byte limit", len(s), max)
	}
	return mcp.NewToolResultError(fmt.Sprintf("%s: %s %s of one argument (mcp.maxArgumentBytes); "+
		"send less — a path to a file rather than its content — or raise mcp.maxArgumentBytes in the server's config.", tool, label, size))
}

// argumentSize is v's size in bytes, counted until it passes budget.
func argumentSize(v any, budget int) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case []any:
		n := 0
		for _, item := range x {
			if n += argumentSize(item, budget-n); n > budget {
				break
			}
		}
		return n
	case map[string]any:
		n := 0
		for k, item := range x {
			if n += len(k) + argumentSize(item, budget-n-len(k)); n > budget {
				break
			}
		}
		return n
	}
	return 8
}
