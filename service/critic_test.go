package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/critic"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/internal/testbin"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/store"
)

// criticRig is a repository whose item issue-1 stands at critic-review, and
// a service with two critics: the fake critic (codex) and one that hangs.
type criticRig struct {
	t    *testing.T
	svc  *Service
	repo string
	db   string
	item ItemRequest
}

const criticFinding = "Review the change.\nfinding: the retry loop never backs off\n"

func newCriticRig(t *testing.T) *criticRig {
	t.Helper()
	fake := testbin.Build(t, "github.com/the-loop/the-loop/agents/critic/fakecritic")
	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, repoconfig.Path), "ticketing:\n  github:\n    owner: octo\n    repo: widgets\n")
	cfg := config.Default()
	cfg.Critic.Critics = []critic.Critic{
		{Name: "codex", Command: []string{fake, "--prompt-file", "{prompt_file}"}},
		{Name: "slow", Command: []string{fake, "--mode", "hang"}, TimeoutSeconds: 1},
	}
	cfg.Critic.ApplyDefaults()
	db := filepath.Join(t.TempDir(), "state", "the-loop.db")
	runner := &critic.Runner{LookupEnv: func(n string) (string, bool) {
		v, ok := map[string]string{"PATH": "/usr/bin:/bin", "HOME": t.TempDir()}[n]
		return v, ok
	}, Environ: func() []string { return nil }, Grace: 100 * time.Millisecond}
	svc := testService(t, cfg, Deps{Store: store.NewHandle(db), Signer: runtime.NewSigner([]byte("test-key")), Critics: runner})
	r := &criticRig{t: t, svc: svc, repo: repo, db: db, item: ItemRequest{Repo: repo, WorkItem: "issue-1"}}
	ctx := context.Background()
	_, err := svc.Start(ctx, StartRequest{ItemRequest: r.item})
	require.NoError(t, err)
	_, err = svc.Force(ctx, ForceRequest{ItemRequest: r.item, To: "critic-review", Reason: "the test walks the review chain", Actor: "op"})
	require.NoError(t, err)
	return r
}

func (r *criticRig) prompt(text string) string {
	p := filepath.Join(r.repo, "review-assignment.md")
	require.NoError(r.t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

func (r *criticRig) run(name string) CriticRunResult {
	r.t.Helper()
	res, err := r.svc.CriticRun(context.Background(), CriticRunRequest{Repo: r.repo, WorkItem: "issue-1", Critic: name, PromptFile: r.prompt(criticFinding)})
	require.NoError(r.t, err)
	return res
}

func (r *criticRig) record(rows string) {
	writeFile(r.t, filepath.Join(r.repo, "docs", "specs", "issue-1", "evidence", "critic-review.md"),
		"# Critic review\n\n| Round | Critic | Run | Findings | New findings |\n|---|---|---|---|---|\n"+rows)
}

func (r *criticRig) claim() CompleteResult {
	r.t.Helper()
	res, err := r.svc.Complete(context.Background(), CompleteRequest{ItemRequest: r.item, Actor: "mcp"})
	require.NoError(r.t, err)
	return res
}

// A fake critic's envelope is recorded on the item: the saved envelope,
// the store's run with its event, and the receipt critic-review counts.
func TestAFakeCriticsEnvelopeIsRecorded(t *testing.T) {
	r := newCriticRig(t)
	r.record("| 1 | codex | cr-made-up | 1 | 1 |\n")
	claim := r.claim()
	assert.Equal(t, "block", claim.Status, "a row with no recorded run behind it does not count")
	assert.Contains(t, strings.Join(claim.Messages, "\n"), `run "cr-made-up" is not a critic run the loop recorded for this review`)

	res := r.run("codex")
	assert.True(t, res.Counts(), res.Unavailable)
	assert.Equal(t, "critic-review", res.Node)
	assert.Contains(t, res.Output, "1. the retry loop never backs off")

	st, err := r.svc.writableStore(context.Background())
	require.NoError(t, err)
	run, found, err := st.GetCriticRun(context.Background(), res.RunID)
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, "critic-review", run.Node)
	assert.Equal(t, filepath.Join(filepath.Dir(r.db), "critic-runs", res.RunID+".json"), run.OutputPath)
	saved, err := os.ReadFile(run.OutputPath)
	require.NoError(t, err)
	assert.Contains(t, string(saved), `"runId": "`+res.RunID+`"`)
	evs, err := r.svc.Events(context.Background(), r.item)
	require.NoError(t, err)
	assert.Contains(t, eventNames(evs.Events), store.EventCriticRan)

	r.record("| 1 | codex | " + res.RunID + " | 1 | 0 |\n")
	claim = r.claim()
	assert.Equal(t, "pass", claim.Status, claim.Messages)
	assert.Equal(t, "security-review", claim.CurrentNode)
}

// A critic that hangs is cut off at its timeout and recorded unavailable:
// a row naming that run does not count.
func TestAHangingCriticIsCutOffAndRecordedUnavailable(t *testing.T) {
	t.Parallel()
	r := newCriticRig(t)
	res := r.run("slow")
	assert.False(t, res.Counts())
	assert.Equal(t, "timed out after 1s and was stopped; raise critics[].timeoutSeconds for slow if its reviews need longer", res.Unavailable)
	st, err := r.svc.writableStore(context.Background())
	require.NoError(t, err)
	run, found, err := st.GetCriticRun(context.Background(), res.RunID)
	require.NoError(t, err)
	require.True(t, found, "an unavailable round is recorded too")
	assert.Equal(t, res.Unavailable, run.Unavailable)

	r.record("| 1 | slow | " + res.RunID + " | 0 | 0 |\n")
	claim := r.claim()
	assert.Equal(t, "block", claim.Status)
	assert.Contains(t, strings.Join(claim.Messages, "\n"), "was unavailable (timed out after 1s and was stopped; raise critics[].timeoutSeconds for slow if its reviews need longer), and an unavailable round does not count")
}

func TestACriticRunIsRefusedWithoutRunning(t *testing.T) {
	r := newCriticRig(t)
	ctx := context.Background()
	prompt := r.prompt(criticFinding)
	_, err := r.svc.CriticRun(ctx, CriticRunRequest{Repo: r.repo, WorkItem: "issue-1", Critic: "gpt", PromptFile: prompt})
	assert.True(t, errors.Is(err, ErrInvalidRequest))
	assert.EqualError(t, err, `critic "gpt" is not configured (configured: codex, slow)`)
	_, err = r.svc.CriticRun(ctx, CriticRunRequest{Repo: r.repo, WorkItem: "issue-1", Critic: "codx", PromptFile: prompt})
	assert.EqualError(t, err, `critic "codx" is not configured (configured: codex, slow); did you mean "codex"?`)

	_, err = r.svc.CriticRun(ctx, CriticRunRequest{Repo: r.repo, WorkItem: "issue-2", Critic: "codex", PromptFile: prompt})
	assert.True(t, errors.Is(err, ErrInvalidRequest))
	assert.ErrorContains(t, err, "issue-2 has not entered the graph")

	sess, err := r.svc.open(ctx, r.repo, "issue-1", "")
	require.NoError(t, err)
	_, err = sess.rt.SetControl(ctx, "issue-1", &runtime.Control{Command: runtime.ControlPause, By: "alice"}, "")
	require.NoError(t, err)
	_, err = r.svc.CriticRun(ctx, CriticRunRequest{Repo: r.repo, WorkItem: "issue-1", Critic: "codex", PromptFile: prompt})
	assert.True(t, errors.Is(err, runtime.ErrHeld), "a paused item runs no critic: %v", err)

	st, err := r.svc.writableStore(ctx)
	require.NoError(t, err)
	runs, err := st.ListCriticRuns(ctx, sess.repo.Root, "issue-1")
	require.NoError(t, err)
	assert.Empty(t, runs, "nothing ran, nothing is recorded")

	res, err := r.svc.CriticRun(ctx, CriticRunRequest{Repo: r.repo, Critic: "codex", PromptFile: prompt})
	require.NoError(t, err, "without a work item the round runs, held items aside")
	assert.Contains(t, strings.Join(res.Warnings, "\n"), "not recorded: no work item was named")
}

// A served repository confines the prompt file: a remote caller cannot
// hand a critic a file from elsewhere on the host.
func TestAPromptFileOutsideTheServedRepositoriesIsRefused(t *testing.T) {
	r := newCriticRig(t)
	root := r.svc.deps.Store
	confined := New(r.svc.cfg, Deps{Store: root, Critics: r.svc.deps.Critics, AllowedRepos: []string{mustReal(t, r.repo)}})
	outside := filepath.Join(t.TempDir(), "secret.md")
	require.NoError(t, os.WriteFile(outside, []byte("finding: x\n"), 0o600))
	_, err := confined.CriticRun(context.Background(), CriticRunRequest{Repo: r.repo, Critic: "codex", PromptFile: outside})
	assert.True(t, errors.Is(err, ErrInvalidRequest))
	assert.ErrorContains(t, err, "is outside the repositories this server serves")
}

func mustReal(t *testing.T, p string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(p)
	require.NoError(t, err)
	return real
}
