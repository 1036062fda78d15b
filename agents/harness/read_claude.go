package harness

import (
	"encoding/json"
	"strconv"
)

// claudeReader reads Claude Code's stream-json: assistant messages carry
// message.id and message.usage (one message is streamed as several
// events), the system init event the session id and model, and the final
// result event num_turns, total_cost_usd, the usage totals and the result.
type claudeReader struct {
	common
	msgs   map[string]Tokens
	total  Tokens
	order  int // assistant messages without an id
	result bool
}

type claudeCounts struct {
	Input         int64 `json:"input_tokens"`
	Output        int64 `json:"output_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
}

func (c claudeCounts) tokens() Tokens {
	return Tokens{Input: c.Input, Output: c.Output, CacheRead: c.CacheRead, CacheWrite: c.CacheCreation}.clamp()
}

type claudeEvent struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	SessionID string `json:"session_id"`
	Model     string `json:"model"`
	Error     string `json:"error"`
	Message   *struct {
		ID      string        `json:"id"`
		Usage   *claudeCounts `json:"usage"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"message"`
	NumTurns *int          `json:"num_turns"`
	CostUSD  *float64      `json:"total_cost_usd"`
	IsError  bool          `json:"is_error"`
	Usage    *claudeCounts `json:"usage"`
	Result   *string       `json:"result"`
}

func (r *claudeReader) usage() Usage { return r.u }

func (r *claudeReader) line(b []byte) {
	var ev claudeEvent
	if json.Unmarshal(b, &ev) != nil {
		return
	}
	u := &r.u
	switch ev.Type {
	case "system":
		if ev.SessionID != "" && u.HarnessSession == "" {
			u.HarnessSession = ev.SessionID
		}
		if ev.Model != "" && u.Model == "" {
			u.Model = ev.Model
		}
	case "assistant":
		if ev.Message == nil || r.result {
			return
		}
		if ev.Error != "" {
			text := ev.Error
			for _, c := range ev.Message.Content {
				if c.Type == "text" && c.Text != "" {
					text = c.Text
				}
			}
			r.failed(text)
		}
		if r.msgs == nil {
			r.msgs = map[string]Tokens{}
		}
		id := ev.Message.ID
		if id == "" {
			r.order++
			id = "#" + strconv.Itoa(r.order) // no id: count it on its own
		}
		var t Tokens
		if ev.Message.Usage != nil {
			t = ev.Message.Usage.tokens()
		}
		// One message is streamed as several events; keep its latest counts.
		r.total = r.total.minus(r.msgs[id]).plus(t)
		r.msgs[id] = t
		u.Turns = len(r.msgs)
		u.setTokens(r.total.clamp())
	case "result":
		r.result = true
		u.Final, u.IsError, u.Subtype = true, ev.IsError, ev.Subtype
		if ev.SessionID != "" {
			u.HarnessSession = ev.SessionID
		}
		if ev.NumTurns != nil {
			u.Turns = *ev.NumTurns
		}
		if ev.CostUSD != nil {
			u.CostUSD, u.Cost = max(*ev.CostUSD, 0), CostReported
		}
		if ev.Usage != nil {
			u.setTokens(ev.Usage.tokens())
		}
		if ev.Result != nil {
			if ev.IsError {
				r.failed(*ev.Result)
			} else {
				u.Result = clip(*ev.Result, maxText)
			}
		}
	case "user", "stream_event":
	default:
		r.unknownType(ev.Type)
	}
}

func (a Tokens) plus(b Tokens) Tokens {
	return Tokens{sat(a.Input, b.Input), sat(a.Output, b.Output), sat(a.CacheRead, b.CacheRead), sat(a.CacheWrite, b.CacheWrite)}
}

func (a Tokens) minus(b Tokens) Tokens {
	return Tokens{a.Input - b.Input, a.Output - b.Output, a.CacheRead - b.CacheRead, a.CacheWrite - b.CacheWrite}
}

// skips are the event types claudeReader reads nothing from.
func (*claudeReader) skips(typ string) bool {
	switch typ {
	case "user", "stream_event":
		return true
	}
	return false
}
