package service

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/agents/sessions"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/store"
)

func TestSpendSaysUnknownCostApartNeverAsZero(t *testing.T) {
	assert.Equal(t, "2 session(s), 31 turns, 184220 tokens, $1.93", spendText(store.Spend{Sessions: 2, Turns: 31, Tokens: 184220, CostUSD: 1.93}))
	assert.Equal(t, "1 session(s), 14 turns, 35780 tokens, cost unknown", spendText(store.Spend{Sessions: 1, Turns: 14, Tokens: 35780, UnknownCost: 1}))
	assert.Equal(t, "3 session(s), 45 turns, 220000 tokens, $1.93 (the cost of 1 session(s) unknown)",
		spendText(store.Spend{Sessions: 3, Turns: 45, Tokens: 220000, CostUSD: 1.93, UnknownCost: 1}))
	assert.Equal(t, "3 turns, 4500 tokens, $0.00 and the cost of 1 session(s) unknown", figuresText(sessions.Figures{Turns: 3, Tokens: 4500, UnknownCost: 1}))
	assert.Equal(t, "$0.18 (estimated)", sessionCost(store.SessionUsage{CostUSD: 0.18, CostSource: store.CostEstimated}))
	assert.Equal(t, "cost unknown", sessionCost(store.SessionUsage{CostUSD: 0.18}))

	all := store.Spend{Sessions: 3, Turns: 45, Tokens: 220000, CostUSD: 1.93, UnknownCost: 1}
	assert.Equal(t, "- **spent so far:** 3 session(s), 45 turns, 220000 tokens, $1.93 (the cost of 1 session(s) unknown)\n"+
		"  - claude: 2 session(s), 31 turns, 184220 tokens, $1.93\n"+
		"  - codex: 1 session(s), 14 turns, 35780 tokens, cost unknown\n",
		spentLines(all, []store.Spend{{Harness: "claude", Sessions: 2, Turns: 31, Tokens: 184220, CostUSD: 1.93}, {Harness: "codex", Sessions: 1, Turns: 14, Tokens: 35780, UnknownCost: 1}}))
	assert.Equal(t, "- **spent so far:** 2 session(s), 31 turns, 184220 tokens, $1.93, harness claude\n",
		spentLines(store.Spend{Sessions: 2, Turns: 31, Tokens: 184220, CostUSD: 1.93}, []store.Spend{{Harness: "claude", Sessions: 2, Turns: 31, Tokens: 184220, CostUSD: 1.93}}))

	by := byHarness([]SessionView{{Harness: "codex", Turns: 2, Tokens: 10}, {Harness: "claude", Turns: 1, Tokens: 5, CostUSD: 0.5, CostSource: "reported"},
		{Harness: "codex", Turns: 1, Tokens: 1, CostUSD: 0.01, CostSource: "estimated"}})
	assert.Equal(t, []HarnessSpend{{Harness: "claude", Sessions: 1, Turns: 1, Tokens: 5, CostUSD: 0.5},
		{Harness: "codex", Sessions: 2, Turns: 3, Tokens: 11, CostUSD: 0.01, UnknownCost: 1}}, by)
	assert.Equal(t, "codex: 2 session(s), 3 turns, 11 tokens, $0.01 (the cost of 1 session(s) unknown)", by[1].Text())
}

// TestAHarnessIsChosenPerNode: a node's pin in the repository config wins,
// then the operator's, then the signed checklist's choice, then the
// repository's and the operator's default.
func TestAHarnessIsChosenPerNode(t *testing.T) {
	cfg := config.Default()
	cfg.Harnesses = map[string]harness.Config{"claude": {Adapter: "claude"}, "codex": {Adapter: "codex"}, "gemini": {Adapter: "gemini"}}
	cfg.Sessions.Harness = "claude"
	cfg.Sessions.Nodes = map[string]string{"critic-review": "gemini", "implementation": "codex"}
	s := New(cfg, Deps{})
	sess := &session{repo: &repoconfig.Repo{}}
	sess.repo.Config.Sessions.Nodes = map[string]string{"implementation": "gemini"}
	pick := func(node, chosen string) string { n, _ := harnessFor(s, sess, node, chosen); return n }
	assert.Equal(t, "gemini", pick("implementation", "codex"), "the repository's pin wins")
	assert.Equal(t, "gemini", pick("critic-review", "codex"), "the operator's pin wins over the checklist")
	assert.Equal(t, "codex", pick("design", "codex"), "the signed choice applies where no pin is")
	assert.Equal(t, "claude", pick("design", ""), "the operator's default")
	sess.repo.Config.Sessions.Harness = "codex"
	assert.Equal(t, "codex", pick("design", ""), "the repository's default before the operator's")

	cfg.Sessions.Harness, cfg.Sessions.Nodes = "", nil
	sess.repo.Config.Sessions.Harness, sess.repo.Config.Sessions.Nodes = "", nil
	name, why := harnessFor(s, sess, "design", "")
	assert.Empty(t, name)
	assert.Contains(t, why, "several harnesses are configured and none is named")
}
