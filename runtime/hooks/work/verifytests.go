package work

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/internal/proc"
	"github.com/the-loop/the-loop/runtime"
)

const (
	// HookVerifyTests runs the repository's own commands.
	HookVerifyTests = "verify-tests"
	// defaultTestTimeout bounds the node's own command when timeoutSeconds
	// is unset.
	defaultTestTimeout = 900 * time.Second
	// outputTail is how much of each command's output is kept (the end).
	outputTail = 64 << 10
	// reportLines is how many failing lines a failure reports.
	reportLines = 20
)

// NoCommands is the wait of a node whose repository declares no command.
const NoCommands = "no lint, type-check or test command is declared for this repository, so nothing here proves the work runs; " +
	"set commands.test (and commands.lint, commands.typeCheck) in .the-loop/harness-config.yaml, each an argv list such as [go, test, ./...]"

// command is one command verify-tests runs.
type command struct {
	// key is lint, typeCheck, test, or "command" (the node's own).
	key string
	// label names it in messages: commands.test, or the node's command.
	label   string
	argv    []string
	shown   string
	timeout time.Duration
}

// VerifyTests runs the repository's own lint, type-check and test commands
// (its repository config's commands: block), then the node's own command
// when the graph gives one, in the item's working tree: each an argv run
// without a shell, with an environment stripped of every secret, bounded
// in time and output. It passes only when every one exits 0; the first
// that fails blocks, naming the command and its first failing lines, and
// the rest do not run. Their output is written to
// evidence/tests-<node>.md and the run is handed to the runtime, which
// records its signed receipt in the state. A repository that declares no
// command waits, naming the key to set. Under check nothing runs: the node
// is reported from the recorded receipt (see fromRecord).
func VerifyTests(hc *runtime.HookContext) (runtime.Result, error) {
	cmds, err := commandsOf(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	if len(cmds) == 0 {
		return runtime.Waiting(HookVerifyTests, NoCommands), nil
	}
	if hc.ReadOnly {
		return fromRecord(hc, cmds)
	}
	return runCommands(hc, cmds)
}

// commandsOf lists what runs: the repository's commands in order, then the
// node's own command parameter.
func commandsOf(hc *runtime.HookContext) ([]command, error) {
	var out []command
	for _, c := range hc.Commands.List {
		out = append(out, command{key: c.Key, label: "commands." + c.Key, argv: c.Argv, shown: joinArgv(c.Argv), timeout: hc.Commands.Timeout()})
	}
	argv, shown, err := commandParam(hc.Params["command"])
	if err != nil || len(argv) == 0 {
		return out, err
	}
	secs, err := hc.IntParam("timeoutSeconds", int(defaultTestTimeout/time.Second))
	if err != nil {
		return nil, err
	}
	if secs <= 0 {
		return nil, fmt.Errorf("timeoutSeconds must be a positive number of seconds, got %d", secs)
	}
	return append(out, command{key: "command", label: "the node's test command", argv: argv, shown: shown, timeout: time.Duration(secs) * time.Second}), nil
}

// ran is one command's run: how it ended and what it printed.
type ran struct {
	command
	exit     string
	duration time.Duration
	stdout   string
	stderr   string
}

// runCommands runs cmds in order until one fails, writes the evidence and
// returns the verdict carrying the run's receipt.
func runCommands(hc *runtime.HookContext, cmds []command) (runtime.Result, error) {
	environ := os.Environ()
	env, err := testEnv(environ, hc.Config)
	if err != nil {
		return runtime.Result{}, err
	}
	ctx := hc.Context
	if ctx == nil {
		ctx = context.Background()
	}
	secrets := proc.SecretValuesOf(environ, secretNames(hc.Config)...)
	run := runtime.TestRun{Node: hc.NodeID(), Outcome: runtime.TestsPassed}
	run.Commit, run.Dirty = gitState(ctx, hc.Repo, hc.RelSpecDir, env)
	var runs []ran
	var verdict *runtime.Result
	for _, c := range cmds {
		if verdict != nil {
			runs = append(runs, ran{command: c, exit: "not run"})
			continue
		}
		r, v, err := runOne(ctx, hc.Repo, env, c, secrets)
		if err != nil {
			return runtime.Result{}, err
		}
		runs = append(runs, r)
		verdict = v
	}
	for _, r := range runs {
		run.Commands = append(run.Commands, runtime.TestCommand{Key: r.key, Command: r.shown, Exit: r.exit})
	}
	if verdict != nil {
		run.Outcome = runtime.TestsFailed
	}
	if err := writeEvidence(hc, &run, runs); err != nil {
		return runtime.Blocked(HookVerifyTests, runtime.Errorf("", "the commands ran, but their output could not be written as evidence: %v", err)), nil
	}
	if verdict == nil {
		v := runtime.OK(HookVerifyTests, nil)
		v.Messages = []runtime.Message{{Text: passedText(run), Severity: runtime.SevInfo}}
		verdict = &v
	}
	if verdict.Data == nil {
		verdict.Data = map[string]any{}
	}
	verdict.Data[runtime.ReceiptKey] = run.Receipt()
	verdict.Data["commands"] = shownOf(cmds)
	return *verdict, nil
}

// runOne runs c; the verdict is nil when it passed.
func runOne(ctx context.Context, dir string, env []string, c command, secrets []string) (ran, *runtime.Result, error) {
	res, err := proc.Run(ctx, proc.Command{Argv: c.argv, Dir: dir, Env: env, Timeout: c.timeout, Grace: 5 * time.Second, MaxOutput: outputTail})
	r := ran{command: c, duration: res.Duration, exit: res.Status.String(),
		stdout: clean(res.Stdout, secrets), stderr: clean(res.Stderr, secrets)}
	var v runtime.Result
	switch {
	case errors.Is(err, proc.ErrTimeout):
		r.exit = "timed out after " + c.timeout.String()
		v = runtime.Blocked(HookVerifyTests, runtime.Errorf("", "%s timed out after %s and was stopped: %s", c.label, c.timeout, c.shown))
	case errors.Is(err, proc.ErrNotFound):
		r.exit = "not found"
		v = runtime.Final(HookVerifyTests, runtime.Errorf("", "%s: program not found: %s", c.label, c.argv[0]))
	case ctx.Err() != nil:
		return r, nil, fmt.Errorf("%s was interrupted: %w", c.label, ctx.Err())
	case err != nil:
		return r, nil, fmt.Errorf("run %s (%s): %w", c.label, c.shown, err)
	case res.Status.Success():
		return r, nil, nil
	default:
		msgs := []runtime.Message{runtime.Errorf("", "%s failed: %s ended with %s", c.label, c.shown, res.Status)}
		for _, l := range failingLines(r.stdout+"\n"+r.stderr, reportLines) {
			msgs = append(msgs, runtime.Message{Text: l, Severity: runtime.SevInfo})
		}
		v = runtime.Blocked(HookVerifyTests, msgs...)
	}
	return r, &v, nil
}

func passedText(run runtime.TestRun) string {
	keys := make([]string, len(run.Commands))
	for i, c := range run.Commands {
		keys[i] = c.Key
	}
	return fmt.Sprintf("%s passed at %s; their output is in %s", strings.Join(keys, ", "), commitText(run), run.Evidence)
}

func shownOf(cmds []command) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = c.shown
	}
	return out
}

// clean makes captured output safe to show and record: valid UTF-8, every
// secret value the loop holds redacted.
func clean(b []byte, secrets []string) string {
	return proc.RedactText(strings.ToValidUTF8(string(b), "\uFFFD"), secrets)
}

// secretNames are the variables the loop's config names as secrets.
func secretNames(cfg *config.Config) []string { return runtime.SensitiveEnv(cfg) }

// testEnv is a test command's environment: the parent's variables minus
// every one that holds a secret (envvar.LooksSecret, CREDENTIALS_DIRECTORY
// included) and every one the operator config names as holding a token,
// an e-mail login or a webhook. The command's output comes back in the
// node's messages and its evidence, so it must never see a secret.
func testEnv(environ []string, cfg *config.Config) ([]string, error) {
	env, err := proc.BuildEnv(proc.EnvSpec{NoBasics: true, Inherit: environ, Sensitive: secretNames(cfg)},
		func(string) (string, bool) { return "", false })
	if err != nil {
		return nil, fmt.Errorf("the test command's environment: %w", err)
	}
	return env.List(), nil
}
