package work

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/the-loop/the-loop/config"

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

	parent := hc.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, time.Duration(secs)*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = hc.Repo
	cmd.Env = scrubbedEnv(os.Environ(), hc.Config)
	cmd.WaitDelay = 5 * time.Second
	ownProcessGroup(cmd)
	stdout, stderr := &tailBuffer{max: outputTail}, &tailBuffer{max: outputTail}
	cmd.Stdout, cmd.Stderr = stdout, stderr

	err = cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return runtime.Blocked(HookVerifyTests, runtime.Errorf("", "tests timed out: %s", shown)), nil
	case err == nil:
		return runtime.OK(HookVerifyTests, map[string]any{"command": shown}), nil
	case errors.As(err, &exitErr):
		msgs := []runtime.Message{runtime.Errorf("", "tests failed (%s), exit %d", shown, exitErr.ExitCode())}
		out := stdout.String()
		if strings.TrimSpace(out) == "" {
			out = stderr.String()
		}
		for _, l := range lastLines(out, reportLines) {
			msgs = append(msgs, runtime.Message{Text: l, Severity: runtime.SevInfo})
		}
		return runtime.Blocked(HookVerifyTests, msgs...), nil
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, exec.ErrDot) || errors.Is(err, fs.ErrNotExist):
		return runtime.Final(HookVerifyTests, runtime.Errorf("", "test command not found: %s", argv[0])), nil
	case parent.Err() != nil:
		return runtime.Result{}, fmt.Errorf("tests were interrupted: %w", parent.Err())
	}
	return runtime.Result{}, fmt.Errorf("run %s: %w", shown, err)
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

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

func (t *tailBuffer) String() string { return string(t.buf) }

// secretVars are always withheld from a test command, beside the variables
// the operator config names as holding secrets: the command's output comes
// back in the node's messages, so it must never see a token.
var secretVars = []string{"THE_LOOP_SIGNING_KEY", "THE_LOOP_MCP_TOKEN", "GITHUB_TOKEN", "GH_TOKEN", "JIRA_API_TOKEN", "SLACK_WEBHOOK_URL"}

func scrubbedEnv(environ []string, cfg *config.Config) []string {
	drop := map[string]bool{}
	for _, v := range secretVars {
		drop[v] = true
	}
	if cfg != nil {
		for _, v := range []string{cfg.Integrations.GitHub.TokenEnv, cfg.Integrations.Jira.TokenEnv, cfg.Integrations.Jira.EmailEnv,
			cfg.Integrations.Slack.WebhookURLEnv, cfg.MCP.HTTP.TokenEnv} {
			if v != "" {
				drop[v] = true
			}
		}
	}
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !drop[name] {
			out = append(out, kv)
		}
	}
	return out
}
