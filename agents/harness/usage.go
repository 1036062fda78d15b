package harness

import (
	"bytes"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/the-loop/the-loop/internal/lazyre"
)

// maxLine bounds one transcript line held while it is incomplete; a longer
// line is skipped (its figures are lost, memory is not).
const maxLine = 8 << 20

// maxText bounds the final result and the error kept from a transcript.
const maxText = 2000

// maxUnknown bounds the unknown event types remembered.
const maxUnknown = 8

// Usage is what a harness reported about a session: its spend, its final
// result and its errors, the same fields whichever CLI printed them.
type Usage struct {
	// Turns counts the model's turns, as the CLI marks them (docs/sessions.md
	// says what each counts).
	Turns int `json:"turns"`
	// Token counts, summed over the session: input not read from a cache,
	// output (reasoning included), cache reads and cache writes.
	InputTokens         int64 `json:"inputTokens"`
	OutputTokens        int64 `json:"outputTokens"`
	CacheReadTokens     int64 `json:"cacheReadTokens"`
	CacheCreationTokens int64 `json:"cacheCreationTokens"`
	// Models breaks the tokens down by model when the CLI does (Gemini CLI).
	Models map[string]Tokens `json:"models,omitempty"`
	// CostUSD is the session's cost and Cost where it came from: reported
	// (the CLI's), estimated (prices times tokens) or "" (unknown: then
	// CostUSD is 0 and means nothing).
	CostUSD float64 `json:"costUsd"`
	Cost    string  `json:"cost,omitempty"`
	// Model is the model the CLI said it runs ("" when it says none).
	Model string `json:"model,omitempty"`
	// Final reports that the CLI's closing event was read (Claude's result,
	// codex's turn.completed or turn.failed, Gemini's result, opencode's
	// last step).
	Final bool `json:"final"`
	// IsError and Subtype are the closing verdict: the run failed, and how.
	IsError bool   `json:"isError,omitempty"`
	Subtype string `json:"subtype,omitempty"`
	// Result is the session's final answer, Error its last error (each at
	// most maxText bytes).
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
	// RateLimited: an error said the provider refused for rate or quota.
	RateLimited bool `json:"rateLimited,omitempty"`
	// Unknown are event types the reader does not know (at most
	// maxUnknown), read past rather than failing.
	Unknown []string `json:"unknown,omitempty"`
	// HarnessSession is the CLI's own session id (claude --resume <id>).
	HarnessSession string `json:"harnessSession,omitempty"`
}

// Tokens are one model's token counts.
type Tokens struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
}

func (t Tokens) total() int64 { return t.Input + t.Output + t.CacheRead + t.CacheWrite }

// clamp reads a negative count, which no CLI means, as none: spend is
// never lowered by what a transcript says.
func (t Tokens) clamp() Tokens {
	return Tokens{Input: max(t.Input, 0), Output: max(t.Output, 0), CacheRead: max(t.CacheRead, 0), CacheWrite: max(t.CacheWrite, 0)}
}

// Tokens is every token the session used: input, output and cache.
func (u Usage) Tokens() int64 {
	return sat(sat(u.InputTokens, u.OutputTokens), sat(u.CacheReadTokens, u.CacheCreationTokens))
}

// sat adds two counts that are not negative, stopping at the largest.
func sat(a, b int64) int64 {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxInt64
}

func (u Usage) tokens() Tokens {
	return Tokens{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadTokens, CacheWrite: u.CacheCreationTokens}
}

func (u *Usage) setTokens(t Tokens) {
	u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheCreationTokens = t.Input, t.Output, t.CacheRead, t.CacheWrite
}

// HasCost says whether the cost is known (reported or estimated).
func (u Usage) HasCost() bool { return u.Cost != "" }

// Reported says whether the harness reported any figure at all.
func (u Usage) Reported() bool { return u.Turns > 0 || u.Tokens() > 0 || u.Cost == CostReported }

// reader reads one CLI's machine output, one JSON object line at a time.
type reader interface {
	line(b []byte)
	usage() Usage
}

// skipper is a reader with event types it reads nothing from (their lines,
// often the bulk of a transcript — tool output — are not decoded).
type skipper interface {
	skips(typ string) bool
}

// peekType returns the event type of a line that opens with it
// ({"type":"…"), as every CLI prints it, and false for any other line.
func peekType(b []byte) (string, bool) {
	const open = `{"type":"`
	if !bytes.HasPrefix(b, []byte(open)) {
		return "", false
	}
	rest := b[len(open):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return "", false
	}
	return string(rest[:end]), true
}

// readers are the formats a Meter reads; text reads nothing.
var readers = map[string]func() reader{
	OutputStreamJSON: func() reader { return &claudeReader{} },
	OutputCodexJSON:  func() reader { return &codexReader{} },
	OutputGeminiJSON: func() reader { return &geminiReader{} },
	OutputOpencode:   func() reader { return &opencodeReader{} },
	OutputText:       func() reader { return &textReader{} },
}

// Meter reads a harness's transcript as it grows (Write it the new bytes)
// and keeps the running figures. Lines that are not JSON objects (a
// terminal's noise) are skipped. The zero Meter reads Claude Code's
// stream-json.
type Meter struct {
	partial []byte
	skip    bool // inside an over-long line
	r       reader
}

// NewMeter returns a meter for format (one of Outputs; anything else reads
// nothing).
func NewMeter(format string) *Meter {
	m := &Meter{}
	if f, ok := readers[format]; ok {
		m.r = f()
	} else {
		m.r = &textReader{}
	}
	return m
}

func (m *Meter) reader() reader {
	if m.r == nil {
		m.r = &claudeReader{}
	}
	return m.r
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

// Close reads a last line the harness left without a newline (a crash mid
// line leaves one that is not JSON, and it is skipped).
func (m *Meter) Close() {
	if !m.skip && len(m.partial) > 0 {
		m.line(m.partial)
	}
	m.partial, m.skip = m.partial[:0], false
}

func (m *Meter) line(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return
	}
	r := m.reader()
	if sk, ok := r.(skipper); ok {
		if typ, ok := peekType(b); ok && sk.skips(typ) {
			return
		}
	}
	r.line(b)
}

// Usage returns the figures read so far.
func (m *Meter) Usage() Usage { return m.reader().usage() }

// textReader reads nothing: the harness prints no figures.
type textReader struct{}

func (*textReader) line([]byte)  {}
func (*textReader) usage() Usage { return Usage{} }

// common is what every reader keeps besides its figures.
type common struct {
	u       Usage
	unknown map[string]bool
}

// unknownType remembers an event type the reader does not know.
func (c *common) unknownType(t string) {
	if t == "" || c.unknown[t] || len(c.u.Unknown) >= maxUnknown {
		return
	}
	if c.unknown == nil {
		c.unknown = map[string]bool{}
	}
	c.unknown[t] = true
	c.u.Unknown = append(c.u.Unknown, clip(t, 80))
}

// rateLimit reads the provider's refusals for rate or quota.
var rateLimit = lazyre.New(`(?i)\b429\b|rate[ _-]?limit|resource[ _]exhausted|too many requests|quota`)

// failed records an error message.
func (c *common) failed(msg string) {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return
	}
	c.u.Error = clip(msg, maxText)
	if rateLimit().MatchString(msg) {
		c.u.RateLimited = true
	}
}

// clip bounds s to n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
