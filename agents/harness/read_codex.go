package harness

import "encoding/json"

// codexReader reads `codex exec --json`: thread.started carries the thread
// id, turn.completed the thread's token totals so far (input counts the
// cached input too), turn.failed and error the errors, and item.completed
// the agent's actions and messages. A turn, for codex, is one action of the
// model's: a message, a command, a file change, an MCP or web call.
type codexReader struct {
	common
	failedTurn bool
}

type codexEvent struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	Message  string `json:"message"`
	Usage    *struct {
		Input  int64 `json:"input_tokens"`
		Cached int64 `json:"cached_input_tokens"`
		Output int64 `json:"output_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	Item *struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"item"`
}

// codexActions are the item types that are an action of the model's.
var codexActions = map[string]bool{"agent_message": true, "command_execution": true, "file_change": true,
	"mcp_tool_call": true, "web_search": true, "collab_tool_call": true}

// codexItems are the other item types codex prints.
var codexItems = map[string]bool{"reasoning": true, "todo_list": true, "plan": true, "error": true}

func (r *codexReader) usage() Usage { return r.u }

func (r *codexReader) line(b []byte) {
	var ev codexEvent
	if json.Unmarshal(b, &ev) != nil {
		return
	}
	u := &r.u
	switch ev.Type {
	case "thread.started":
		if ev.ThreadID != "" {
			u.HarnessSession = ev.ThreadID
		}
	case "item.completed":
		if ev.Item == nil {
			return
		}
		switch {
		case codexActions[ev.Item.Type]:
			u.Turns++
			if ev.Item.Type == "agent_message" {
				u.Result = clip(ev.Item.Text, maxText)
			}
		case !codexItems[ev.Item.Type]:
			r.unknownType("item:" + ev.Item.Type)
		}
	case "turn.completed":
		u.Final = true
		u.IsError = r.failedTurn
		if ev.Usage != nil {
			t := Tokens{Input: ev.Usage.Input - max(ev.Usage.Cached, 0), CacheRead: ev.Usage.Cached, Output: ev.Usage.Output}
			u.setTokens(t.clamp())
		}
	case "turn.failed":
		r.failedTurn = true
		u.Final, u.IsError, u.Subtype = true, true, "turn_failed"
		if ev.Error != nil {
			r.failed(ev.Error.Message)
		}
	case "error":
		r.failed(ev.Message)
	case "turn.started", "item.started", "item.updated", "item.plan.delta", "request_user_input":
	default:
		r.unknownType(ev.Type)
	}
}

// skips are the event types codexReader reads nothing from.
func (*codexReader) skips(typ string) bool {
	switch typ {
	case "turn.started", "item.started", "item.updated", "item.plan.delta":
		return true
	}
	return false
}
