package harness

import (
	"encoding/json"
	"strings"
)

// opencodeReader reads `opencode run --format json`: every event carries
// the session id; step_finish closes one step (one call of the model) with
// its tokens and cost, text carries the model's text, tool_use a finished
// tool call, and error the session's error. A turn is one step.
type opencodeReader struct {
	common
	textMsg string
	text    strings.Builder
}

type opencodeEvent struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionID"`
	Part      *struct {
		MessageID string   `json:"messageID"`
		Reason    string   `json:"reason"`
		Text      string   `json:"text"`
		Cost      *float64 `json:"cost"`
		Tokens    *struct {
			Input     int64 `json:"input"`
			Output    int64 `json:"output"`
			Reasoning int64 `json:"reasoning"`
			Cache     struct {
				Read  int64 `json:"read"`
				Write int64 `json:"write"`
			} `json:"cache"`
		} `json:"tokens"`
	} `json:"part"`
	Error *struct {
		Name string `json:"name"`
		Data struct {
			Message    string `json:"message"`
			StatusCode int    `json:"statusCode"`
		} `json:"data"`
	} `json:"error"`
}

func (r *opencodeReader) usage() Usage {
	u := r.u
	if r.text.Len() > 0 {
		u.Result = clip(r.text.String(), maxText)
	}
	return u
}

func (r *opencodeReader) line(b []byte) {
	var ev opencodeEvent
	if json.Unmarshal(b, &ev) != nil {
		return
	}
	u := &r.u
	if ev.SessionID != "" {
		u.HarnessSession = ev.SessionID
	}
	switch ev.Type {
	case "step_start":
		u.Final = false
	case "step_finish":
		if ev.Part == nil {
			return
		}
		u.Turns++
		if t := ev.Part.Tokens; t != nil {
			step := Tokens{Input: t.Input, Output: max(t.Output, 0) + max(t.Reasoning, 0), CacheRead: t.Cache.Read, CacheWrite: t.Cache.Write}
			u.setTokens(u.tokens().plus(step.clamp()))
		}
		if ev.Part.Cost != nil {
			u.CostUSD += max(*ev.Part.Cost, 0)
			u.Cost = CostReported
		}
		u.Final = ev.Part.Reason == "stop"
	case "text":
		if ev.Part == nil {
			return
		}
		if ev.Part.MessageID != r.textMsg {
			r.text.Reset()
			r.textMsg = ev.Part.MessageID
		}
		if r.text.Len() < 4*maxText {
			r.text.WriteString(ev.Part.Text)
		}
	case "error":
		u.IsError = true
		if ev.Error != nil {
			msg := firstNonEmpty(ev.Error.Data.Message, ev.Error.Name)
			r.failed(msg)
			if ev.Error.Data.StatusCode == 429 {
				u.RateLimited = true
			}
			u.Subtype = ev.Error.Name
		}
	case "tool_use", "reasoning":
	default:
		r.unknownType(ev.Type)
	}
}

// skips are the event types opencodeReader reads nothing from.
func (*opencodeReader) skips(typ string) bool {
	switch typ {
	case "tool_use", "reasoning":
		return true
	}
	return false
}
