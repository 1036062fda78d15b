package sessions

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/harness"
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
		{Config{Budget: Budget{WallSeconds: -1}}, "sessions.budget", "cannot be negative"},
		{Config{RepositoryBudget: RepositoryBudget{Budget: Budget{Tokens: -1}}}, "sessions.repositoryBudget", "cannot be negative"},
		{Config{RepositoryBudget: RepositoryBudget{WindowHours: -2}}, "sessions.repositoryBudget.windowHours", "-2 is negative; give the window in hours"},
		{Config{Relaunch: Relaunch{Max: -1}}, "sessions.relaunch.max", "negative"},
		{Config{Relaunch: Relaunch{BackoffSeconds: 100, MaxBackoffSeconds: 10}}, "sessions.relaunch.backoffSeconds", "above maxBackoffSeconds"},
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
		RepositoryBudget: RepositoryBudget{WindowHours: 720},
		Relaunch:         Relaunch{Max: 3, BackoffSeconds: 30, MaxBackoffSeconds: 600}}, Config{}.WithDefaults())
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
	b := Budget{Turns: 10, Tokens: 1000, CostUSD: 2, WallSeconds: 3600}
	assert.Equal(t, "", b.over(Figures{Turns: 10, Tokens: 1000, CostUSD: 2, WallSeconds: 3600}, false), "reaching a limit is not passing it")
	assert.Equal(t, "10 turns of 10 allowed", b.over(Figures{Turns: 10}, true), "but leaves nothing for a new launch")
	assert.Equal(t, "1001 tokens of 1000 allowed", b.over(Figures{Turns: 1, Tokens: 1001}, false))
	assert.Equal(t, "$2.50 of $2.00 allowed", b.over(Figures{Turns: 1, Tokens: 1, CostUSD: 2.5}, false))
	assert.Equal(t, "1h0m5s of run time of 1h0m0s allowed", b.over(Figures{WallSeconds: 3605}, false))
	assert.Equal(t, "", Budget{}.over(Figures{Turns: 1e6, Tokens: 1e9, CostUSD: 1e3, WallSeconds: 1e9}, true), "zero is unlimited")
}

func TestABudgetNamesTheFigureItsHarnessCannotMeasure(t *testing.T) {
	codex := harness.Config{Adapter: harness.AdapterCodex, Model: "gpt-5.5"}
	m := harness.Measures("codex", codex, "gpt-5.5")
	assert.Equal(t, "", Budget{Tokens: 1000, Turns: 9, WallSeconds: 60}.unmeasured(m, "sessions.budget"), "codex reports turns and tokens")
	assert.Equal(t, "sessions.budget.costUsd is set and this session's costUsd cannot be measured: codex reports no cost and harness codex has no price for model gpt-5.5 (add harnesses.codex.prices.gpt-5.5); or set sessions.budget.costUsd to 0",
		Budget{CostUSD: 5}.unmeasured(m, "sessions.budget"))
	one := 1.0
	codex.Prices = map[string]harness.Price{"gpt-5.5": {Input: &one, Output: &one}}
	assert.Equal(t, "", Budget{CostUSD: 5}.unmeasured(harness.Measures("codex", codex, "gpt-5.5"), "sessions.budget"))
	text := harness.Config{Adapter: harness.AdapterCommand, Argv: []string{"agent", "{prompt_file}"}}
	assert.Contains(t, Budget{Tokens: 5}.unmeasured(harness.Measures("cursor", text, ""), "sessions.repositoryBudget"),
		"sessions.repositoryBudget.tokens is set and this session's tokens cannot be measured: harness cursor prints text")
}
