package config

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSessionLimitsValidate(t *testing.T) {
	tests := []struct {
		cfg     SessionLimits
		key     string
		message string
	}{
		{SessionLimits{Max: -1}, "sessions.max", "negative"},
		{SessionLimits{Runner: "screen"}, "sessions.runner", `"screen" is not one of process, tmux`},
		{SessionLimits{TimeLimitSeconds: -5}, "sessions.timeLimitSeconds", "negative"},
		{SessionLimits{Budget: Budget{CostUSD: -1}}, "sessions.budget", "cannot be negative"},
		{SessionLimits{Budget: Budget{WallSeconds: -1}}, "sessions.budget", "cannot be negative"},
		{SessionLimits{RepositoryBudget: RepositoryBudget{Budget: Budget{Tokens: -1}}}, "sessions.repositoryBudget", "cannot be negative"},
		{SessionLimits{RepositoryBudget: RepositoryBudget{WindowHours: -2}}, "sessions.repositoryBudget.windowHours", "-2 is negative; give the window in hours"},
		{SessionLimits{Relaunch: Relaunch{Max: -1}}, "sessions.relaunch.max", "negative"},
		{SessionLimits{Relaunch: Relaunch{BackoffSeconds: 100, MaxBackoffSeconds: 10}}, "sessions.relaunch.backoffSeconds", "above maxBackoffSeconds"},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate("sessions")
		var fe *FieldError
		require.True(t, errors.As(err, &fe), "%+v: %v", tt.cfg, err)
		assert.Equal(t, tt.key, fe.Key)
		assert.Contains(t, fe.Msg, tt.message)
	}
	assert.NoError(t, SessionLimits{}.Validate("sessions"))
	assert.Equal(t, SessionLimits{Max: 4, Runner: "process", TimeLimitSeconds: 7200, StopGraceSeconds: 10, DrainSeconds: 120,
		RepositoryBudget: RepositoryBudget{WindowHours: 720},
		Relaunch:         Relaunch{Max: 3, BackoffSeconds: 30, MaxBackoffSeconds: 600}, SessionConfinement: SessionConfinement{Confinement: ConfinementAuto},
		MaxTranscriptBytes: DefaultMaxTranscriptBytes}, SessionLimits{}.WithDefaults())
}

func TestBackoffDoublesUpToTheCap(t *testing.T) {
	c := SessionLimits{Relaunch: Relaunch{BackoffSeconds: 30, MaxBackoffSeconds: 200}}
	var got []time.Duration
	for n := 1; n <= 5; n++ {
		got = append(got, c.Backoff(n))
	}
	assert.Equal(t, []time.Duration{30 * time.Second, 60 * time.Second, 120 * time.Second, 200 * time.Second, 200 * time.Second}, got)
}

func TestBudgetOver(t *testing.T) {
	b := Budget{Turns: 10, Tokens: 1000, CostUSD: 2, WallSeconds: 3600}
	assert.Equal(t, "", b.Over(10, 1000, 2, 3600, false), "reaching a limit is not passing it")
	assert.Equal(t, "10 turns of 10 allowed", b.Over(10, 0, 0, 0, true), "but leaves nothing for a new launch")
	assert.Equal(t, "1001 tokens of 1000 allowed", b.Over(1, 1001, 0, 0, false))
	assert.Equal(t, "$2.50 of $2.00 allowed", b.Over(1, 1, 2.5, 0, false))
	assert.Equal(t, "1h0m5s of run time of 1h0m0s allowed", b.Over(0, 0, 0, 3605, false))
	assert.Equal(t, "", Budget{}.Over(1e6, 1e9, 1e3, 1e9, true), "zero is unlimited")
	assert.True(t, Budget{WallSeconds: 1}.Set())
	assert.False(t, Budget{}.Set())
	assert.Equal(t, 24*time.Hour, RepositoryBudget{WindowHours: 24}.Window())
}
