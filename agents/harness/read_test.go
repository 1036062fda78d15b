package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/harness/harnesstest"
)

// formats are the machine outputs of the recorded CLIs.
var formats = map[string]string{"claude": OutputStreamJSON, "codex": OutputCodexJSON, "gemini": OutputGeminiJSON, "opencode": OutputOpencode}

// readRecording feeds a recording to a fresh meter in random chunks, as a
// growing transcript is read, and closes it as when the session ended.
func readRecording(t *testing.T, cli, name string, seed int64) Usage {
	t.Helper()
	b, err := harnesstest.Recording(cli, name)
	require.NoError(t, err)
	m := NewMeter(formats[cli])
	feed(m, b, seed)
	m.Close()
	return m.Usage()
}

func TestEveryRecordingReadsIntoTheSameRecord(t *testing.T) {
	const (
		claudeSession = "5f3c2a1e-0b7d-4c2e-9a51-6f0d3b2c1a9"
		geminiSession = "9b1f0c4e-2d7a-4e53-8f61-3c2b1a0d9e"
		opencode      = "ses_4d2a9c1e7ffeQ1xYb3Kp0sRtU"
	)
	tests := []struct {
		cli, name string
		want      Usage
	}{
		{"claude", "success", Usage{Turns: 4, InputTokens: 1520, OutputTokens: 167, CacheReadTokens: 8700, CacheCreationTokens: 3000,
			CostUSD: 0.1834, Cost: CostReported, Model: "claude-opus", Final: true, Subtype: "success", Result: "Done: the design is claimed.", HarnessSession: claudeSession + "0"}},
		{"claude", "tool-error", Usage{Turns: 2, InputTokens: 1860, OutputTokens: 44, CostUSD: 0.0061, Cost: CostReported, Model: "claude-sonnet-4-5",
			Final: true, Subtype: "success", Result: "I am not allowed to run that command.", HarnessSession: claudeSession + "1"}},
		{"claude", "rate-limit", Usage{Turns: 1, Cost: CostReported, Model: "claude-sonnet-4-5", Final: true, IsError: true, Subtype: "success", RateLimited: true,
			Error:          `API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 40,000 input tokens per minute."}}`,
			HarnessSession: claudeSession + "2"}},
		{"claude", "crash", Usage{Turns: 1, InputTokens: 700, OutputTokens: 9, Model: "claude-sonnet-4-5", HarnessSession: claudeSession + "3"}},
		{"claude", "unknown-events", Usage{Turns: 1, InputTokens: 300, OutputTokens: 5, CostUSD: 0.0004, Cost: CostReported, Model: "claude-haiku-4-5",
			Final: true, Subtype: "success", Result: "Done.", Unknown: []string{"telepathy"}, HarnessSession: claudeSession + "4"}},

		{"codex", "success", Usage{Turns: 5, InputTokens: 7250, CacheReadTokens: 40960, OutputTokens: 1834, Final: true,
			Result: "The design is written, pushed and claimed; issue-7 waits at design-approval.", HarnessSession: "0199c3f1-5b2e-7d10-9c41-2f6a7b8c9d01"}},
		{"codex", "tool-error", Usage{Turns: 3, InputTokens: 8192, CacheReadTokens: 12288, OutputTokens: 640, Final: true,
			Result: "The claim was refused: two tasks are still open.", HarnessSession: "0199c3f1-5b2e-7d10-9c41-2f6a7b8c9d02"}},
		{"codex", "rate-limit", Usage{Final: true, IsError: true, Subtype: "turn_failed", RateLimited: true,
			Error: "exceeded retry limit, last status: 429 Too Many Requests", HarnessSession: "0199c3f1-5b2e-7d10-9c41-2f6a7b8c9d03"}},
		{"codex", "crash", Usage{Turns: 1, Result: "Starting on the design.", HarnessSession: "0199c3f1-5b2e-7d10-9c41-2f6a7b8c9d04"}},
		{"codex", "unknown-events", Usage{Turns: 2, InputTokens: 9000, OutputTokens: 300, Final: true, Result: "Done.",
			Unknown: []string{"thread.compacted", "item:hologram"}, HarnessSession: "0199c3f1-5b2e-7d10-9c41-2f6a7b8c9d05"}},

		{"gemini", "success", Usage{Turns: 5, InputTokens: 18020, CacheReadTokens: 40100, OutputTokens: 2310, Model: "gemini-2.5-pro", Final: true,
			Models: map[string]Tokens{"gemini-2.5-pro": {Input: 15900, Output: 2200, CacheRead: 40100}, "gemini-2.5-flash-lite": {Input: 2120, Output: 110}},
			Result: "The design is written, pushed and claimed.", HarnessSession: geminiSession + "87"}},
		{"gemini", "tool-error", Usage{Turns: 2, InputTokens: 12000, OutputTokens: 400, Model: "gemini-2.5-pro", Final: true,
			Models: map[string]Tokens{"gemini-2.5-pro": {Input: 12000, Output: 400}}, Result: "I cannot run the tests here.", HarnessSession: geminiSession + "88"}},
		{"gemini", "rate-limit", Usage{Model: "gemini-2.5-pro", Final: true, IsError: true, Subtype: "Error", RateLimited: true,
			Error: "[API Error: You have exhausted your capacity on this model. Your quota will reset after 58s. (status: 429 RESOURCE_EXHAUSTED)]", HarnessSession: geminiSession + "89"}},
		{"gemini", "crash", Usage{Turns: 1, Model: "gemini-2.5-pro", Result: "Reading.", HarnessSession: geminiSession + "90"}},
		{"gemini", "unknown-events", Usage{Turns: 1, InputTokens: 500, OutputTokens: 200, Model: "gemini-2.5-flash", Final: true,
			Models: map[string]Tokens{"gemini-2.5-flash": {Input: 500, Output: 200}}, Result: "Done.", Unknown: []string{"thought", "compression"}, HarnessSession: geminiSession + "91"}},
		{"gemini", "turn-limit", Usage{Turns: 1, InputTokens: 58000, CacheReadTokens: 30000, OutputTokens: 2000, Model: "gemini-2.5-pro", Final: true, IsError: true,
			Models:  map[string]Tokens{"gemini-2.5-pro": {Input: 58000, Output: 2000, CacheRead: 30000}},
			Subtype: "FatalTurnLimitedError", Error: "Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json.",
			HarnessSession: geminiSession + "92"}},

		{"opencode", "success", Usage{Turns: 3, InputTokens: 12500, OutputTokens: 1958, CacheReadTokens: 24160, CacheCreationTokens: 12360,
			CostUSD: 0.0442, Cost: CostReported, Final: true, Result: "The design is written, pushed and claimed.", HarnessSession: opencode + "v"}},
		{"opencode", "tool-error", Usage{Turns: 2, InputTokens: 4300, OutputTokens: 116, CostUSD: 0.0043, Cost: CostReported, Final: true,
			Result: "I was not allowed to remove the build folder.", HarnessSession: opencode + "w"}},
		{"opencode", "rate-limit", Usage{IsError: true, Subtype: "APIError", RateLimited: true,
			Error: "rate_limit_error: This request would exceed the rate limit for your organization of 40,000 input tokens per minute.", HarnessSession: opencode + "x"}},
		{"opencode", "crash", Usage{HarnessSession: opencode + "y"}},
		{"opencode", "unknown-events", Usage{Turns: 1, InputTokens: 900, OutputTokens: 100, Cost: CostReported, Final: true, Result: "Done.",
			Unknown: []string{"patch", "session.compacted"}, HarnessSession: opencode + "z"}},
	}
	for _, tt := range tests {
		t.Run(tt.cli+"/"+tt.name, func(t *testing.T) {
			for seed := int64(0); seed < 4; seed++ {
				got := readRecording(t, tt.cli, tt.name, seed)
				assert.InDelta(t, tt.want.CostUSD, got.CostUSD, 1e-9)
				got.CostUSD = tt.want.CostUSD
				assert.Equal(t, tt.want, got)
			}
		})
	}
}

func TestEveryCLIHasEveryRecording(t *testing.T) {
	for _, cli := range harnesstest.CLIs {
		for _, name := range harnesstest.Cases {
			_, err := harnesstest.Recording(cli, name)
			assert.NoError(t, err)
		}
	}
}

func TestAMeterReadsNothingFromText(t *testing.T) {
	m := NewMeter(OutputText)
	b, err := harnesstest.Recording("claude", "success")
	require.NoError(t, err)
	_, _ = m.Write(b)
	m.Close()
	assert.Equal(t, Usage{}, m.Usage())
	assert.Equal(t, Usage{}, NewMeter("no-such-format").Usage())
}

func TestNegativeAndHugeCountsNeverLowerTheSpend(t *testing.T) {
	m := NewMeter(OutputOpencode)
	_, _ = m.Write([]byte(`{"type":"step_finish","part":{"cost":-5,"tokens":{"input":-100,"output":9223372036854775807,"cache":{"read":9223372036854775807}}}}` + "\n" +
		`{"type":"step_finish","part":{"cost":1,"tokens":{"input":1,"output":9223372036854775807}}}` + "\n"))
	u := m.Usage()
	assert.Equal(t, 1.0, u.CostUSD)
	assert.Equal(t, int64(1), u.InputTokens)
	assert.Equal(t, int64(9223372036854775807), u.OutputTokens, "a sum stops at the largest count")
	assert.Equal(t, int64(9223372036854775807), u.Tokens())

	c := NewMeter(OutputCodexJSON)
	_, _ = c.Write([]byte(`{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":50,"output_tokens":-3}}` + "\n"))
	assert.Equal(t, Usage{CacheReadTokens: 50, Final: true}, c.Usage(), "cached input never makes input negative")
}

func TestResultAndErrorAreBounded(t *testing.T) {
	long := make([]byte, 3*maxText)
	for i := range long {
		long[i] = 'é' >> 2 // plain ASCII
	}
	text := "é" + string(long)
	m := NewMeter(OutputCodexJSON)
	_, _ = m.Write([]byte(`{"type":"item.completed","item":{"type":"agent_message","text":"` + text + `"}}` + "\n" +
		`{"type":"turn.failed","error":{"message":"` + text + `"}}` + "\n"))
	u := m.Usage()
	assert.LessOrEqual(t, len(u.Result), maxText)
	assert.LessOrEqual(t, len(u.Error), maxText)
	assert.True(t, len(u.Result) > maxText-10)
	assert.Equal(t, "…", u.Result[len(u.Result)-len("…"):])
}
