package harness

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/harness/harnesstest"
)

// feed writes b to m in random-sized chunks, as a growing file is read.
func feed(m *Meter, b []byte, seed int64) {
	r := rand.New(rand.NewSource(seed))
	for len(b) > 0 {
		n := 1 + r.Intn(64)
		if n > len(b) {
			n = len(b)
		}
		_, _ = m.Write(b[:n])
		b = b[n:]
	}
}

func TestMeterReadsClaudeStreamJSON(t *testing.T) {
	all, err := harnesstest.Recording("claude", "success")
	require.NoError(t, err)
	cut := bytes.Index(all, []byte(`{"type":"assistant","message":{"id":"msg_03"`))
	stream, result := all[:cut], all[cut:]
	for seed := int64(0); seed < 5; seed++ {
		var m Meter
		feed(&m, stream, seed)
		live := m.Usage()
		assert.Equal(t, Usage{Turns: 2, InputTokens: 1500, OutputTokens: 155, CacheReadTokens: 4200, CacheCreationTokens: 3000, Model: "claude-opus",
			HarnessSession: "5f3c2a1e-0b7d-4c2e-9a51-6f0d3b2c1a90"}, live, "running figures: each message counted once, at its latest usage")
		assert.True(t, live.Reported())
		assert.Equal(t, int64(8855), live.Tokens())

		feed(&m, result, seed)
		final := m.Usage()
		assert.Equal(t, Usage{Turns: 4, InputTokens: 1520, OutputTokens: 167, CacheReadTokens: 8700, CacheCreationTokens: 3000,
			CostUSD: 0.1834, Cost: CostReported, Final: true, Subtype: "success", Result: "Done: the design is claimed.", Model: "claude-opus", HarnessSession: "5f3c2a1e-0b7d-4c2e-9a51-6f0d3b2c1a90"}, final,
			"the result event's totals are authoritative")
	}
}

func TestMeterSkipsNoiseAndBoundsMemory(t *testing.T) {
	var m Meter
	in := "\x1b[?25l\r\nnot json\r\n[1,2]\r\n{broken\r\n" +
		`{"type":"assistant","message":{"id":"a","usage":{"input_tokens":5,"output_tokens":7}}}` + "\r\n" +
		`{"type":"assistant","message":{"usage":{"output_tokens":1}}}` + "\n" +
		`{"type":"assistant","message":{"usage":{"output_tokens":1}}}` + "\n"
	_, _ = m.Write([]byte(in))
	assert.Equal(t, Usage{Turns: 3, InputTokens: 5, OutputTokens: 9}, m.Usage(), "messages without an id count once each")

	var big Meter
	_, _ = big.Write([]byte(`{"type":"assistant","message":{"id":"x","usage":{"output_tokens":1}},"pad":"`))
	_, _ = big.Write([]byte(strings.Repeat("x", maxLine+10)))
	_, _ = big.Write([]byte("\"}\n" + `{"type":"assistant","message":{"id":"y","usage":{"output_tokens":2}}}` + "\n"))
	assert.Equal(t, Usage{Turns: 1, OutputTokens: 2}, big.Usage(), "an over-long line is skipped whole, the next one read")
	assert.LessOrEqual(t, cap(big.partial), 2*maxLine)

	var none Meter
	_, _ = none.Write([]byte("plain text output\n"))
	assert.False(t, none.Usage().Reported())
}
