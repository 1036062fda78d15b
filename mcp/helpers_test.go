package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/syncbuf"
	"github.com/the-loop/the-loop/mcp/transport"
)

// fakeBackend lets the test tool block until released.
type fakeBackend struct {
	Backend // nil: the transport tests call only echo_item
	started chan string
	release chan struct{}
}

func newFakeBackend() *fakeBackend {
	return &fakeBackend{started: make(chan string, 64), release: make(chan struct{})}
}

// echoTool is a test-only tool that exercises arguments, tool errors,
// handler errors, panics and slow calls. It never ships.
var echoTool = Tool{
	Def: NewToolDef("echo_item", Annotations{Title: "Echo a work item", ReadOnly: true, Idempotent: true},
		mcp.WithDescription("Test tool: echoes the work item in the chosen mode."),
		mcp.WithString(ArgWorkItem, mcp.Required(), mcp.Description("Work item id, e.g. OWNER/REPO#1.")),
		mcp.WithString("mode", mcp.Description("How to answer."), mcp.Enum("plain", "loud", "fail", "boom", "panic", "slow", "nil")),
		mcp.WithInteger("count", mcp.Description("Times to repeat."), mcp.Min(1), mcp.Max(5)),
		mcp.WithBoolean("verbose", mcp.Description("Add detail.")),
		mcp.WithString("note", mcp.Description("Free text that must never be logged.")),
	),
	Handler: func(deps Deps) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			item, bad := RequiredString(req, ArgWorkItem)
			if bad != nil {
				return bad, nil
			}
			mode, bad := OptionalString(req, "mode", "plain")
			if bad != nil {
				return bad, nil
			}
			count, bad := OptionalInt(req, "count", 1)
			if bad != nil {
				return bad, nil
			}
			verbose, bad := OptionalBool(req, "verbose", false)
			if bad != nil {
				return bad, nil
			}
			text := item
			switch mode {
			case "loud":
				text = strings.ToUpper(item)
			case "fail":
				return mcp.NewToolResultError("work item " + item + " is not known; check the id and call again"), nil
			case "boom":
				return nil, fmt.Errorf("backend unavailable")
			case "panic":
				panic("handler exploded")
			case "nil":
				return nil, nil
			case "slow":
				fb := deps.Backend.(*fakeBackend)
				fb.started <- item
				select {
				case <-fb.release:
				case <-ctx.Done():
					return mcp.NewToolResultError("cancelled"), nil
				}
			}
			text = strings.Repeat(text, count)
			if verbose {
				p, _ := transport.PrincipalFromContext(ctx)
				text += " by " + p.Subject + " in " + deps.DefaultRepo
			}
			return mcp.NewToolResultText(text), nil
		}
	},
}

// syncBuffer is a log or stderr several goroutines write and the test reads.
type syncBuffer = syncbuf.Buffer

// logLines decodes the JSON log lines in s.
func logLines(t *testing.T, s *syncBuffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		out = append(out, m)
	}
	return out
}

func jsonLogger(w *syncBuffer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// inProcess starts an in-process client on a server with tools.
func inProcess(t *testing.T, deps Deps, tools ...Tool) *client.Client {
	t.Helper()
	srv := NewServer(deps, tools, "test-version")
	c, err := client.NewInProcessClient(srv)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, c.Start(ctx))
	_, err = c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcp.Implementation{Name: "test", Version: "1"},
	}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func callTool(t *testing.T, c *client.Client, name string, args any) *mcp.CallToolResult {
	t.Helper()
	return callToolCtx(t, context.Background(), c, name, args)
}

// stdioCaller is the principal the stdio transport records: the local
// operator.
var stdioCaller = transport.Principal{Subject: "local", Method: "stdio"}

// callToolAs calls a tool as p, as a transport that authenticated p would.
func callToolAs(t *testing.T, c *client.Client, p transport.Principal, name string, args any) *mcp.CallToolResult {
	t.Helper()
	return callToolCtx(t, transport.WithPrincipal(context.Background(), p), c, name, args)
}

func callToolCtx(t *testing.T, parent context.Context, c *client.Client, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(parent, 10*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	require.NoError(t, err, "a tool failure must be a result, not a protocol error")
	return res
}

func resultText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.NotEmpty(t, res.Content)
	tc, ok := mcp.AsTextContent(res.Content[0])
	require.True(t, ok, "first content is text")
	return tc.Text
}
