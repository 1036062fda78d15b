package sessions

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/store"
)

func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed; the tmux runner is not tested here")
	}
}

func TestEscapeArgKeepsTmuxFromSplittingCommands(t *testing.T) {
	for in, want := range map[string]string{"plain": "plain", "x;": `x\;`, ";": `\;`, `\;`: `\\;`, "a;b": "a;b", "": ""} {
		assert.Equal(t, want, escapeArg(in), in)
	}
}

func (r *rig) tmuxHasSession(runner *TmuxRunner, name string) bool {
	cmd := exec.Command("tmux", "-S", runner.Socket(), "has-session", "-t", name)
	return cmd.Run() == nil
}

func TestTmuxRunnerSessionsCanBeAttachedRelaunchedAndCarryNoSecret(t *testing.T) {
	needTmux(t)
	t.Setenv("GITHUB_TOKEN", "ghp_tmux_secret_1")
	t.Setenv("THE_LOOP_SIGNING_KEY", "tmux_signing_secret_2")
	r := newRig(t)
	runner := &TmuxRunner{Dir: filepath.Join(r.state, "tmux")}
	s := r.supervisor(Config{Runner: RunnerTmux}, runner)
	const artifact = "docs/specs/issue-20/design.md"
	w := r.want("issue-20", "design", "artifact: "+artifact+"\nfake: hang-runs=1 env-dump turns=2 tokens=90\n", 1)
	wants := r.untilPushed(w, artifact)

	rep, err := s.Cycle(ctx, wants())
	require.NoError(t, err)
	require.Len(t, rep.Started, 1)
	first := rep.Started[0]
	assert.Equal(t, RunnerTmux, first.Runner)
	assert.Equal(t, "tmux -S "+runner.Socket()+" attach -t loop-"+first.Session, first.Attach, "a human is told how to attach")
	assert.True(t, r.tmuxHasSession(runner, "loop-"+first.Session))
	r.ready("issue-20", 1)

	waitFor(t, "the transcript to reach the supervisor", func() bool {
		rep, err = s.Cycle(ctx, wants())
		require.NoError(t, err)
		return len(rep.Live) == 1 && rep.Live[0].Usage.Turns == 2
	})
	assert.Equal(t, int64(90), rep.Live[0].Usage.Tokens(), "usage is read from what tmux copied out of the pane")

	dump, err := os.ReadFile(filepath.Join(r.fake, "issue-20.env-1"))
	require.NoError(t, err)
	assert.NotContains(t, string(dump), "secret", "no poller secret reaches a tmux session")
	assert.Contains(t, string(dump), "THE_LOOP_WORK_ITEM=issue-20\n")
	args, err := os.ReadFile(filepath.Join(r.fake, "issue-20.args-1"))
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(string(args), "\ntrailing;\n"), "an argument ending in ';' arrives intact: %q", args)

	require.NoError(t, syscall.Kill(-first.PID, syscall.SIGKILL))
	rep = cycleUntil(t, s, wants, exited)
	assert.Equal(t, "killed by SIGKILL", rep.Exited[0].ExitStatus)
	assert.False(t, r.tmuxHasSession(runner, "loop-"+first.Session), "a finished session's tmux session is removed")

	r.clock.Advance(time.Minute)
	rep, err = s.Cycle(ctx, wants())
	require.NoError(t, err)
	require.Len(t, rep.Started, 1)
	assert.Equal(t, 2, rep.Started[0].Attempt)
	rep = cycleUntil(t, s, wants, exited)
	assert.Equal(t, "exit 0", rep.Exited[0].ExitStatus)
	assert.True(t, r.committed("issue-20", artifact))
}

func TestTmuxSessionLeftByADeadPollerIsReclaimed(t *testing.T) {
	needTmux(t)
	r := newRig(t)
	runner := &TmuxRunner{Dir: filepath.Join(r.state, "tmux")}
	s := r.supervisor(Config{Runner: RunnerTmux}, runner)
	w := r.want("issue-21", "design", "fake: hang-runs=9\n", 1)
	rep, err := s.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	id := rep.Started[0].Session
	r.ready("issue-21", 1)

	s2 := r.supervisor(Config{Runner: RunnerTmux}, &TmuxRunner{Dir: filepath.Join(r.state, "tmux")})
	lost, err := s2.Recover(ctx)
	require.NoError(t, err)
	require.Len(t, lost, 1)
	assert.Equal(t, "the supervisor restarted while it ran; it was stopped", lost[0].Reason)
	assert.False(t, r.tmuxHasSession(runner, "loop-"+id))
	rec, _, err := r.store.GetSession(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, store.SessionLost, rec.State)
}

// TestTmuxRunnerCapsATranscript: under the tmux runner too, a session
// printing far more than sessions.maxTranscriptBytes leaves the tail, and
// its record says how much was cut.
func TestTmuxRunnerCapsATranscript(t *testing.T) {
	needTmux(t)
	r := newRig(t)
	h := map[string]harness.Config{"loud": {Adapter: harness.AdapterCommand, Argv: []string{"/bin/sh", "-c",
		`i=0; while [ $i -lt 4000 ]; do echo "line $i of a session that prints too much, padded to make it longer still"; i=$((i+1)); done; echo LAST`, "{prompt_file}"}}}
	runner := &TmuxRunner{Dir: filepath.Join(r.state, "tmux")}
	s, err := New(Config{Runner: RunnerTmux, MaxTranscriptBytes: 64 << 10}, Deps{Store: r.store, Harnesses: h, Serve: []string{"/usr/local/bin/the-loop", "serve"},
		StateDir: r.state, Runner: runner, Now: r.clock.Now, Log: slog.New(slog.NewTextHandler(ioDiscard{}, nil)),
		NewID: func() string { r.ids++; return fmt.Sprintf("s-%03d", r.ids) }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	w := r.want("issue-22", "design", "print", 1)
	w.Harness = "loud"
	rep := cycleUntil(t, s, fixed(w), exited)
	rec, found, err := r.store.GetSession(context.Background(), rep.Exited[0].Session)
	require.NoError(t, err)
	require.True(t, found)
	b, err := os.ReadFile(rec.Transcript)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(b), 64<<10)
	assert.Contains(t, string(b), "LAST", "the tail is kept")
	assert.NotContains(t, string(b), "line 0 of", "the head is cut")
	assert.Greater(t, rec.TranscriptCut, int64(200<<10), "the record says how much was cut")
	assert.NoFileExists(t, rec.Transcript+".pipe", "the pipe is gone with the session")
}
