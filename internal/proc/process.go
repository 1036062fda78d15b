package proc

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// ErrNotFound reports that the program named by argv[0] does not exist or
// is not executable.
var ErrNotFound = errors.New("program not found")

// Spec describes a supervised long-running child.
type Spec struct {
	// Argv is the program and its arguments, executed directly (never
	// through a shell). Argv[0] is looked up in the PATH of Env when it has
	// no slash.
	Argv []string
	// Dir is the working directory ("" = the parent's).
	Dir string
	// Env is the child's complete environment (see BuildEnv); nil means an
	// empty one, never the parent's.
	Env []string
	// StdinPath is a file fed to the child's stdin ("" = /dev/null).
	StdinPath string
	// StdoutPath and StderrPath receive the child's output, appended to
	// (created 0600). "" discards the stream.
	StdoutPath string
	StderrPath string
	// Stdout and Stderr, when set, receive the stream instead of a path
	// (through a pipe the parent copies from); the child counts as ended
	// once its output is copied.
	Stdout io.Writer
	Stderr io.Writer
	// SysProcAttr adds to how the child is started (namespaces, a death
	// signal); its process group is always a new one.
	SysProcAttr *syscall.SysProcAttr
}

// ExitStatus is how a child ended.
type ExitStatus struct {
	// Code is the exit code, or -1 when a signal ended the child.
	Code int `json:"code"`
	// Signal names the signal that ended the child (e.g. SIGKILL), if any.
	Signal string `json:"signal,omitempty"`
}

// Success reports a clean exit 0.
func (s ExitStatus) Success() bool { return s.Code == 0 && s.Signal == "" }

func (s ExitStatus) String() string {
	if s.Signal != "" {
		return "killed by " + s.Signal
	}
	return fmt.Sprintf("exit %d", s.Code)
}

// Process is a started child running in its own process group.
type Process struct {
	cmd    *exec.Cmd
	pid    int
	done   chan struct{}
	status ExitStatus
	// closers are the parent's ends of the child's files, closed on exit.
	closers []io.Closer
	// copying counts the output copies still running.
	copying sync.WaitGroup

	stopOnce sync.Once
}

// Start starts spec's child and returns at once. The child's group is
// killed when the child itself exits, so nothing it spawned outlives it.
func Start(spec Spec) (*Process, error) {
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			_ = f.Close()
		}
	}
	open := func(path string, flag int) (*os.File, error) {
		if path == "" {
			return os.OpenFile(os.DevNull, flag, 0)
		}
		return os.OpenFile(path, flag, 0o600)
	}
	stdin, err := open(spec.StdinPath, os.O_RDONLY)
	if err != nil {
		return nil, fmt.Errorf("start %s: stdin: %w", name(spec.Argv), err)
	}
	files = append(files, stdin)
	var copies []copier
	output := func(path string, w io.Writer) (*os.File, error) {
		if w == nil {
			return open(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
		}
		r, pw, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		copies = append(copies, copier{r: r, w: w})
		return pw, nil
	}
	closeCopies := func() {
		for _, c := range copies {
			_ = c.r.Close()
		}
	}
	stdout, err := output(spec.StdoutPath, spec.Stdout)
	if err != nil {
		closeAll()
		closeCopies()
		return nil, fmt.Errorf("start %s: stdout: %w", name(spec.Argv), err)
	}
	files = append(files, stdout)
	stderr, err := output(spec.StderrPath, spec.Stderr)
	if err != nil {
		closeAll()
		closeCopies()
		return nil, fmt.Errorf("start %s: stderr: %w", name(spec.Argv), err)
	}
	files = append(files, stderr)
	p, err := startFiles(spec.Argv, spec.Dir, spec.Env, spec.SysProcAttr, stdin, stdout, stderr)
	closeAll() // the child holds its own copies
	if err != nil {
		closeCopies()
		return nil, err
	}
	for _, c := range copies {
		p.copying.Add(1)
		go func() {
			defer p.copying.Done()
			_, _ = io.Copy(c.w, c.r)
			_ = c.r.Close()
		}()
	}
	go p.wait()
	return p, nil
}

// copier copies a child's output from the pipe's read end to a writer.
type copier struct {
	r *os.File
	w io.Writer
}

// startFiles starts argv with the given files as its standard streams. All
// three are *os.File, so exec starts no copying goroutines and Wait returns
// as soon as the child exits.
func startFiles(argv []string, dir string, env []string, attr *syscall.SysProcAttr, stdin, stdout, stderr *os.File) (*Process, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("start: empty argv; name the program to run")
	}
	path, err := lookPath(argv[0], env)
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Dir: dir, Env: env, Stdin: stdin, Stdout: stdout, Stderr: stderr}
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	ownGroup(cmd, attr)
	if err := cmd.Start(); err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("start %s: %w: %w", argv[0], ErrNotFound, err)
		}
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	return &Process{cmd: cmd, pid: cmd.Process.Pid, done: make(chan struct{})}, nil
}

// lookPath resolves a bare program name against the child's PATH (not the
// parent's), so the allow-listed environment decides what runs.
func lookPath(prog string, env []string) (string, error) {
	for _, c := range prog {
		if c == '/' {
			return prog, nil
		}
	}
	pathList := ""
	for _, kv := range env {
		if len(kv) > 5 && kv[:5] == "PATH=" {
			pathList = kv[5:]
		}
	}
	for _, dir := range filepathSplitList(pathList) {
		if dir == "" {
			continue // an empty entry would mean the working directory
		}
		cand := dir + "/" + prog
		if fi, err := os.Stat(cand); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return cand, nil
		}
	}
	return "", fmt.Errorf("start %s: %w in the child's PATH (%q); give an absolute path or pass PATH", prog, ErrNotFound, pathList)
}

func filepathSplitList(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == os.PathListSeparator {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func (p *Process) wait() {
	err := p.cmd.Wait()
	// Reap whatever the child left in its group.
	_ = signalGroup(p.pid, syscall.SIGKILL)
	p.copying.Wait()
	p.status = statusOf(p.cmd.ProcessState, err)
	for _, c := range p.closers {
		_ = c.Close()
	}
	close(p.done)
}

func statusOf(ps *os.ProcessState, err error) ExitStatus {
	if ps == nil {
		return ExitStatus{Code: -1, Signal: "unknown (" + err.Error() + ")"}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ExitStatus{Code: -1, Signal: signalName(ws.Signal())}
	}
	return ExitStatus{Code: ps.ExitCode()}
}

// Pid returns the child's process id (also its process group id).
func (p *Process) Pid() int { return p.pid }

// Done is closed once the child has exited and its group was reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait blocks until the child has exited and returns how it ended.
func (p *Process) Wait() ExitStatus {
	<-p.done
	return p.status
}

// Exited reports whether the child has exited, and how.
func (p *Process) Exited() (ExitStatus, bool) {
	select {
	case <-p.done:
		return p.status, true
	default:
		return ExitStatus{}, false
	}
}

// Stop asks the child's whole group to end with SIGTERM and, when grace
// passes without an exit, kills it with SIGKILL. It returns at once; Done
// reports the exit. A grace of 0 kills at once.
func (p *Process) Stop(grace time.Duration) {
	p.stopOnce.Do(func() {
		if grace <= 0 {
			_ = signalGroup(p.pid, syscall.SIGKILL)
			return
		}
		_ = signalGroup(p.pid, syscall.SIGTERM)
		go func() {
			t := time.NewTimer(grace)
			defer t.Stop()
			select {
			case <-p.done:
			case <-t.C:
				_ = signalGroup(p.pid, syscall.SIGKILL)
			}
		}()
	})
}

func name(argv []string) string {
	if len(argv) == 0 {
		return "(empty argv)"
	}
	return argv[0]
}
