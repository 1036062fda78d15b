package sessions

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/agents/sandbox"
)

func harnessGone() harness.Config {
	return harness.Config{Adapter: harness.AdapterCommand, Argv: []string{"/nonexistent/agent", "{prompt_file}"}}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		cfg     Config
		key     string
		message string
	}{
		{Config{Max: -1}, "sessions.max", "negative"},
		{Config{Runner: "screen"}, "sessions.runner", `"screen" is not one of process, tmux`},
		{Config{TimeLimitSeconds: -5}, "sessions.timeLimitSeconds", "negative"},
		{Config{Budget: Budget{CostUSD: -1}}, "sessions.budget", "cannot be negative"},
		{Config{Relaunch: Relaunch{Max: -1}}, "sessions.relaunch.max", "negative"},
		{Config{Relaunch: Relaunch{BackoffSeconds: 100, MaxBackoffSeconds: 10}}, "sessions.relaunch.backoffSeconds", "above maxBackoffSeconds"},
		{Config{MaxTranscriptBytes: 1000}, "sessions.maxTranscriptBytes", "give at least 65536"},
		{Config{Config: sandbox.Config{Confinement: "off"}}, "sessions.confinement", `"off" is not one of auto, none`},
		{Config{Config: sandbox.Config{Sandbox: sandbox.Paths{ReadOnly: []string{"go"}}}}, "sessions.sandbox.readOnly[0]", "not an absolute path"},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate("sessions")
		var fe *harness.FieldError
		require.True(t, errors.As(err, &fe), "%+v: %v", tt.cfg, err)
		assert.Equal(t, tt.key, fe.Key)
		assert.Contains(t, fe.Msg, tt.message)
	}
	assert.NoError(t, Config{}.Validate("sessions"))
	assert.Equal(t, Config{Max: 4, Runner: "process", TimeLimitSeconds: 7200, StopGraceSeconds: 10, DrainSeconds: 120,
		Relaunch: Relaunch{Max: 3, BackoffSeconds: 30, MaxBackoffSeconds: 600}, Config: sandbox.Config{Confinement: sandbox.ModeAuto},
		MaxTranscriptBytes: 64 << 20}, Config{}.WithDefaults())
}

func TestBackoffDoublesUpToTheCap(t *testing.T) {
	c := Config{Relaunch: Relaunch{BackoffSeconds: 30, MaxBackoffSeconds: 200}}
	var got []time.Duration
	for n := 1; n <= 5; n++ {
		got = append(got, c.backoff(n))
	}
	assert.Equal(t, []time.Duration{30 * time.Second, 60 * time.Second, 120 * time.Second, 200 * time.Second, 200 * time.Second}, got)
}

func TestBudgetOver(t *testing.T) {
	b := Budget{Turns: 10, Tokens: 1000, CostUSD: 2}
	assert.Equal(t, "", b.over(10, 1000, 2, false), "reaching a limit is not passing it")
	assert.Equal(t, "10 turns of 10 allowed", b.over(10, 0, 0, true), "but leaves nothing for a new launch")
	assert.Equal(t, "1001 tokens of 1000 allowed", b.over(1, 1001, 0, false))
	assert.Equal(t, "$2.50 of $2.00 allowed", b.over(1, 1, 2.5, false))
	assert.Equal(t, "", Budget{}.over(1e6, 1e9, 1e3, true), "zero is unlimited")
}
