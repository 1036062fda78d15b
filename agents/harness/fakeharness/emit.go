package main

import (
	"encoding/json"
	"fmt"
	"time"
)

// An emitter prints a session's events in one CLI's machine output.
type emitter interface {
	// start opens the session.
	start(session, model, cwd string)
	// progress reports turns turns that used tokens in all, before the work.
	progress(turns int, tokens int64)
	// tool reports one call of the item's MCP server's tool.
	tool(name string, isError bool, text string)
	// finish closes the session: turns and tokens in all, and the cost
	// where the CLI reports one.
	finish(turns int, tokens int64, cost float64, result string)
}

func emit(ev map[string]any) {
	b, _ := json.Marshal(ev)
	fmt.Println(string(b))
}

// claudeOut prints Claude Code's stream-json (also the plain fake's).
type claudeOut struct{ session string }

func (e *claudeOut) start(session, model, cwd string) {
	e.session = session
	emit(map[string]any{"type": "system", "subtype": "init", "session_id": session, "model": model, "cwd": cwd})
}

func (e *claudeOut) progress(turns int, tokens int64) {
	for t := 1; t <= turns; t++ {
		emit(map[string]any{"type": "assistant", "session_id": e.session, "message": map[string]any{
			"id": fmt.Sprintf("msg_%d", t), "usage": map[string]any{"input_tokens": tokens / int64(turns), "output_tokens": 0}}})
	}
}

func (e *claudeOut) tool(name string, isError bool, text string) {
	emit(map[string]any{"type": "user", "tool": name, "claim": map[string]any{"isError": isError, "text": text}})
}

func (e *claudeOut) finish(turns int, tokens int64, cost float64, result string) {
	emit(map[string]any{"type": "result", "subtype": "success", "is_error": false, "num_turns": turns, "session_id": e.session,
		"total_cost_usd": cost, "result": result, "usage": map[string]any{"input_tokens": tokens, "output_tokens": 0}})
}

// codexOut prints `codex exec --json`: usage arrives with turn.completed.
type codexOut struct{ items int }

func (e *codexOut) item(typ string, fields map[string]any) {
	fields["id"], fields["type"] = fmt.Sprintf("item_%d", e.items), typ
	e.items++
	emit(map[string]any{"type": "item.completed", "item": fields})
}

func (e *codexOut) start(session, _, _ string) {
	emit(map[string]any{"type": "thread.started", "thread_id": session})
	emit(map[string]any{"type": "turn.started"})
}

func (e *codexOut) progress(turns int, _ int64) {
	for t := 1; t <= turns; t++ {
		e.item("reasoning", map[string]any{"text": fmt.Sprintf("**Step %d**", t)})
	}
}

func (e *codexOut) tool(name string, isError bool, text string) {
	fields := map[string]any{"server": "the-loop", "tool": name, "arguments": map[string]any{}, "status": "completed",
		"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "structured_content": nil}, "error": nil}
	if isError {
		fields["status"], fields["result"], fields["error"] = "failed", nil, map[string]any{"message": text}
	}
	e.item("mcp_tool_call", fields)
}

func (e *codexOut) finish(_ int, tokens int64, _ float64, result string) {
	e.item("agent_message", map[string]any{"text": result})
	emit(map[string]any{"type": "turn.completed", "usage": map[string]any{"input_tokens": tokens, "cached_input_tokens": 0, "output_tokens": 0}})
}

// geminiOut prints Gemini CLI's stream-json: tokens arrive with result,
// by model.
type geminiOut struct {
	model string
	calls int
}

func now() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

func (e *geminiOut) start(session, model, _ string) {
	e.model = model
	if e.model == "" {
		e.model = "gemini-2.5-pro"
	}
	emit(map[string]any{"type": "init", "timestamp": now(), "session_id": session, "model": e.model})
	emit(map[string]any{"type": "message", "timestamp": now(), "role": "user", "content": "(the assignment)"})
}

func (e *geminiOut) call(name string, isError bool, text string) {
	e.calls++
	id := fmt.Sprintf("%s-%d-0", name, e.calls)
	emit(map[string]any{"type": "tool_use", "timestamp": now(), "tool_name": name, "tool_id": id, "parameters": map[string]any{}})
	res := map[string]any{"type": "tool_result", "timestamp": now(), "tool_id": id, "status": "success", "output": text}
	if isError {
		res["status"], res["error"] = "error", map[string]any{"type": "TOOL_EXECUTION_ERROR", "message": text}
	}
	emit(res)
}

func (e *geminiOut) progress(turns int, _ int64) {
	for t := 1; t <= turns; t++ {
		e.call("read_file", false, fmt.Sprintf("step %d", t))
	}
}

func (e *geminiOut) tool(name string, isError bool, text string) { e.call(name, isError, text) }

func (e *geminiOut) finish(_ int, tokens int64, _ float64, result string) {
	emit(map[string]any{"type": "message", "timestamp": now(), "role": "assistant", "content": result, "delta": true})
	counts := map[string]any{"total_tokens": tokens, "input_tokens": tokens, "output_tokens": 0, "cached": 0, "input": tokens}
	stats := map[string]any{"total_tokens": tokens, "input_tokens": tokens, "output_tokens": 0, "cached": 0, "input": tokens,
		"duration_ms": 1, "tool_calls": e.calls, "models": map[string]any{e.model: counts}}
	emit(map[string]any{"type": "result", "timestamp": now(), "status": "success", "stats": stats})
}

// opencodeOut prints `opencode run --format json`: tokens and cost arrive
// with each step.
type opencodeOut struct {
	session string
	steps   int
}

func (e *opencodeOut) event(typ string, part map[string]any) {
	part["sessionID"], part["messageID"] = e.session, fmt.Sprintf("msg_%d", e.steps)
	emit(map[string]any{"type": typ, "timestamp": time.Now().UnixMilli(), "sessionID": e.session, "part": part})
}

func (e *opencodeOut) step(reason string, tokens int64, cost float64, body func()) {
	e.steps++
	e.event("step_start", map[string]any{"type": "step-start"})
	body()
	e.event("step_finish", map[string]any{"type": "step-finish", "reason": reason, "cost": cost,
		"tokens": map[string]any{"input": tokens, "output": 0, "reasoning": 0, "cache": map[string]any{"read": 0, "write": 0}}})
}

func (e *opencodeOut) start(session, _, _ string) { e.session = "ses_" + session }

func (e *opencodeOut) progress(turns int, _ int64) {
	for t := 1; t <= turns; t++ {
		e.step("tool-calls", 0, 0, func() {
			e.event("tool_use", map[string]any{"type": "tool", "tool": "read", "state": map[string]any{"status": "completed", "output": fmt.Sprint("step ", t)}})
		})
	}
}

func (e *opencodeOut) tool(name string, isError bool, text string) {
	state := map[string]any{"status": "completed", "output": text}
	if isError {
		state = map[string]any{"status": "error", "error": text}
	}
	e.step("tool-calls", 0, 0, func() {
		e.event("tool_use", map[string]any{"type": "tool", "tool": "the-loop_" + name, "state": state})
	})
}

// finish reports the session's tokens and cost with its last step.
func (e *opencodeOut) finish(_ int, tokens int64, cost float64, result string) {
	e.step("stop", tokens, cost, func() { e.event("text", map[string]any{"type": "text", "text": result}) })
}
