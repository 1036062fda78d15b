package work

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/proc"
	"github.com/the-loop/the-loop/runtime"
)

const (
	// HookVerifyTests runs the node's test command.
	HookVerifyTests = "verify-tests"
	// defaultTestTimeout bounds a test command when timeoutSeconds is unset.
	defaultTestTimeout = 900 * time.Second
	// outputTail is how much of the command's output is kept (the end).
	outputTail = 64 << 10
	// reportLines is how many trailing output lines a failure reports.
	reportLines = 20
)

// VerifyTests runs the node's test command (an argv: a list, or a string
// split by shell-word rules — never through a shell) in the repository root
// and passes only when it exits 0. Under check it never runs anything.
func VerifyTests(hc *runtime.HookContext) (runtime.Result, error) {
	argv, shown, err := commandParam(hc.Params["command"])
	if err != nil {
		return runtime.Result{}, err
	}
	if len(argv) == 0 {
		return runtime.Skipped(HookVerifyTests, "no test command declared for this node"), nil
	}
	secs, err := hc.IntParam("timeoutSeconds", int(defaultTestTimeout/time.Second))
	if err != nil {
		return runtime.Result{}, err
	}
	if secs <= 0 {
		return runtime.Result{}, fmt.Errorf("timeoutSeconds must be a positive number of seconds, got %d", secs)
	}
	if hc.ReadOnly {
		return runtime.Skipped(HookVerifyTests, "tests are not run under check"), nil
	}

	env, err := testEnv(os.Environ(), hc.Config)
	if err != nil {
		return runtime.Result{}, err
	}
	ctx := hc.Context
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := proc.Run(ctx, proc.Command{Argv: argv, Dir: hc.Repo, Env: env,
		Timeout: time.Duration(secs) * time.Second, MaxOutput: outputTail})
	switch {
	case errors.Is(err, proc.ErrTimeout):
		return runtime.Blocked(HookVerifyTests, runtime.Errorf("", "tests timed out: %s", shown)), nil
	case errors.Is(err, proc.ErrNotFound):
		return runtime.Final(HookVerifyTests, runtime.Errorf("", "test command not found: %s", argv[0])), nil
	case ctx.Err() != nil:
		return runtime.Result{}, fmt.Errorf("tests were interrupted: %w", ctx.Err())
	case err != nil:
		return runtime.Result{}, fmt.Errorf("run %s: %w", shown, err)
	case res.Status.Success():
		return runtime.OK(HookVerifyTests, map[string]any{"command": shown}), nil
	}
	msgs := []runtime.Message{runtime.Errorf("", "tests failed (%s), %s", shown, res.Status)}
	out := string(res.Stdout)
	if strings.TrimSpace(out) == "" {
		out = string(res.Stderr)
	}
	for _, l := range lastLines(out, reportLines) {
		msgs = append(msgs, runtime.Message{Text: l, Severity: runtime.SevInfo})
	}
	return runtime.Blocked(HookVerifyTests, msgs...), nil
}

// commandParam turns the command parameter into an argv and the text shown
// in messages.
func commandParam(v any) ([]string, string, error) {
	switch c := v.(type) {
	case nil:
		return nil, "", nil
	case string:
		argv, err := splitShellWords(c)
		if err != nil {
			return nil, "", fmt.Errorf("command: %w", err)
		}
		return argv, strings.TrimSpace(c), nil
	case []string:
		return c, joinArgv(c), nil
	case []any:
		argv := make([]string, len(c))
		for i, e := range c {
			s, ok := e.(string)
			if !ok {
				return nil, "", fmt.Errorf("command: list element %d must be a string, got %T", i, e)
			}
			argv[i] = s
		}
		return argv, joinArgv(argv), nil
	}
	return nil, "", fmt.Errorf("command must be a string or a list of strings, got %T", v)
}

// splitShellWords splits s into words the way a POSIX shell would, without
// expanding anything: whitespace separates words, single quotes keep text
// literally, double quotes keep text but honour \" \\ \$ and \`, and a
// backslash outside quotes escapes the next character. Operators such as
// | ; && > are ordinary characters (nothing is ever run through a shell).
func splitShellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					cur.WriteByte(s[i])
				}
			}
		case c == '\'':
			inWord = true
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated single quote in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			inWord = true
			closed := false
			for i++; i < len(s); i++ {
				if s[i] == '"' {
					closed = true
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
					if s[i] != '\n' {
						cur.WriteByte(s[i])
					}
					continue
				}
				cur.WriteByte(s[i])
			}
			if !closed {
				return nil, fmt.Errorf("unterminated double quote in %q", s)
			}
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// joinArgv renders an argv for messages, quoting words that need it.
func joinArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`|&;<>()*?[]#~") {
			parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			parts[i] = a
		}
	}
	return strings.Join(parts, " ")
}

// lastLines returns up to n trailing non-blank lines of s.
func lastLines(s string, n int) []string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// testEnv is a test command's environment: the parent's variables minus
// every one that holds a secret (proc.LooksSecret, CREDENTIALS_DIRECTORY
// included) and every one the operator config names as holding a token,
// an e-mail login or a webhook. The command's output comes back in the
// node's messages, so it must never see a secret.
func testEnv(environ []string, cfg *config.Config) ([]string, error) {
	var sensitive []string
	if cfg != nil {
		for _, v := range []string{cfg.Integrations.GitHub.TokenEnv, cfg.Integrations.Jira.TokenEnv, cfg.Integrations.Jira.EmailEnv,
			cfg.Integrations.Slack.WebhookURLEnv, cfg.MCP.HTTP.TokenEnv} {
			if v != "" {
				sensitive = append(sensitive, v)
			}
		}
	}
	env, err := proc.BuildEnv(proc.EnvSpec{NoBasics: true, Inherit: environ, Sensitive: sensitive},
		func(string) (string, bool) { return "", false })
	if err != nil {
		return nil, fmt.Errorf("the test command's environment: %w", err)
	}
	return env.List(), nil
}
