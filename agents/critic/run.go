package critic

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/internal/proc"
)

// Limits on what a round is given and keeps.
const (
	// MaxPromptBytes bounds a prompt file.
	MaxPromptBytes = 1 << 20
	// maxArgBytes is the largest {prompt} argument: Linux refuses a single
	// argument of 128 KiB or more.
	maxArgBytes = 128<<10 - 1
	// maxStderrBytes is how much of the standard error tail is kept.
	maxStderrBytes = 8 << 10
)

// Envelope is the result of one critic round, printed as one JSON object by
// `the-loop critic run` and recorded on the work item. Unavailable is empty
// exactly when the round counts as a review round.
type Envelope struct {
	// Critic is the configured name.
	Critic string `json:"critic"`
	// RunID identifies the round; a critic-review table row names it.
	RunID string `json:"runId"`
	// PromptSHA256 is the hex SHA-256 of the prompt file's content.
	PromptSHA256 string `json:"promptSha256"`
	// Argv is what ran, secrets redacted and the {prompt} text left as the
	// placeholder.
	Argv []string `json:"argv"`
	// Workdir is the working tree the critic ran in.
	Workdir string `json:"workdir"`
	// Started and Ended bracket the round (equal when it never started).
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	// Exit is how the process ended; null when it never started.
	Exit *proc.ExitStatus `json:"exit"`
	// Output is the critic's standard output (its findings), the end of it
	// when Truncated.
	Output string `json:"output"`
	// Truncated reports that earlier output was dropped.
	Truncated bool `json:"truncated"`
	// Stderr is the tail of the critic's standard error, for diagnosis.
	Stderr string `json:"stderr"`
	// Unavailable says why the round does not count; empty when it does.
	Unavailable string `json:"unavailable"`

	// ran marks an envelope Run produced in this process. It does not
	// survive JSON, so an envelope read from a file or a tool argument can
	// never be recorded as a run.
	ran bool
}

// Counts reports whether the round counts as a review round.
func (e Envelope) Counts() bool { return e.Unavailable == "" }

// Runner runs critics. The zero value reads the process environment and
// the wall clock.
type Runner struct {
	// LookupEnv reads the loop's environment (default os.LookupEnv).
	LookupEnv func(string) (string, bool)
	// Environ lists the loop's environment, whose secret values are
	// redacted from anything a round returns (default os.Environ).
	Environ func() []string
	// Sensitive names variables holding secrets beyond what
	// envvar.LooksSecret recognises (e.g. the configured tracker token
	// variable): never passed, always redacted.
	Sensitive []string
	// Now is the clock (default time.Now).
	Now func() time.Time
	// ProbeTimeout bounds a version probe (default 10 s).
	ProbeTimeout time.Duration
	// Grace is how long a stopped critic gets between SIGTERM and SIGKILL
	// (default 5 s).
	Grace time.Duration
}

// Run runs one round of critic c on the prompt in promptFile, inside
// workdir, and returns its envelope. The error is non-nil only for bad
// input (an invalid critic, an unreadable, empty or oversized prompt file,
// a workdir that is not a directory); anything that goes wrong with the
// critic itself is an envelope with an Unavailable reason.
func (r *Runner) Run(ctx context.Context, c Critic, promptFile, workdir string) (Envelope, error) {
	if err := c.Validate(); err != nil {
		return Envelope{}, err
	}
	prompt, promptPath, err := readPrompt(promptFile)
	if err != nil {
		return Envelope{}, err
	}
	dir, err := workingDir(workdir)
	if err != nil {
		return Envelope{}, err
	}
	env, err := r.env(c)
	if err != nil {
		return Envelope{}, fmt.Errorf("critic %s: %w", c.Name, err)
	}
	sum := sha256.Sum256(prompt)
	argv, shown, stdin, err := expand(c.Command, string(prompt), promptPath, dir)
	if err != nil {
		return Envelope{}, fmt.Errorf("critic %s: %w", c.Name, err)
	}
	secrets := r.secrets()
	e := Envelope{
		Critic:       c.Name,
		RunID:        r.newRunID(),
		PromptSHA256: hex.EncodeToString(sum[:]),
		Argv:         proc.Redact(shown, secrets),
		Workdir:      dir,
		ran:          true,
	}
	e.Started = r.now()
	path, err := resolve(c.Command[0], env)
	if err != nil {
		e.Ended = e.Started
		e.Unavailable = err.Error()
		return e, nil
	}
	argv[0] = path
	cmd := proc.Command{
		Argv:      argv,
		Dir:       dir,
		Env:       env.List(),
		Timeout:   time.Duration(c.RoundTimeoutSeconds()) * time.Second,
		Grace:     r.grace(),
		MaxOutput: c.OutputLimit(),
	}
	if stdin {
		cmd.Stdin = bytes.NewReader(prompt)
	}
	res, runErr := proc.Run(ctx, cmd)
	e.Ended = r.now()
	r.fill(&e, c, res, runErr, secrets)
	return e, nil
}

// fill records how the process ended and decides whether the round counts.
func (r *Runner) fill(e *Envelope, c Critic, res proc.Result, runErr error, secrets []string) {
	e.Output = clean(res.Stdout, secrets)
	e.Truncated = res.StdoutTruncated
	e.Stderr = clean(tail(res.Stderr, maxStderrBytes), secrets)
	st := res.Status
	e.Exit = &st
	switch {
	case res.TimedOut || errors.Is(runErr, proc.ErrTimeout):
		e.Unavailable = fmt.Sprintf("timed out after %ds and was stopped; raise critics[].timeoutSeconds for %s if its reviews need longer", c.RoundTimeoutSeconds(), c.Name)
	case runErr != nil && ctxDone(runErr):
		e.Unavailable = "interrupted before it finished (" + runErr.Error() + ")"
	case runErr != nil:
		e.Exit = nil
		e.Unavailable = "could not start: " + proc.RedactText(runErr.Error(), secrets)
	case !res.Status.Success():
		e.Unavailable = fmt.Sprintf("exited with %s, so no review happened", res.Status)
		if last := lastLine(e.Stderr); last != "" {
			e.Unavailable += "; its last error line: " + last
		}
	case strings.TrimSpace(e.Output) == "":
		e.Unavailable = "printed nothing on standard output; a review round must print its findings (or say it found none)"
	}
}

func ctxDone(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// env builds the critic's environment from its allow-list.
func (r *Runner) env(c Critic) (*proc.Env, error) {
	lookup := r.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	return proc.BuildEnv(proc.EnvSpec{Pass: c.Env, Sensitive: r.Sensitive}, lookup)
}

// secrets are the loop's secret values, redacted from what a round returns.
func (r *Runner) secrets() []string {
	environ := r.Environ
	if environ == nil {
		environ = os.Environ
	}
	return proc.SecretValuesOf(environ(), r.Sensitive...)
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now().UTC()
	}
	return time.Now().UTC()
}

func (r *Runner) grace() time.Duration {
	if r.Grace > 0 {
		return r.Grace
	}
	return 5 * time.Second
}

// newRunID returns a sortable, unguessable run id, e.g.
// cr-20260301T100000Z-1a2b3c4d5e6f.
func (r *Runner) newRunID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "cr-" + r.now().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// readPrompt reads a prompt file, refusing a missing, non-regular, empty
// or oversized one.
func readPrompt(path string) ([]byte, string, error) {
	if strings.TrimSpace(path) == "" {
		return nil, "", errors.New("no prompt file given; pass --prompt-file with the review assignment")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", fmt.Errorf("prompt file %s: %w", path, err)
	}
	f, err := os.Open(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", fmt.Errorf("prompt file %s does not exist; write the review assignment to it first", abs)
		}
		return nil, "", fmt.Errorf("prompt file %s: %w", abs, err)
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return nil, "", fmt.Errorf("prompt file %s: %w", abs, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, "", fmt.Errorf("prompt file %s is not a regular file; pass a file holding the review assignment", abs)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxPromptBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("prompt file %s: %w", abs, err)
	}
	switch {
	case len(b) > MaxPromptBytes:
		return nil, "", fmt.Errorf("prompt file %s is larger than %d bytes; point the critic at the files to read instead of pasting them", abs, MaxPromptBytes)
	case len(bytes.TrimSpace(b)) == 0:
		return nil, "", fmt.Errorf("prompt file %s is empty; write the review assignment to it", abs)
	}
	return b, abs, nil
}

func workingDir(dir string) (string, error) {
	if strings.TrimSpace(dir) == "" {
		return "", errors.New("no working directory given; name the work item's working tree")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("working directory %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("working directory %s is not a directory; name the work item's working tree", abs)
	}
	return abs, nil
}

// expand substitutes the placeholders. argv is what runs, shown is what is
// recorded ({prompt} kept as the placeholder), and stdin reports that the
// prompt goes to standard input because the command names neither prompt
// placeholder.
func expand(command []string, prompt, promptFile, workdir string) (argv, shown []string, stdin bool, err error) {
	stdin = true
	argv = make([]string, len(command))
	shown = make([]string, len(command))
	for i, a := range command {
		if strings.Contains(a, config.PlaceholderPrompt) || strings.Contains(a, config.PlaceholderPromptFile) {
			stdin = false
		}
		s := strings.ReplaceAll(a, config.PlaceholderPromptFile, promptFile)
		s = strings.ReplaceAll(s, config.PlaceholderWorkdir, workdir)
		shown[i] = s
		argv[i] = strings.ReplaceAll(s, config.PlaceholderPrompt, prompt)
		if len(argv[i]) > maxArgBytes {
			return nil, nil, false, fmt.Errorf("the prompt is %d bytes, too long for one argument (%s); use %s or standard input in the critic's command", len(prompt), config.PlaceholderPrompt, config.PlaceholderPromptFile)
		}
		if strings.ContainsRune(argv[i], 0) {
			return nil, nil, false, fmt.Errorf("the prompt contains a NUL byte, which cannot be passed as an argument (%s); use %s or standard input", config.PlaceholderPrompt, config.PlaceholderPromptFile)
		}
	}
	return argv, shown, stdin, nil
}

// resolve finds the critic's executable on the critic's own PATH
// (proc.LookPath), saying how to fix a missing one.
func resolve(prog string, env *proc.Env) (string, error) {
	path, err := proc.LookPath(prog, env)
	var nf *proc.NotFoundError
	switch {
	case errors.As(err, &nf):
		return "", fmt.Errorf("executable %q not found on the critic's PATH (%s); install it, or give its absolute path in critics[].command", prog, nf.Path)
	case err != nil:
		return "", fmt.Errorf("%v; install the critic or fix critics[].command", err)
	}
	return path, nil
}

// clean makes captured bytes safe to print and record: valid UTF-8, secret
// values redacted.
func clean(b []byte, secrets []string) string {
	return proc.RedactText(strings.ToValidUTF8(string(b), "\uFFFD"), secrets)
}

// tail keeps the last max bytes of b, starting on a rune boundary.
func tail(b []byte, max int) []byte {
	if len(b) <= max {
		return b
	}
	b = b[len(b)-max:]
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b = b[1:]
	}
	return b
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return cut(strings.TrimSpace(lines[len(lines)-1]), 300)
}

// cut shortens s to at most n bytes on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
