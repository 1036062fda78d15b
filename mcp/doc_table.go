package mcp

import (
	"fmt"
	"slices"
	"strings"
)

// ToolTable renders tools as the markdown table docs/mcp.md carries: each
// tool's title, its four annotations and its arguments (required ones in
// bold, first). It is generated from the definitions, so the docs cannot
// drift from what the server lists.
func ToolTable(tools []Tool) string {
	var b strings.Builder
	b.WriteString("| Tool | Title | Read-only | Destructive | Idempotent | Open world | Arguments (**required**) |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, t := range tools {
		d := t.Def
		a := d.Annotations
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s |\n", d.Name, d.Title,
			yesNo(a.ReadOnlyHint), yesNo(a.DestructiveHint), yesNo(a.IdempotentHint), yesNo(a.OpenWorldHint), toolArguments(t))
	}
	return b.String()
}

func toolArguments(t Tool) string {
	s := t.Def.InputSchema
	names := sortedKeys(s.Properties)
	slices.SortStableFunc(names, func(a, b string) int {
		ra, rb := contains(s.Required, a), contains(s.Required, b)
		switch {
		case ra == rb:
			return 0
		case ra:
			return -1
		}
		return 1
	})
	if len(names) == 0 {
		return "—"
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "`" + n + "`"
		if contains(s.Required, n) {
			out[i] = "**" + out[i] + "**"
		}
	}
	return strings.Join(out, ", ")
}

func yesNo(b *bool) string {
	if b != nil && *b {
		return "yes"
	}
	return "no"
}
