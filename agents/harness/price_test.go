package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCostIsReportedEstimatedOrUnknownNeverZero(t *testing.T) {
	prices := map[string]Price{
		"gpt-5.5":               {Input: f(1.25), CachedInput: f(0.125), Output: f(10)},
		"gemini-2.5-pro":        {Input: f(1.25), Output: f(10), CachedInput: f(0.31)},
		"gemini-2.5-flash-lite": {Input: f(0.1), Output: f(0.4)},
	}
	tests := []struct {
		name     string
		cli, rec string
		prices   map[string]Price
		model    string
		cost     float64
		source   string
		why      string
	}{
		{"reported by the CLI wins over prices", "claude", "success", prices, "opus", 0.1834, CostReported, ""},
		{"codex: the launch's model priced", "codex", "success", prices, "gpt-5.5", (7250*1.25 + 40960*0.125 + 1834*10) / 1e6, CostEstimated, ""},
		{"codex: no model named", "codex", "success", prices, "", 0, "", "no model was named"},
		{"codex: no price for the model", "codex", "success", prices, "gpt-6", 0, "", "prices has no entry for model gpt-6"},
		{"codex: no prices at all", "codex", "success", nil, "gpt-5.5", 0, "", "prices has no entry for model gpt-5.5"},
		{"gemini: each model of the breakdown priced", "gemini", "success", prices, "",
			(15900*1.25+2200*10+40100*0.31)/1e6 + (2120*0.1+110*0.4)/1e6, CostEstimated, ""},
		{"gemini: one model of the breakdown unpriced", "gemini", "success", map[string]Price{"gemini-2.5-pro": prices["gemini-2.5-pro"]}, "", 0, "", "model gemini-2.5-flash-lite"},
		{"a closing event that spent nothing costs nothing", "codex", "rate-limit", nil, "", 0, CostEstimated, ""},
		{"a crash before any figure: unknown", "codex", "crash", prices, "gpt-5.5", 0, "", "no cost and no tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := readRecording(t, tt.cli, tt.rec, 1)
			why := Estimate(&u, tt.prices, tt.model)
			assert.InDelta(t, tt.cost, u.CostUSD, 1e-12)
			assert.Equal(t, tt.source, u.Cost)
			if tt.why == "" {
				assert.Empty(t, why)
			} else {
				assert.Contains(t, why, tt.why)
			}
		})
	}
}

func f(v float64) *float64 { return &v }
