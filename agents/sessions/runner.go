package sessions

import (
	"context"
	"io"
	"syscall"
	"time"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/internal/proc"
	"github.com/the-loop/the-loop/internal/sessionenv"
	"github.com/the-loop/the-loop/store"
)

// MarkerVar is set in every session's environment to its session id; it
// lets a restarted supervisor prove a leftover process is its own.
const MarkerVar = sessionenv.ID

// Runner starts prepared sessions.
type Runner interface {
	// Name is process or tmux (recorded with each session).
	Name() string
	// Terminal reports that sessions run in a terminal, so their stdin
	// cannot carry the prompt.
	Terminal() bool
	// Start launches a session. Its stdout goes to Launch.Transcript.
	Start(ctx context.Context, l RunnerLaunch) (Handle, error)
	// Reclaim ends a session an earlier supervisor recorded as running,
	// when it can prove the process is that session's, and reports whether
	// it stopped anything.
	Reclaim(ctx context.Context, rec store.Session) (bool, error)
}

// RunnerLaunch is one session for a Runner to start.
type RunnerLaunch struct {
	ID         string
	Plan       *harness.Plan
	Transcript string // stdout, appended
	Stderr     string // stderr, appended (process runner)
	// Out and Err, when set, receive stdout and stderr instead of the
	// paths (the process runner: the transcript held to its cap).
	Out, Err io.Writer
	// Attr adds to how the process runner starts the session (the
	// sandbox's namespaces); a runner that cannot use it starts the
	// launcher plainly, and the launcher enters them itself.
	Attr *syscall.SysProcAttr
}

// Handle is a started session.
type Handle interface {
	Pid() int
	// Done is closed once the session has ended.
	Done() <-chan struct{}
	// Exit is how it ended; valid once Done is closed.
	Exit() proc.ExitStatus
	// Stop ends the session: SIGTERM to its process group, SIGKILL after
	// grace. It returns at once.
	Stop(grace time.Duration)
	// Attach tells a human how to take the session over ("" = not possible).
	Attach() string
}

// ProcessRunner runs each session as a plain supervised child process.
type ProcessRunner struct{}

// Name implements Runner.
func (ProcessRunner) Name() string { return RunnerProcess }

// Terminal implements Runner.
func (ProcessRunner) Terminal() bool { return false }

// Start implements Runner.
func (ProcessRunner) Start(_ context.Context, l RunnerLaunch) (Handle, error) {
	p, err := proc.Start(proc.Spec{Argv: l.Plan.Argv, Dir: l.Plan.Dir, Env: l.Plan.Env, StdinPath: l.Plan.StdinPath,
		StdoutPath: l.Transcript, StderrPath: l.Stderr, Stdout: l.Out, Stderr: l.Err, SysProcAttr: l.Attr})
	if err != nil {
		return nil, err
	}
	return processHandle{p}, nil
}

// TakesWriters reports that the process runner writes a session's output
// through the writers of RunnerLaunch (held to their cap).
func (ProcessRunner) TakesWriters() bool { return true }

// writerRunner is a Runner that can take RunnerLaunch.Out and Err.
type writerRunner interface{ TakesWriters() bool }

// Reclaim implements Runner: it kills the recorded pid's group when that
// process carries the session's marker.
func (ProcessRunner) Reclaim(_ context.Context, rec store.Session) (bool, error) {
	return proc.ReclaimGroup(rec.PID, MarkerVar+"="+rec.ID)
}

type processHandle struct{ p *proc.Process }

func (h processHandle) Pid() int                 { return h.p.Pid() }
func (h processHandle) Done() <-chan struct{}    { return h.p.Done() }
func (h processHandle) Exit() proc.ExitStatus    { return h.p.Wait() }
func (h processHandle) Stop(grace time.Duration) { h.p.Stop(grace) }
func (h processHandle) Attach() string           { return "" }
