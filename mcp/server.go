package mcp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/the-loop/the-loop/mcp/transport"
)

// ServerName is the name the server reports in initialize.
const ServerName = "the-loop"

// Instructions tells a model what the loop is, what a work item id is, how
// to find its own and where to start. Clients show it to the model once per
// connection. Every id and tool it names must work as written: a test
// follows it against the fixture repository.
const Instructions = `the-loop is a process engine. It walks one work item at a time through a process graph: each node asks for an artifact, a markdown file in the item's spec folder (docs/specs/<id>/ unless the repository configures another folder), and a node completes only when its checks pass.

A work item id is the name of its spec folder: issue-12 for GitHub issue #12, PROJ-12 for the Jira ticket PROJ-12. A ticket reference such as OWNER/REPO#12 or a URL is not an id. To find yours, call check with all: true: it lists every work item of the repository and where each stands; or ask the user which one to work on. An unknown id is refused with the nearest known ones.

Then call graph_status with the id: it says which node is current, what that node expects, and which checks are failing. Write or fix the artifact it names, call check with the id to see whether the node's checks now pass, and call graph_complete when they do.

Human decisions are not yours to make. Gates are approved, checklists are answered and skips are declared only by authorized people in comments on the ticket; no tool does any of that, so when the loop waits on a person, say so and stop. When a tool returns an error result, read its sentence: it names the argument or condition to fix.`

// instructionsFor is Instructions, plus the one id a confined server
// answers for.
func instructionsFor(workItem string) string {
	if workItem == "" {
		return Instructions
	}
	return Instructions + "\n\nThis server belongs to a session the loop launched for work item " + workItem +
		": it answers for " + workItem + " only, so pass workItem " + workItem + " (or leave it out) and do not call check with all."
}

// NewServer builds the MCP server: name "the-loop", the given version, the
// Instructions, and every tool in tools with its handler built from deps.
// Each call is checked against the tool's schema before the handler runs,
// logged (tool, work item, caller, duration, outcome), and any Go error or
// panic from a handler is turned into an isError result. It panics on a tool
// that fails ValidateTool or a duplicate name: both are programming errors
// that the package tests catch.
func NewServer(deps Deps, tools []Tool, version string) *server.MCPServer {
	logger := deps.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	srv := server.NewMCPServer(ServerName, version,
		server.WithInstructions(instructionsFor(deps.WorkItem)),
		server.WithToolCapabilities(false),
		server.WithStrictInputSchemaDefault(),
		server.WithToolHandlerMiddleware(callMiddleware(logger, maxArgumentBytes(deps))),
	)
	seen := map[string]bool{}
	serverTools := make([]server.ServerTool, 0, len(tools))
	for _, t := range tools {
		if err := ValidateTool(t); err != nil {
			panic(err)
		}
		if deps.WorkItem != "" && !confinedTools[t.Def.Name] {
			continue // a confined server lists only the tools it answers
		}
		if seen[t.Def.Name] {
			panic(fmt.Sprintf("tool %q given twice", t.Def.Name))
		}
		seen[t.Def.Name] = true
		handler := checked(t, t.Handler(deps))
		if deps.WorkItem != "" {
			handler = confine(t.Def, deps, handler)
		}
		serverTools = append(serverTools, server.ServerTool{Tool: t.Def, Handler: handler})
	}
	if len(serverTools) > 0 {
		srv.AddTools(serverTools...)
	}
	return srv
}

// checked runs the schema check, then the blank check, before the handler.
func checked(t Tool, next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if bad := checkArguments(t.Def, req); bad != nil {
			return bad, nil
		}
		if bad := checkBlank(t, req); bad != nil {
			return bad, nil
		}
		return next(ctx, req)
	}
}

// Outcomes recorded in the call log.
const (
	outcomeOK        = "ok"
	outcomeToolError = "tool_error"
	outcomeFault     = "fault"
)

// callMiddleware refuses an argument over maxArgument bytes before anything
// reads it, logs every call and keeps handler failures inside the result: a returned error or a panic becomes an isError result with an
// actionable sentence, never a JSON-RPC internal error. Argument values are
// never logged; only the work item, which is an identifier.
func callMiddleware(logger *slog.Logger, maxArgument int) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
			start := time.Now()
			outcome := outcomeOK
			defer func() {
				if r := recover(); r != nil {
					logger.ErrorContext(ctx, "mcp tool panic", "tool", req.Params.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
					res = mcp.NewToolResultError(fmt.Sprintf("%s hit an internal fault and did not finish; the server log has the details. Retry once; if it fails again, report it to the operator.", req.Params.Name))
					err = nil
					outcome = outcomeFault
				}
				attrs := []any{"tool", req.Params.Name, "outcome", outcome, "duration_ms", time.Since(start).Milliseconds()}
				if wi := workItemOf(req); wi != "" {
					attrs = append(attrs, "workItem", wi)
				}
				if p, ok := transport.PrincipalFromContext(ctx); ok {
					attrs = append(attrs, "principal", p.Subject)
				}
				level := slog.LevelInfo
				if outcome == outcomeFault {
					level = slog.LevelError
				}
				logger.Log(ctx, level, "mcp tool call", attrs...)
			}()
			if tooBig := oversizedArgument(req.Params.Name, req, maxArgument); tooBig != nil {
				outcome = outcomeToolError
				return tooBig, nil // it repeats no argument: nothing to elide
			}
			res, err = next(ctx, req)
			switch {
			case err != nil:
				logger.ErrorContext(ctx, "mcp tool handler error", "tool", req.Params.Name, "err", err)
				res = mcp.NewToolResultError(fmt.Sprintf("%s failed: %v. Check the arguments and the repository state, then retry.", req.Params.Name, err))
				err = nil
				outcome = outcomeFault
			case res == nil:
				res = mcp.NewToolResultError(fmt.Sprintf("%s returned no result; this is a server bug, report it to the operator.", req.Params.Name))
				outcome = outcomeFault
			case res.IsError:
				outcome = outcomeToolError
			}
			return boundResult(ctx, req, res), nil
		}
	}
}

// maxArgumentBytes is the server's cap on one argument.
func maxArgumentBytes(deps Deps) int {
	if deps.MaxArgumentBytes > 0 {
		return deps.MaxArgumentBytes
	}
	return DefaultMaxArgumentBytes
}

// workItemOf returns the workItem argument when it is a short string.
func workItemOf(req mcp.CallToolRequest) string {
	args, _ := req.Params.Arguments.(map[string]any)
	s, _ := args[ArgWorkItem].(string)
	if len(s) > 200 {
		return ""
	}
	return s
}
