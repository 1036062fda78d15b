package harness

import (
	"encoding/json"
	"strings"
)

// geminiReader reads Gemini CLI's stream-json: init carries the session id
// and model, message the user's prompt and the model's text (in deltas),
// tool_use and tool_result the model's tool calls, error the warnings and
// errors, and result the verdict and the token totals, by model. A turn is
// one response of the model's: its text and tool calls up to the tools'
// results.
type geminiReader struct {
	common
	inTurn   bool
	afterUse bool // a tool call came after the text kept so far
	text     strings.Builder
}

type geminiCounts struct {
	Input  int64 `json:"input_tokens"`
	Output int64 `json:"output_tokens"`
	Cached int64 `json:"cached"`
}

func (c geminiCounts) tokens() Tokens {
	return Tokens{Input: c.Input - max(c.Cached, 0), Output: c.Output, CacheRead: c.Cached}.clamp()
}

type geminiEvent struct {
	Type      string `json:"type"`
	SessionID string `json:"session_id"`
	Model     string `json:"model"`
	Role      string `json:"role"`
	Content   string `json:"content"`
	Severity  string `json:"severity"`
	Message   string `json:"message"`
	Status    string `json:"status"`
	Error     *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Stats *struct {
		geminiCounts
		Models map[string]geminiCounts `json:"models"`
	} `json:"stats"`
}

func (r *geminiReader) usage() Usage {
	u := r.u
	if !u.Final && r.text.Len() > 0 {
		u.Result = clip(r.text.String(), maxText)
	}
	return u
}

func (r *geminiReader) turn() {
	if !r.inTurn {
		r.inTurn = true
		r.u.Turns++
	}
}

func (r *geminiReader) line(b []byte) {
	var ev geminiEvent
	if json.Unmarshal(b, &ev) != nil {
		return
	}
	u := &r.u
	switch ev.Type {
	case "init":
		u.HarnessSession, u.Model = firstNonEmpty(ev.SessionID, u.HarnessSession), firstNonEmpty(ev.Model, u.Model)
	case "message":
		if ev.Role != "assistant" {
			r.inTurn = false
			return
		}
		r.turn()
		if r.afterUse {
			r.text.Reset()
			r.afterUse = false
		}
		if r.text.Len() < 4*maxText {
			r.text.WriteString(ev.Content)
		}
	case "tool_use":
		r.turn()
		r.afterUse = true
	case "tool_result":
		r.inTurn = false
	case "error":
		if ev.Severity == "error" {
			r.failed(ev.Message)
		}
	case "result":
		u.Final = true
		if ev.Status == "error" {
			u.IsError = true
			if ev.Error != nil {
				u.Subtype = ev.Error.Type
				r.failed(ev.Error.Message)
			}
		}
		if ev.Stats != nil {
			u.setTokens(ev.Stats.tokens())
			u.Models = nil
			for m, c := range ev.Stats.Models {
				if t := c.tokens(); t.total() > 0 {
					if u.Models == nil {
						u.Models = map[string]Tokens{}
					}
					u.Models[m] = t
				}
			}
		}
		if r.text.Len() > 0 && !r.afterUse {
			u.Result = clip(r.text.String(), maxText)
		}
	default:
		r.unknownType(ev.Type)
	}
}
