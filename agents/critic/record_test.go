package critic

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime/review"
	"github.com/the-loop/the-loop/store"
)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "the-loop.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestRecordKeepsEachRoundOnItsItem(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	st := openStore(t)
	rec := Recorder{Store: st, Dir: filepath.Join(t.TempDir(), "critic-runs")}

	ran := r.run(r.critic("codex"), twoFindings)
	hanging := r.critic("codex", "--mode", "hang")
	hanging.TimeoutSeconds = 1
	hung := r.run(hanging, twoFindings)

	got, err := rec.Record(ctx, "octo/widgets", "issue-7", "critic-review", ran)
	require.NoError(t, err)
	sum := sha256.Sum256([]byte(ran.Output))
	assert.Equal(t, store.CriticRun{ID: ran.RunID, Repo: "octo/widgets", WorkItem: "issue-7", Node: "critic-review", Critic: "codex",
		PromptSHA256: ran.PromptSHA256, StartedAt: ran.Started, EndedAt: ran.Ended, ExitStatus: "exit 0",
		OutputSHA256: hex.EncodeToString(sum[:]), OutputPath: filepath.Join(rec.Dir, ran.RunID+".json")}, got)
	saved, err := os.ReadFile(got.OutputPath)
	require.NoError(t, err)
	var back Envelope
	require.NoError(t, json.Unmarshal(saved, &back))
	assert.Equal(t, ran.Output, back.Output, "the saved file holds the whole envelope")
	fi, err := os.Stat(got.OutputPath)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	_, err = rec.Record(ctx, "octo/widgets", "issue-7", "critic-review", hung)
	require.NoError(t, err)

	runs, err := st.ListCriticRuns(ctx, "octo/widgets", "issue-7")
	require.NoError(t, err)
	require.Len(t, runs, 2)
	assert.True(t, runs[0].Counts())
	assert.False(t, runs[1].Counts(), "a round cut off at its timeout is recorded unavailable")
	assert.Contains(t, runs[1].Unavailable, "timed out")
	assert.Equal(t, "exit 143", runs[1].ExitStatus)

	evs, err := st.Events(ctx, "octo/widgets", "issue-7")
	require.NoError(t, err)
	require.Len(t, evs, 2)
	assert.Equal(t, store.EventCriticRan, evs[0].Name)
	assert.Equal(t, store.EventCriticUnavailable, evs[1].Name)
	assert.NotContains(t, string(evs[0].Data), "retry loop", "the event never carries the output")

	_, err = rec.Record(ctx, "octo/widgets", "issue-7", "critic-review", ran)
	assert.ErrorContains(t, err, "a run is recorded once")
	runs, err = st.ListCriticRuns(ctx, "octo/widgets", "issue-7")
	require.NoError(t, err)
	assert.Len(t, runs, 2)
}

func TestRecordRefusesWhatIsNotARun(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	st := openStore(t)
	dir := t.TempDir()
	rec := Recorder{Store: st, Dir: dir}
	real := r.run(r.critic("codex"), twoFindings)

	// An envelope that did not come from Run here — hand-made, or decoded
	// from JSON however faithfully — is never recorded.
	blob, err := json.Marshal(real)
	require.NoError(t, err)
	var decoded Envelope
	require.NoError(t, json.Unmarshal(blob, &decoded))
	for _, e := range []Envelope{decoded, {RunID: "cr-1", Critic: "codex", PromptSHA256: real.PromptSHA256, Output: "all good"}} {
		_, err := rec.Record(ctx, "octo/widgets", "issue-7", "critic-review", e)
		assert.ErrorContains(t, err, "only a round the loop ran itself is recorded")
	}
	for _, id := range []string{"", "../../etc/passwd", "cr-../x", "run-1"} {
		e := real
		e.RunID = id
		_, err := rec.Record(ctx, "octo/widgets", "issue-7", "critic-review", e)
		assert.ErrorContains(t, err, "is not a run id", id)
	}
	// A run the store refuses leaves no file behind.
	bad := real
	bad.PromptSHA256 = "short"
	_, err = rec.Record(ctx, "octo/widgets", "issue-7", "critic-review", bad)
	assert.ErrorContains(t, err, "PromptSHA256")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)
	runs, err := st.ListCriticRuns(ctx, "octo/widgets", "issue-7")
	require.NoError(t, err)
	assert.Empty(t, runs)
	_, err = Recorder{}.Record(ctx, "r", "i", "n", real)
	assert.ErrorContains(t, err, "no store")
}

func TestRecordedRunsDecideTheCriticTable(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	st := openStore(t)
	rec := Recorder{Store: st, Dir: t.TempDir()}
	first := r.run(r.critic("codex"), twoFindings)
	second := r.run(r.critic("codex"), "Review again.\n")
	design := r.run(r.critic("codex"), "Review the design.\n")
	for _, rr := range []struct {
		node string
		e    Envelope
	}{{"critic-review", first}, {"critic-review", second}, {"design-critic-review", design}} {
		_, err := rec.Record(ctx, "octo/widgets", "issue-7", rr.node, rr.e)
		require.NoError(t, err)
	}
	runs, err := st.ListCriticRuns(ctx, "octo/widgets", "issue-7")
	require.NoError(t, err)
	doc := "| Round | Critic | Run | Findings | New findings |\n|---|---|---|---|---|\n" +
		"| 1 | codex | " + first.RunID + " | 2 | 2 |\n| 2 | codex | " + second.RunID + " | 0 | 0 |\n"
	policy := review.Policy{Critics: []string{"codex"}}
	v := review.Decide(review.Critic, doc, policy, ReviewRuns(runs, "critic-review"))
	assert.Equal(t, review.Pass, v.Outcome, "%v", v.Messages)

	// The design critic's run is not a round of critic-review.
	doc = "| Round | Critic | Run | Findings | New findings |\n|---|---|---|---|---|\n| 1 | codex | " + design.RunID + " | 0 | 0 |\n"
	v = review.Decide(review.Critic, doc, policy, ReviewRuns(runs, "critic-review"))
	assert.Equal(t, review.Block, v.Outcome)
	assert.Contains(t, v.Messages[1], "is not a critic run the loop recorded for this review")
	assert.Len(t, ReviewRuns(runs, ""), 3)
}
