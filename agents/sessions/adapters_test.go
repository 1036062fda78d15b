package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/agents/harness/harnesstest"
	"github.com/the-loop/the-loop/internal/testbin"
	"github.com/the-loop/the-loop/store"
)

func price(in, out float64) harness.Price { return harness.Price{Input: &in, Output: &out} }

// personas are harnesses of every CLI adapter whose binary is the fake
// harness run under that CLI's name, beside the command adapter's fake.
func (r *rig) personas() map[string]harness.Config {
	r.t.Helper()
	bin := testbin.Build(r.t, fakePkg)
	dir := filepath.Join(filepath.Dir(r.fake), "bin")
	require.NoError(r.t, os.MkdirAll(dir, 0o755))
	hs := r.harnesses()
	for _, cli := range harnesstest.CLIs {
		link := filepath.Join(dir, cli)
		if _, err := os.Lstat(link); err != nil {
			require.NoError(r.t, os.Symlink(bin, link))
			b, _ := json.Marshal(map[string]any{"state": r.fake})
			require.NoError(r.t, os.WriteFile(link+".fake.json", b, 0o644))
		}
		hs[cli] = harness.Config{Adapter: cli, Binary: link}
	}
	codex := hs["codex"]
	codex.Model, codex.Prices = "gpt-5.5", map[string]harness.Price{"gpt-5.5": price(1.25, 10)}
	hs["codex"] = codex
	gemini := hs["gemini"]
	gemini.Prices = map[string]harness.Price{"gemini-2.5-pro": price(1.25, 10), "gemini-2.5-flash-lite": price(0.1, 0.4),
		"gemini-2.5-flash": price(0.3, 2.5)}
	hs["gemini"] = gemini
	return hs
}

// supervisorOf is a supervisor launching the harnesses hs.
func (r *rig) supervisorOf(cfg Config, hs map[string]harness.Config) *Supervisor {
	r.t.Helper()
	s, err := New(cfg, Deps{Store: r.store, Harnesses: hs, Serve: []string{"/usr/local/bin/the-loop", "serve"},
		StateDir: r.state, Now: r.clock.Now, Log: slog.New(slog.NewTextHandler(ioDiscard{}, nil)),
		NewID: func() string { r.ids++; return fmt.Sprintf("s-%03d", r.ids) }})
	require.NoError(r.t, err)
	r.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return s
}

// exitedEvent returns the data of item's last session.exited event.
func (r *rig) exitedEvent(item string) map[string]any {
	r.t.Helper()
	evs, err := r.store.Events(context.Background(), "octo/widgets", item)
	require.NoError(r.t, err)
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Name == "session.exited" {
			var data map[string]any
			require.NoError(r.t, json.Unmarshal(evs[i].Data, &data))
			return data
		}
	}
	r.t.Fatalf("no session.exited for %s", item)
	return nil
}

// TestEveryAdapterReadsItsCLIsOutputIntoTheSameRecord launches a session
// of every CLI adapter for every recorded case, through the supervisor,
// with the fake harness run as that CLI replaying the recording: the
// store records the exit, the figures, the cost reported, estimated from
// the harness's prices or unknown, the final result and the last error,
// whichever CLI printed them.
func TestEveryAdapterReadsItsCLIsOutputIntoTheSameRecord(t *testing.T) {
	r := newRig(t)
	s := r.supervisorOf(Config{}, r.personas())
	type want struct {
		exit           string
		tokens         int64
		input, output  int64
		cost           float64
		source, result string
		err            string
		rateLimited    bool
		unknown        bool
	}
	codex := func(in, cached, out int64) float64 {
		return (float64(in-cached)*1.25 + float64(cached)*1.25 + float64(out)*10) / 1e6
	}
	tests := map[string]map[string]want{
		"claude": {
			"success":        {exit: "exit 0", tokens: 13387, input: 1520, output: 167, cost: 0.1834, source: "reported", result: "Done: the design is claimed."},
			"tool-error":     {exit: "exit 0", tokens: 1904, input: 1860, output: 44, cost: 0.0061, source: "reported", result: "I am not allowed to run that command."},
			"rate-limit":     {exit: "exit 1", source: "reported", err: "API Error: 429", rateLimited: true},
			"crash":          {exit: "exit 1", tokens: 709, input: 700, output: 9},
			"unknown-events": {exit: "exit 0", tokens: 305, input: 300, output: 5, cost: 0.0004, source: "reported", result: "Done.", unknown: true},
		},
		"codex": {
			"success":        {exit: "exit 0", tokens: 50044, input: 7250, output: 1834, cost: codex(48210, 40960, 1834), source: "estimated", result: "The design is written, pushed and claimed; issue-7 waits at design-approval."},
			"tool-error":     {exit: "exit 0", tokens: 21120, input: 8192, output: 640, cost: codex(20480, 12288, 640), source: "estimated", result: "The claim was refused: two tasks are still open."},
			"rate-limit":     {exit: "exit 1", source: "estimated", err: "exceeded retry limit, last status: 429 Too Many Requests", rateLimited: true},
			"crash":          {exit: "exit 101", result: "Starting on the design."},
			"unknown-events": {exit: "exit 0", tokens: 9300, input: 9000, output: 300, cost: codex(9000, 0, 300), source: "estimated", result: "Done.", unknown: true},
		},
		"gemini": {
			"success": {exit: "exit 0", tokens: 60430, input: 18020, output: 2310, source: "estimated", result: "The design is written, pushed and claimed.",
				cost: (15900*1.25+40100*1.25+2200*10)/1e6 + (2120*0.1+110*0.4)/1e6},
			"tool-error":     {exit: "exit 0", tokens: 12400, input: 12000, output: 400, cost: (12000*1.25 + 400*10) / 1e6, source: "estimated", result: "I cannot run the tests here."},
			"rate-limit":     {exit: "exit 1", source: "estimated", err: "429 RESOURCE_EXHAUSTED", rateLimited: true},
			"crash":          {exit: "exit 1", result: "Reading."},
			"unknown-events": {exit: "exit 0", tokens: 700, input: 500, output: 200, cost: (500*0.3 + 200*2.5) / 1e6, source: "estimated", result: "Done.", unknown: true},
			"turn-limit":     {exit: "exit 53", tokens: 90000, input: 58000, output: 2000, cost: (58000*1.25 + 30000*1.25 + 2000*10) / 1e6, source: "estimated", err: "Reached max session turns"},
		},
		"opencode": {
			"success":        {exit: "exit 0", tokens: 50978, input: 12500, output: 1958, cost: 0.0442, source: "reported", result: "The design is written, pushed and claimed."},
			"tool-error":     {exit: "exit 0", tokens: 4416, input: 4300, output: 116, cost: 0.0043, source: "reported", result: "I was not allowed to remove the build folder."},
			"rate-limit":     {exit: "exit 1", err: "rate_limit_error", rateLimited: true},
			"crash":          {exit: "exit 1"},
			"unknown-events": {exit: "exit 0", tokens: 1000, input: 900, output: 100, source: "reported", result: "Done.", unknown: true},
		},
	}
	n := 0
	for _, cli := range harnesstest.CLIs {
		for _, name := range harnesstest.Recordings(cli) {
			tt, ok := tests[cli][name]
			require.True(t, ok, "recording %s/%s has no expectation", cli, name)
			t.Run(cli+"/"+name, func(t *testing.T) {
				n++
				item := fmt.Sprintf("issue-%d", n)
				w := r.want(item, "design", "fake: replay="+name+"\n", int64(n))
				w.Harness = cli
				rep := cycleUntil(t, s, fixed(w), exited)
				rec, found, err := r.store.GetSession(ctx, rep.Exited[0].Session)
				require.NoError(t, err)
				require.True(t, found)
				assert.Equal(t, store.SessionExited, rec.State)
				assert.Equal(t, tt.exit, rec.ExitStatus)
				assert.Equal(t, tt.tokens, rec.Tokens)
				assert.Equal(t, tt.input, rec.InputTokens)
				assert.Equal(t, tt.output, rec.OutputTokens)
				assert.Equal(t, tt.source, rec.CostSource, "cost is reported, estimated or unknown, never a silent 0")
				assert.InDelta(t, tt.cost, rec.CostUSD, 1e-9)
				assert.Equal(t, tt.result, rec.Result)
				assert.Contains(t, rec.Error, tt.err)
				if tt.err == "" {
					assert.Empty(t, rec.Error)
				} else {
					assert.Contains(t, rec.Reason, "its last error: ")
				}
				ev := r.exitedEvent(item)
				assert.Equal(t, costSource(tt.source), ev["cost"])
				assert.Equal(t, tt.rateLimited, ev["rateLimited"] == true)
				assert.Equal(t, tt.unknown, ev["unknownEvents"] != nil)
				assert.Equal(t, cli, rec.Harness)
			})
		}
	}
}

// TestBudgetsApplyToEveryAdapterAlike: one item's session of each CLI
// spends past a token budget; whichever CLI it was, the item gets no more
// sessions and escalates with the figures.
func TestBudgetsApplyToEveryAdapterAlike(t *testing.T) {
	r := newRig(t)
	s := r.supervisorOf(Config{Budget: Budget{Tokens: 1000}}, r.personas())
	for i, cli := range harnesstest.CLIs {
		t.Run(cli, func(t *testing.T) {
			item := "budget-" + cli
			w := r.want(item, "design", "fake: replay=success\n", int64(i))
			w.Harness = cli
			// It is stopped while it runs, or refused a relaunch once it ended,
			// whichever the cycle sees first: one escalation either way.
			var esc []Escalation
			cycleUntil(t, s, fixed(w), func(rep Report) bool { esc = append(esc, rep.Escalations...); return exited(rep) })
			require.Len(t, esc, 1)
			assert.Regexp(t, `^octo/widgets budget-`+cli+` is over its session budget: \d+ tokens of 1000 allowed$`, esc[0].Reason)
			rep, err := s.Cycle(ctx, []Want{w})
			require.NoError(t, err)
			assert.Empty(t, rep.Started)
			require.Len(t, rep.Held, 1)
		})
	}
}

// TestASessionItsBudgetCannotHoldIsNotLaunched: a cost budget with a CLI
// that reports no cost and a model its harness has no price for is refused
// before any launch, naming the key to add; a priced model launches.
func TestASessionItsBudgetCannotHoldIsNotLaunched(t *testing.T) {
	r := newRig(t)
	hs := r.personas()
	s := r.supervisorOf(Config{Budget: Budget{CostUSD: 5}}, hs)
	w := r.want("issue-1", "design", "fake: replay=success\n", 1)
	w.Harness, w.Model = "codex", "gpt-6"
	rep, err := s.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	assert.Empty(t, rep.Started)
	require.Len(t, rep.Escalations, 1)
	assert.Equal(t, "no session is launched that its budget cannot hold: sessions.budget.costUsd is set and this session's costUsd cannot be measured: "+
		"codex reports no cost and harness codex has no price for model gpt-6 (add harnesses.codex.prices.gpt-6); or set sessions.budget.costUsd to 0",
		rep.Escalations[0].Reason)

	w2 := r.want("issue-2", "design", "fake: replay=success\n", 2)
	w2.Harness = "codex" // its model, gpt-5.5, has a price
	rep, err = s.Cycle(ctx, []Want{w2})
	require.NoError(t, err)
	assert.Len(t, rep.Started, 1)
}

// TestARepositoryOverItsBudgetHoldsItsItemsWithoutEscalating: sessions of
// one item spend the repository's budget; another item of the repository
// gets no session (held, not escalated) until the window moves past the
// spend, while an item of another repository is not held.
func TestARepositoryOverItsBudgetHoldsItsItemsWithoutEscalating(t *testing.T) {
	r := newRig(t)
	s := r.supervisorOf(Config{RepositoryBudget: RepositoryBudget{Budget: Budget{CostUSD: 0.05}, WindowHours: 24}}, r.personas())
	first := r.want("issue-1", "design", "fake: replay=success\n", 1)
	first.Harness = "opencode" // reports $0.0442
	cycleUntil(t, s, fixed(first), exited)
	second := r.want("issue-2", "design", "fake: replay=success\n", 2)
	second.Harness = "opencode"
	cycleUntil(t, s, fixed(second), exited)

	third := r.want("issue-3", "design", "fake: replay=success\n", 3)
	other := r.want("issue-9", "design", "fake: replay=success\n", 4)
	other.Repo = "octo/other"
	rep, err := s.Cycle(ctx, []Want{third, other})
	require.NoError(t, err)
	require.Len(t, rep.Started, 1, "another repository's item is not held")
	assert.Equal(t, "octo/other", rep.Started[0].Repo)
	for i := 0; i < 2; i++ {
		assert.Empty(t, rep.Escalations, "a repository's budget holds, it does not escalate")
		require.Len(t, rep.Held, 1)
		assert.Equal(t, "octo/widgets is over its repository budget: $0.09 of $0.05 allowed in the last 24h0m0s", rep.Held[0].Reason)
		assert.False(t, rep.Held[0].Host, "a repository budget is no fault of the host")
		rep, err = s.Cycle(ctx, []Want{third})
		require.NoError(t, err)
		assert.Empty(t, rep.Started)
	}
	assert.Equal(t, []string{"session.refused"}, r.events("issue-3"), "the hold is recorded once")

	r.clock.Advance(25 * time.Hour)
	rep, err = s.Cycle(ctx, []Want{third})
	require.NoError(t, err)
	assert.Len(t, rep.Started, 1, "the window moved past the spend")
}

// TestAnItemOverItsRunTimeBudgetIsStopped: the wall-time budget counts the
// live session's elapsed time.
func TestAnItemOverItsRunTimeBudgetIsStopped(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(Config{Budget: Budget{WallSeconds: 600}}, nil)
	w := r.want("issue-5", "implementation", "fake: hang-runs=9\n", 1)
	rep, err := s.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	require.Len(t, rep.Started, 1)
	r.ready("issue-5", 1)
	r.clock.Advance(11 * time.Minute)
	rep, err = s.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	require.Len(t, rep.Escalations, 1)
	assert.Equal(t, "octo/widgets issue-5 is over its session budget: 11m0s of run time of 10m0s allowed", rep.Escalations[0].Reason)
	rep = cycleUntil(t, s, fixed(w), exited)
	assert.Equal(t, store.SessionOverBudget, rep.Exited[0].State)
}
