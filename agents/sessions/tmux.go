package sessions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/the-loop/the-loop/internal/proc"
	"github.com/the-loop/the-loop/store"
)

// TmuxRunner runs each session in a detached tmux session on a private
// tmux server (its own socket and config), so a human can attach and take
// over. The harness's argv is executed directly by tmux, never through a
// shell; its output is copied to the transcript by tmux's pipe-pane.
type TmuxRunner struct {
	// Tmux is the tmux program (default "tmux").
	Tmux string
	// Dir holds the server's socket and config; keep the path short (a
	// socket path is limited to about 100 bytes).
	Dir string
	// Env is the environment tmux itself runs with (default: proc.Basics
	// from the poller's environment). Each session gets its own variables
	// on top, so nothing passes from one session to another.
	Env []string
	// Poll is how often a session's process is checked for exit (default
	// 250ms).
	Poll time.Duration

	once    sync.Once
	initErr error
}

// Name implements Runner.
func (*TmuxRunner) Name() string { return RunnerTmux }

// Terminal implements Runner.
func (*TmuxRunner) Terminal() bool { return true }

// Socket is the private server's socket path.
func (r *TmuxRunner) Socket() string { return filepath.Join(r.Dir, "tmux.sock") }

// safePath is what a transcript path may contain: it is the one value
// that passes through the shell tmux runs pipe-pane's command with.
var safePath = regexp.MustCompile(`^[A-Za-z0-9/._+-]+$`)

func (r *TmuxRunner) init() error {
	r.once.Do(func() {
		if r.Tmux == "" {
			r.Tmux = "tmux"
		}
		if r.Poll == 0 {
			r.Poll = 250 * time.Millisecond
		}
		if r.Env == nil {
			env, err := proc.BuildEnv(proc.EnvSpec{}, os.LookupEnv)
			if err != nil {
				r.initErr = err
				return
			}
			r.Env = env.List()
		}
		if _, err := proc.Run(context.Background(), proc.Command{Argv: []string{r.Tmux, "-V"}, Env: r.Env, Timeout: 10 * time.Second}); errors.Is(err, proc.ErrNotFound) {
			r.initErr = errNoTmux
			return
		}
		if len(r.Socket()) > 100 {
			r.initErr = fmt.Errorf("tmux socket path %s is too long; put the session state in a shorter directory", r.Socket())
			return
		}
		if err := os.MkdirAll(r.Dir, 0o700); err != nil {
			r.initErr = err
			return
		}
		// remain-on-exit keeps a finished pane until its exit status is read.
		conf := "set-option -g remain-on-exit on\nset-option -g history-limit 50000\nset-option -g exit-empty on\n"
		r.initErr = os.WriteFile(filepath.Join(r.Dir, "tmux.conf"), []byte(conf), 0o600)
	})
	return r.initErr
}

// tmux runs one tmux command against the private server.
func (r *TmuxRunner) tmux(ctx context.Context, args ...string) (string, error) {
	argv := append([]string{r.Tmux, "-S", r.Socket(), "-f", filepath.Join(r.Dir, "tmux.conf")}, args...)
	res, err := proc.Run(ctx, proc.Command{Argv: argv, Env: r.Env, Timeout: 30 * time.Second})
	if err != nil {
		return "", fmt.Errorf("tmux %s: %w", args[0], err)
	}
	if !res.Status.Success() {
		return "", fmt.Errorf("tmux %s: %s: %s", args[0], res.Status, strings.TrimSpace(string(res.Stderr)))
	}
	return strings.TrimSpace(string(res.Stdout)), nil
}

func sessionName(id string) string { return "loop-" + id }

// escapeArg protects an argument from tmux's own command parsing, which
// treats a trailing ';' as the end of a command.
func escapeArg(a string) string {
	if strings.HasSuffix(a, ";") {
		return a[:len(a)-1] + `\;`
	}
	return a
}

// Start implements Runner: it creates the session on a placeholder,
// attaches the transcript, then replaces the placeholder with the
// harness, so no output is missed.
func (r *TmuxRunner) Start(ctx context.Context, l RunnerLaunch) (Handle, error) {
	if err := r.init(); err != nil {
		return nil, err
	}
	if !safePath.MatchString(l.Transcript) {
		return nil, fmt.Errorf("transcript path %q holds characters the tmux runner cannot pass safely; use a state directory of letters, digits and / . _ + -", l.Transcript)
	}
	name := sessionName(l.ID)
	if _, err := r.tmux(ctx, "new-session", "-d", "-s", name, "-x", "200", "-y", "50", "-c", l.Plan.Dir, "--", "cat"); err != nil {
		return nil, err
	}
	fail := func(err error) (Handle, error) {
		_, _ = r.tmux(context.Background(), "kill-session", "-t", name)
		return nil, err
	}
	// With the supervisor's capped writer (l.Out), tmux's copy of the pane
	// goes through a FIFO the runner reads into it, so the transcript keeps
	// its cap; without one, tmux appends to the transcript itself.
	target := l.Transcript
	var pipe *transcriptPipe
	if l.Out != nil {
		var err error
		if pipe, err = openTranscriptPipe(l.Transcript+".pipe", l.Out); err != nil {
			return fail(err)
		}
		target = pipe.path
	}
	if _, err := r.tmux(ctx, "pipe-pane", "-t", name, "-O", "exec cat >> "+target); err != nil {
		pipe.close()
		return fail(err)
	}
	args := []string{"respawn-pane", "-k", "-t", name, "-c", l.Plan.Dir}
	for _, kv := range l.Plan.Env {
		args = append(args, "-e", kv)
	}
	args = append(args, "--")
	for _, a := range l.Plan.Argv {
		args = append(args, escapeArg(a))
	}
	if _, err := r.tmux(ctx, args...); err != nil {
		pipe.close()
		return fail(err)
	}
	out, err := r.tmux(ctx, "display-message", "-p", "-t", name, "#{pane_pid}")
	if err != nil {
		pipe.close()
		return fail(err)
	}
	pid, err := strconv.Atoi(out)
	if err != nil || pid <= 0 {
		pipe.close()
		return fail(fmt.Errorf("tmux reported pane pid %q", out))
	}
	h := &tmuxHandle{r: r, name: name, pid: pid, done: make(chan struct{}), pipe: pipe}
	go h.watch()
	return h, nil
}

// Reclaim implements Runner: the session's tmux session is its proof.
func (r *TmuxRunner) Reclaim(ctx context.Context, rec store.Session) (bool, error) {
	if err := r.init(); err != nil {
		return false, err
	}
	name := sessionName(rec.ID)
	if _, err := r.tmux(ctx, "has-session", "-t", name); err != nil {
		return false, nil
	}
	if out, err := r.tmux(ctx, "display-message", "-p", "-t", name, "#{pane_pid} #{pane_dead}"); err == nil {
		if f := strings.Fields(out); len(f) == 2 && f[1] != "1" {
			if pid, _ := strconv.Atoi(f[0]); pid > 0 {
				_ = syscall.Kill(-pid, syscall.SIGKILL)
			}
		}
	}
	_, err := r.tmux(ctx, "kill-session", "-t", name)
	return err == nil, err
}

type tmuxHandle struct {
	r    *TmuxRunner
	name string
	pid  int
	done chan struct{}
	exit proc.ExitStatus
	pipe *transcriptPipe // nil when tmux writes the transcript itself

	stopOnce sync.Once
}

func (h *tmuxHandle) Pid() int              { return h.pid }
func (h *tmuxHandle) Done() <-chan struct{} { return h.done }
func (h *tmuxHandle) Exit() proc.ExitStatus { <-h.done; return h.exit }

// Attach implements Handle.
func (h *tmuxHandle) Attach() string {
	return fmt.Sprintf("tmux -S %s attach -t %s", h.r.Socket(), h.name)
}

// watch waits for the pane's process to end and takes its exit status
// from the process itself while it is an unreaped zombie (tmux does not
// always reap promptly), else from tmux; then it removes the tmux session.
func (h *tmuxHandle) watch() {
	t := time.NewTicker(h.r.Poll)
	defer t.Stop()
	ctx := context.Background()
	unknown := 0
	for range t.C {
		if st, ok := proc.ZombieStatus(h.pid); ok {
			h.exit = st
			break
		}
		if syscall.Kill(h.pid, 0) == nil {
			continue // still running: checked without running tmux
		}
		out, err := h.r.tmux(ctx, "display-message", "-p", "-t", h.name, "#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}")
		if err != nil {
			h.exit = proc.ExitStatus{Code: -1, Signal: "unknown (the tmux session vanished)"}
			break
		}
		f := strings.Split(out, "|")
		if len(f) == 3 && f[0] == "1" && (f[1] != "" || f[2] != "") {
			h.exit = parseDead(f[1], f[2])
			break
		}
		if unknown++; unknown > 40 {
			h.exit = proc.ExitStatus{Code: -1, Signal: "unknown (tmux reported no exit status)"}
			break
		}
	}
	// Whatever the pane left in its group goes with it.
	_ = syscall.Kill(-h.pid, syscall.SIGKILL)
	h.pipe.settle() // tmux copies the pane's last output after its process ended
	_, _ = h.r.tmux(ctx, "kill-session", "-t", h.name)
	h.pipe.close() // what tmux copied last reaches the transcript before done
	close(h.done)
}

func parseDead(status, signal string) proc.ExitStatus {
	if n, err := strconv.Atoi(signal); err == nil && n > 0 {
		return proc.ExitStatus{Code: -1, Signal: signalName(syscall.Signal(n))}
	}
	if n, err := strconv.Atoi(status); err == nil {
		return proc.ExitStatus{Code: n}
	}
	return proc.ExitStatus{Code: -1, Signal: "unknown"}
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return "signal " + strconv.Itoa(int(s))
}

// Stop implements Handle.
func (h *tmuxHandle) Stop(grace time.Duration) {
	h.stopOnce.Do(func() {
		if grace <= 0 {
			_ = syscall.Kill(-h.pid, syscall.SIGKILL)
			return
		}
		_ = syscall.Kill(-h.pid, syscall.SIGTERM)
		go func() {
			t := time.NewTimer(grace)
			defer t.Stop()
			select {
			case <-h.done:
			case <-t.C:
				_ = syscall.Kill(-h.pid, syscall.SIGKILL)
			}
		}()
	})
}

// errNoTmux is returned when tmux is not installed.
var errNoTmux = errors.New("tmux is not installed; install it or set sessions.runner: process")
