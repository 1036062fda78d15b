package sessions

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/the-loop/the-loop/agents/harness"
)

func TestABudgetNamesTheFigureItsHarnessCannotMeasure(t *testing.T) {
	codex := harness.Config{Adapter: harness.AdapterCodex, Model: "gpt-5.5"}
	m := harness.Measures("codex", codex, "gpt-5.5")
	assert.Equal(t, "", unmeasured(Budget{Tokens: 1000, Turns: 9, WallSeconds: 60}, m, "sessions.budget"), "codex reports turns and tokens")
	assert.Equal(t, "sessions.budget.costUsd is set and this session's costUsd cannot be measured: codex reports no cost and harness codex has no price for model gpt-5.5 (add harnesses.codex.prices.gpt-5.5); or set sessions.budget.costUsd to 0",
		unmeasured(Budget{CostUSD: 5}, m, "sessions.budget"))
	one := 1.0
	codex.Prices = map[string]harness.Price{"gpt-5.5": {Input: &one, Output: &one}}
	assert.Equal(t, "", unmeasured(Budget{CostUSD: 5}, harness.Measures("codex", codex, "gpt-5.5"), "sessions.budget"))
	assert.Contains(t, unmeasured(Budget{CostUSD: 5}, harness.Measures("codex", codex, ""), "sessions.budget"), "no model is named")
	text := harness.Config{Adapter: harness.AdapterCommand, Argv: []string{"agent", "{prompt_file}"}}
	assert.Contains(t, unmeasured(Budget{Tokens: 5}, harness.Measures("cursor", text, ""), "sessions.repositoryBudget"),
		"sessions.repositoryBudget.tokens is set and this session's tokens cannot be measured: harness cursor prints text")
	assert.Equal(t, "", unmeasured(Budget{WallSeconds: 5}, harness.Measures("cursor", text, ""), "sessions.budget"), "run time is always measured")
	assert.Equal(t, "1001 tokens of 1000 allowed", over(Budget{Tokens: 1000}, Figures{Tokens: 1001}, false))
}
