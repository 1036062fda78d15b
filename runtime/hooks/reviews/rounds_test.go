package reviews

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/critic"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

const (
	runA = "cr-20260301T100000Z-1a2b3c4d5e6f"
	runB = "cr-20260301T103000Z-0f9e8d7c6b5a"
)

func reviewContext(t *testing.T, kind, node string, runs ...runtime.CriticRun) *runtime.HookContext {
	t.Helper()
	hc := hooktest.NewContext(t, &runtime.Node{ID: node}, map[string]any{"review": kind})
	hc.Config = config.Default()
	hc.Config.Critic.Critics = []critic.Critic{{Name: "codex", Command: []string{"codex"}}, {Name: "cursor", Command: []string{"cursor-agent"}}}
	hc.Config.Critic.ApplyDefaults()
	hc.State = runtime.NewState("issue-1")
	for _, r := range runs {
		hc.State.CriticRuns = append(hc.State.CriticRuns, runtime.NewCriticRunReceipt(r, "p", "o"))
	}
	return hc
}

func writeRecord(t *testing.T, hc *runtime.HookContext, name, text string) {
	t.Helper()
	p := filepath.Join(hc.WorkItem.SpecDir, filepath.FromSlash(name))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
}

func rounds(t *testing.T, hc *runtime.HookContext) runtime.Result {
	t.Helper()
	r, err := ReviewRounds(hc)
	require.NoError(t, err)
	return r
}

const criticTable = "| Round | Critic | Run | Findings | New findings |\n|---|---|---|---|---|\n"

func TestCriticReviewCountsOnlyRecordedRuns(t *testing.T) {
	tests := []struct {
		name   string
		runs   []runtime.CriticRun
		rows   string
		status runtime.Status
		want   string
	}{
		{"a recorded round that found nothing new", []runtime.CriticRun{{ID: runA, Critic: "codex", Node: "critic-review"}},
			"| 1 | codex | " + runA + " | 0 | 0 |\n", runtime.Pass, "stopped at round 1, which found no new findings (1 of up to 3 critic rounds)"},
		{"a row with no recorded run behind it", nil,
			"| 1 | codex | cr-made-up | 0 | 0 |\n", runtime.Block, `round 1 does not count: run "cr-made-up" is not a critic run the loop recorded for this review`},
		{"a run recorded at another node", []runtime.CriticRun{{ID: runA, Critic: "codex", Node: "design-critic-review"}},
			"| 1 | codex | " + runA + " | 0 | 0 |\n", runtime.Block, "is not a critic run the loop recorded for this review"},
		{"a round that timed out", []runtime.CriticRun{{ID: runA, Critic: "codex", Node: "critic-review", Unavailable: "timed out after 1s and was stopped"}},
			"| 1 | codex | " + runA + " | 0 | 0 |\n", runtime.Block, "was unavailable (timed out after 1s and was stopped), and an unavailable round does not count"},
		{"the same run twice", []runtime.CriticRun{{ID: runA, Critic: "codex", Node: "critic-review"}},
			"| 1 | codex | " + runA + " | 2 | 2 |\n| 2 | codex | " + runA + " | 0 | 0 |\n", runtime.Block, "is already round 1"},
		{"rounds still owed", []runtime.CriticRun{{ID: runA, Critic: "codex", Node: "critic-review"}, {ID: runB, Critic: "cursor", Node: "critic-review"}},
			"| 1 | codex | " + runA + " | 3 | 3 |\n| 2 | cursor | " + runB + " | 1 | 1 |\n", runtime.Block, "2 of up to 3 critic rounds count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := reviewContext(t, "critic-review", "critic-review", tt.runs...)
			writeRecord(t, hc, "evidence/critic-review.md", "# Critic review\n\n"+criticTable+tt.rows)
			r := rounds(t, hc)
			assert.Equal(t, tt.status, r.Status, hooktest.Texts(r))
			assert.Contains(t, joined(hooktest.Texts(r)), tt.want)
		})
	}
}

func TestSelfReviewReadsItsOwnRecord(t *testing.T) {
	hc := reviewContext(t, "self-review", "self-review")
	r := rounds(t, hc)
	assert.Equal(t, runtime.Block, r.Status)
	assert.Equal(t, []string{"evidence/self-review.md is missing or empty; record each round as a row of a table with the columns | Round | Findings | New findings |"}, hooktest.Texts(r))

	writeRecord(t, hc, "execution-log.md", "# Log\n\n## Review cycles\n\n- round 1: nothing found\n")
	assert.Equal(t, runtime.Block, rounds(t, hc).Status, "the execution log's section no longer passes the node")

	writeRecord(t, hc, "evidence/self-review.md", "| Round | Findings | New findings |\n|---|---|---|\n| 1 | 4 | 4 |\n| 2 | 2 | 1 |\n| 3 | 1 | 1 |\n")
	r = rounds(t, hc)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Equal(t, "evidence/self-review.md: stopped at the cap of 3 rounds; round 3 still found 1 new findings, which go to the human reviewer", hooktest.Texts(r)[0])

	hc.Config.Critic.Reviews.SelfReviewCount = 4
	assert.Equal(t, runtime.Block, rounds(t, hc).Status, "the operator's cap decides when rounds stop")
}

func TestCriticReviewWaitsWithoutACriticAndRefusesABadParameter(t *testing.T) {
	hc := reviewContext(t, "critic-review", "critic-review")
	hc.Config.Critic.Critics = nil
	r := rounds(t, hc)
	assert.Equal(t, runtime.Wait, r.Status)
	assert.Contains(t, hooktest.Texts(r)[0], "no critic is configured")

	hc.Params = map[string]any{"review": "peer-review"}
	_, err := ReviewRounds(hc)
	assert.ErrorContains(t, err, `review must be self-review or critic-review, got "peer-review"`)
}

func joined(ss []string) string {
	out := ""
	for _, s := range ss {
		out += s + "\n"
	}
	return out
}

// A review that stopped is recorded with the policy it stopped under, and
// check — on a host with another cap and no critic configured, as in CI —
// judges the record by that policy, not its own.
func TestCheckJudgesAStoppedReviewByTheRecordedPolicy(t *testing.T) {
	hc := reviewContext(t, "critic-review", "critic-review", runtime.CriticRun{ID: runA, Critic: "codex", Node: "critic-review"},
		runtime.CriticRun{ID: runB, Critic: "cursor", Node: "critic-review"})
	hc.Config.Critic.Reviews.CriticReviewCount = 2
	writeRecord(t, hc, "evidence/critic-review.md", criticTable+"| 1 | codex | "+runA+" | 3 | 3 |\n| 2 | cursor | "+runB+" | 1 | 1 |\n")
	r := rounds(t, hc)
	require.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
	d, ok := r.Data[runtime.ReceiptKey].(*runtime.Decision)
	require.True(t, ok, "a stop is handed to the runtime to record")
	d.Node = "critic-review"
	hc.State.Reviews = map[string]*runtime.Decision{"critic-review": d}
	stop, ok := hc.State.ReviewStopAt("critic-review")
	require.True(t, ok)
	assert.Equal(t, runtime.ReviewStop{Node: "critic-review", Cap: 2, Critics: []string{"codex", "cursor"}, Rounds: 2, StoppedAt: 2}, stop)

	hc.ReadOnly = true
	hc.Config = config.Default()
	r = rounds(t, hc)
	assert.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
	assert.NotContains(t, r.Data, runtime.ReceiptKey, "check records nothing")

	hc.State.Reviews = nil
	assert.Equal(t, runtime.Wait, rounds(t, hc).Status, "without the recorded stop, a host with no critic cannot judge the rounds")
}
