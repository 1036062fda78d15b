package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/the-loop/the-loop/mcp/transport"
)

// MaxToolResultBytes bounds one tool result (its text and structured
// content together). A longer result keeps its text up to the bound, with a
// note saying it was cut, and drops its structured content: one line of
// tens of megabytes breaks clients.
const MaxToolResultBytes = 1 << 20

// echoLimit is the longest argument (or argument name) a refusal may
// repeat; a longer one is replaced by a short note naming it and its size.
const echoLimit = 256

// boundResult is what every tool result passes through: a refusal never
// repeats a long argument, and no result exceeds MaxToolResultBytes. Its
// structured content leaves in the form the transport serving ctx
// writes at the least cost (transport.StructuredForm).
func boundResult(ctx context.Context, req mcp.CallToolRequest, res *mcp.CallToolResult) *mcp.CallToolResult {
	if res == nil {
		return nil
	}
	if res.IsError {
		elideArguments(req, res)
	}
	res = capResult(res)
	if e, ok := res.StructuredContent.(transport.Encoded); ok {
		res.StructuredContent = transport.StructuredForm(ctx, e)
	}
	return res
}

// longArgument is an argument value (or name) too long to repeat.
type longArgument struct {
	name, value string
}

// longArguments lists the strings of the call's arguments longer than
// echoLimit, argument names included, longest first.
func longArguments(req mcp.CallToolRequest) []longArgument {
	var out []longArgument
	var walk func(name string, v any)
	walk = func(name string, v any) {
		switch x := v.(type) {
		case string:
			if len(x) > echoLimit {
				out = append(out, longArgument{name, x})
			}
		case []any:
			for i, item := range x {
				walk(fmt.Sprintf("%s[%d]", name, i), item)
			}
		case map[string]any:
			for k, item := range x {
				label := name + "." + k
				if name == "" {
					label = k
				}
				if len(k) > echoLimit {
					label = fmt.Sprintf("%s(%d-byte name)", name, len(k))
					out = append(out, longArgument{"name of an argument", k})
				}
				walk(label, item)
			}
		}
	}
	walk("", req.Params.Arguments)
	sort.Slice(out, func(i, j int) bool { return len(out[i].value) > len(out[j].value) })
	return out
}

// elideArguments replaces every long argument in the result, as written or
// quoted, by a note naming it.
func elideArguments(req mcp.CallToolRequest, res *mcp.CallToolResult) {
	long := longArguments(req)
	if len(long) == 0 {
		return
	}
	elide := func(s string) string {
		for _, a := range long {
			note := fmt.Sprintf("[%s: %d bytes, not repeated]", a.name, len(a.value))
			quoted := strconv.Quote(a.value)
			js, _ := json.Marshal(a.value)
			for _, form := range []string{a.value, quoted[1 : len(quoted)-1], string(js[1 : len(js)-1])} {
				s = elideForm(s, form, note)
			}
		}
		return s
	}
	for i, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			tc.Text = elide(tc.Text)
			res.Content[i] = tc
		}
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			res.StructuredContent = json.RawMessage(elide(string(b)))
		}
	}
}

// elideForm replaces in s every run that starts like form (its first
// echoLimit bytes) and goes on matching it, however far: the whole of form,
// or the part of it a message cut short (a tool that quotes only the first
// few kilobytes of a path).
func elideForm(s, form, note string) string {
	if len(form) <= echoLimit {
		return s
	}
	head := form[:echoLimit]
	var b strings.Builder
	for {
		i := strings.Index(s, head)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		n := echoLimit
		for n < len(form) && i+n < len(s) && s[i+n] == form[n] {
			n++
		}
		b.WriteString(s[:i])
		b.WriteString(note)
		s = s[i+n:]
	}
}

// capResult cuts a result over MaxToolResultBytes down to its text, itself
// cut at the bound with a note.
func capResult(res *mcp.CallToolResult) *mcp.CallToolResult {
	size := 0
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			size += len(tc.Text)
		} else if b, err := json.Marshal(c); err == nil {
			size += len(b)
		}
	}
	if encoded, ok := res.StructuredContent.(transport.Encoded); ok {
		size += len(encoded.JSON)
	} else if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			size += len(b)
			// Encoded once: a line transport copies these bytes in
			// instead of encoding the value again.
			res.StructuredContent = transport.Encoded{Value: res.StructuredContent, JSON: b}
		}
	}
	if size <= MaxToolResultBytes {
		return res
	}
	note := fmt.Sprintf("\n[cut: this result was %d bytes, over the %d-byte limit of one tool result; ask for less, e.g. one work item instead of all]",
		size, MaxToolResultBytes)
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			if text.Len() > 0 {
				text.WriteString("\n")
			}
			text.WriteString(tc.Text)
		}
	}
	keep := text.String()
	if max := MaxToolResultBytes - len(note) - 1024; len(keep) > max {
		keep = keep[:max]
		for len(keep) > 0 { // never end inside a UTF-8 sequence
			if r, n := utf8.DecodeLastRuneInString(keep); r != utf8.RuneError || n > 1 {
				break
			}
			keep = keep[:len(keep)-1]
		}
	}
	return &mcp.CallToolResult{
		Result:  res.Result,
		Content: []mcp.Content{mcp.NewTextContent(keep + note)},
		IsError: res.IsError,
	}
}
