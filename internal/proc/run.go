package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// DefaultMaxOutput is how much of each stream Run keeps when
// Command.MaxOutput is 0.
const DefaultMaxOutput = 64 << 10

// ErrTimeout reports that a command ran past its Timeout and was killed.
var ErrTimeout = errors.New("timed out")

// Command is a short-lived child whose output is captured.
type Command struct {
	// Argv is the program and its arguments, executed directly.
	Argv []string
	// Dir is the working directory ("" = the parent's).
	Dir string
	// Env is the complete environment (see BuildEnv); nil means an empty one.
	Env []string
	// Stdin feeds the child's standard input (nil = /dev/null).
	Stdin io.Reader
	// Timeout bounds the run (0 = only ctx bounds it).
	Timeout time.Duration
	// Grace is how long SIGTERM is given before SIGKILL on a timeout or a
	// cancellation (0 = SIGKILL at once).
	Grace time.Duration
	// MaxOutput is how many bytes of each stream are kept: the end of the
	// output, since that is where failures are reported (0 =
	// DefaultMaxOutput).
	MaxOutput int
}

// Result is how a command ended and what it printed.
type Result struct {
	Status ExitStatus
	// Stdout and Stderr are the last MaxOutput bytes of each stream.
	Stdout, Stderr []byte
	// StdoutTruncated and StderrTruncated report that earlier output was
	// dropped.
	StdoutTruncated, StderrTruncated bool
	// TimedOut reports that Timeout passed and the group was killed.
	TimedOut bool
	// Duration is the wall time from start to exit.
	Duration time.Duration
}

// Run runs c to completion. A non-zero exit is not an error: it is in
// Result.Status. The error is non-nil when the program could not start
// (wrapping ErrNotFound when it does not exist), when Timeout passed
// (wrapping ErrTimeout, with the partial Result), or when ctx ended first
// (wrapping ctx.Err()). The child's whole process group is killed in the
// last two cases and whenever the child itself exits.
func Run(ctx context.Context, c Command) (Result, error) {
	max := c.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return Result{}, fmt.Errorf("run %s: %w", name(c.Argv), err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeFiles(outR, outW)
		return Result{}, fmt.Errorf("run %s: %w", name(c.Argv), err)
	}
	stdin, feed, err := stdinFile(c.Stdin)
	if err != nil {
		closeFiles(outR, outW, errR, errW)
		return Result{}, fmt.Errorf("run %s: %w", name(c.Argv), err)
	}
	start := time.Now()
	p, err := startFiles(c.Argv, c.Dir, c.Env, nil, stdin, outW, errW)
	closeFiles(outW, errW, stdin) // the child holds its own copies
	if err != nil {
		closeFiles(outR, errR)
		if feed != nil {
			feed.abort()
		}
		return Result{}, err
	}
	go p.wait()
	if feed != nil {
		feed.start()
	}
	stdout, stderr := &tailBuffer{max: max}, &tailBuffer{max: max}
	var copies sync.WaitGroup
	copies.Add(2)
	go drain(&copies, outR, stdout)
	go drain(&copies, errR, stderr)

	var timeout <-chan time.Time
	if c.Timeout > 0 {
		t := time.NewTimer(c.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var runErr error
	timedOut := false
	select {
	case <-p.Done():
	case <-timeout:
		timedOut = true
		runErr = fmt.Errorf("%s: %w after %s", name(c.Argv), ErrTimeout, c.Timeout)
		p.Stop(c.Grace)
	case <-ctx.Done():
		runErr = fmt.Errorf("%s: interrupted: %w", name(c.Argv), ctx.Err())
		p.Stop(c.Grace)
	}
	status := p.Wait()
	copies.Wait() // the group is dead, so both pipes are at EOF
	if feed != nil {
		feed.abort()
	}
	return Result{
		Status:          status,
		Stdout:          stdout.bytes(),
		Stderr:          stderr.bytes(),
		StdoutTruncated: stdout.truncated,
		StderrTruncated: stderr.truncated,
		TimedOut:        timedOut,
		Duration:        time.Since(start),
	}, runErr
}

func drain(wg *sync.WaitGroup, r *os.File, w io.Writer) {
	defer wg.Done()
	_, _ = io.Copy(w, r)
	_ = r.Close()
}

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			_ = f.Close()
		}
	}
}

// stdinFeed copies a non-file reader into the child's stdin pipe.
type stdinFeed struct {
	r io.Reader
	w *os.File
}

func (f *stdinFeed) start() {
	go func() {
		_, _ = io.Copy(f.w, f.r)
		_ = f.w.Close()
	}()
}

// abort closes the write end so a copy blocked on a dead child returns.
func (f *stdinFeed) abort() { _ = f.w.Close() }

// stdinFile turns r into a file the child can hold: /dev/null for nil,
// else a pipe fed by a goroutine (so Wait never waits on a copy).
func stdinFile(r io.Reader) (*os.File, *stdinFeed, error) {
	if r == nil {
		f, err := os.Open(os.DevNull)
		return f, nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	return pr, &stdinFeed{r: r, w: pw}, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu        sync.Mutex
	max       int
	buf       []byte
	truncated bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= t.max {
		t.truncated = t.truncated || len(t.buf) > 0 || len(p) > t.max
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.truncated = true
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

func (t *tailBuffer) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf...)
}
