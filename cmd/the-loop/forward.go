package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/the-loop/the-loop/internal/sessionenv"
	"github.com/the-loop/the-loop/mcp/gateway"
)

// forwardTimeout bounds one call a command forwards from inside a session
// (a claim runs the repository's commands).
const forwardTimeout = 30 * time.Minute

// sessionEndpoint is the confined session this command runs in, if any:
// inside one, the store, the config and the key are out of reach, so the
// verbs an agent uses forward to the poller over the session's socket —
// the same path the session's MCP server takes.
func (f *Factory) sessionEndpoint() (socket, capability string, ok bool) {
	return sessionenv.Endpoint(f.Getenv)
}

// forwardTool calls tool through the session's socket and decodes its
// structured result into out. The warnings are the text's "warning:"
// lines; a tool's error result is returned as an error.
func forwardTool(ctx context.Context, socket, capability, tool string, args map[string]any, out any) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, forwardTimeout)
	defer cancel()
	res, err := gateway.Call(ctx, socket, capability, tool, args)
	if err != nil {
		return nil, fmt.Errorf("%s through the session's socket: %w", tool, err)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	body := strings.Join(text, "\n")
	if res.IsError {
		return nil, errors.New(body)
	}
	var warnings []string
	for _, l := range strings.Split(body, "\n") {
		if w, ok := strings.CutPrefix(l, "warning: "); ok {
			warnings = append(warnings, w)
		}
	}
	if res.StructuredContent == nil {
		return warnings, fmt.Errorf("%s: the loop's answer carries no result", tool)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(b, out)
	}
	if err != nil {
		return warnings, fmt.Errorf("%s: the loop's answer: %w", tool, err)
	}
	return warnings, nil
}
