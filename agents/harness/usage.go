package harness

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// maxLine bounds one transcript line held while it is incomplete; a longer
// line is skipped (its figures are lost, memory is not).
const maxLine = 8 << 20

// Usage is what a harness reported about a session's spend.
type Usage struct {
	// Turns counts the model's turns (assistant messages; the result's
	// num_turns once it arrives).
	Turns int `json:"turns"`
	// Token counts, summed over the session's messages.
	InputTokens         int64 `json:"inputTokens"`
	OutputTokens        int64 `json:"outputTokens"`
	CacheReadTokens     int64 `json:"cacheReadTokens"`
	CacheCreationTokens int64 `json:"cacheCreationTokens"`
	// CostUSD is the harness's own cost figure (the result event's
	// total_cost_usd); HasCost says whether one was reported.
	CostUSD float64 `json:"costUsd"`
	HasCost bool    `json:"hasCost"`
	// Final reports that the closing result event was read.
	Final bool `json:"final"`
	// IsError and Subtype are the result event's own verdict.
	IsError bool   `json:"isError,omitempty"`
	Subtype string `json:"subtype,omitempty"`
	// HarnessSession is the harness's session id (claude --resume <id>).
	HarnessSession string `json:"harnessSession,omitempty"`
}

// Tokens is every token the session used: input, output and cache.
func (u Usage) Tokens() int64 {
	return u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheCreationTokens
}

// Reported says whether the harness reported any figure at all.
func (u Usage) Reported() bool { return u.Turns > 0 || u.Tokens() > 0 || u.HasCost }

// Meter reads a stream-json transcript as it grows (Write it the new
// bytes) and keeps the running figures. It reads Claude Code's event
// shapes: assistant messages carry message.id and message.usage, the final
// result event carries num_turns, total_cost_usd and the usage totals.
// Lines that are not JSON objects (a terminal's noise) are skipped.
type Meter struct {
	partial []byte
	skip    bool // inside an over-long line
	msgs    map[string]tokenCounts
	total   tokenCounts
	order   int // assistant messages without an id
	usage   Usage
	result  bool
}

type tokenCounts struct {
	Input         int64 `json:"input_tokens"`
	Output        int64 `json:"output_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
}

type event struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	SessionID string `json:"session_id"`
	Message   *struct {
		ID    string       `json:"id"`
		Usage *tokenCounts `json:"usage"`
	} `json:"message"`
	NumTurns *int         `json:"num_turns"`
	CostUSD  *float64     `json:"total_cost_usd"`
	IsError  bool         `json:"is_error"`
	Usage    *tokenCounts `json:"usage"`
}

// Write feeds transcript bytes; it never fails.
func (m *Meter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if !m.skip {
				m.partial = append(m.partial, p...)
				if len(m.partial) > maxLine {
					m.partial, m.skip = m.partial[:0], true
				}
			}
			break
		}
		if !m.skip {
			m.line(append(m.partial, p[:i]...))
		}
		m.partial, m.skip = m.partial[:0], false
		p = p[i+1:]
	}
	return n, nil
}

func (m *Meter) line(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return
	}
	var ev event
	if json.Unmarshal(b, &ev) != nil {
		return
	}
	switch ev.Type {
	case "system":
		if ev.SessionID != "" && m.usage.HarnessSession == "" {
			m.usage.HarnessSession = ev.SessionID
		}
	case "assistant":
		if ev.Message == nil || m.result {
			return
		}
		if m.msgs == nil {
			m.msgs = map[string]tokenCounts{}
		}
		id := ev.Message.ID
		if id == "" {
			m.order++
			id = "#" + strconv.Itoa(m.order) // no id: count it on its own
		}
		var tc tokenCounts
		if ev.Message.Usage != nil {
			tc = *ev.Message.Usage
		}
		// One message is streamed as several events; keep its latest counts.
		m.total = m.total.minus(m.msgs[id]).plus(tc)
		m.msgs[id] = tc
		u := &m.usage
		u.Turns = len(m.msgs)
		u.InputTokens, u.OutputTokens = m.total.Input, m.total.Output
		u.CacheReadTokens, u.CacheCreationTokens = m.total.CacheRead, m.total.CacheCreation
	case "result":
		m.result = true
		u := &m.usage
		u.Final, u.IsError, u.Subtype = true, ev.IsError, ev.Subtype
		if ev.SessionID != "" {
			u.HarnessSession = ev.SessionID
		}
		if ev.NumTurns != nil {
			u.Turns = *ev.NumTurns
		}
		if ev.CostUSD != nil {
			u.CostUSD, u.HasCost = *ev.CostUSD, true
		}
		if ev.Usage != nil {
			u.InputTokens, u.OutputTokens = ev.Usage.Input, ev.Usage.Output
			u.CacheReadTokens, u.CacheCreationTokens = ev.Usage.CacheRead, ev.Usage.CacheCreation
		}
	}
}

func (a tokenCounts) plus(b tokenCounts) tokenCounts {
	return tokenCounts{a.Input + b.Input, a.Output + b.Output, a.CacheRead + b.CacheRead, a.CacheCreation + b.CacheCreation}
}

func (a tokenCounts) minus(b tokenCounts) tokenCounts {
	return tokenCounts{a.Input - b.Input, a.Output - b.Output, a.CacheRead - b.CacheRead, a.CacheCreation - b.CacheCreation}
}

// Usage returns the figures read so far.
func (m *Meter) Usage() Usage { return m.usage }
