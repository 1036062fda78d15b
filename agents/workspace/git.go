package workspace

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/the-loop/the-loop/internal/gitsafe"
	"github.com/the-loop/the-loop/internal/proc"
)

// gitTimeout bounds one git command; fetch and push talk to a remote.
const gitTimeout = 5 * time.Minute

// gitResult is one git command's outcome.
type gitResult struct {
	out  string // stdout, trimmed
	err  string // stderr, trimmed
	code int
}

// git runs one git command in dir, with gitsafe.Settings. A non-zero exit
// is returned as an error carrying git's message; the output is redacted.
// In a tree, use Tree.git, which pins the tree's repository.
func (m *Manager) git(ctx context.Context, dir string, extraEnv []string, args ...string) (gitResult, error) {
	argv := append([]string{m.gitProgram}, gitsafe.Repo{WorkTree: dir}.Args()...)
	if m.identity.Name != "" {
		argv = append(argv, "-c", "user.name="+m.identity.Name, "-c", "user.email="+m.identity.Email)
	}
	argv = append(argv, args...)
	res, err := proc.Run(ctx, proc.Command{Argv: argv, Env: append(append([]string(nil), m.env...), extraEnv...), Timeout: gitTimeout, MaxOutput: 256 << 10})
	r := gitResult{
		out:  strings.TrimSpace(string(res.Stdout)),
		err:  m.scrub(strings.TrimSpace(string(res.Stderr))),
		code: res.Status.Code,
	}
	if err != nil {
		return r, fmt.Errorf("git %s: %w", args[0], err)
	}
	if !res.Status.Success() {
		return r, &gitError{args: args, res: r, status: res.Status.String()}
	}
	return r, nil
}

// gitError is a git command that exited non-zero.
type gitError struct {
	args   []string
	res    gitResult
	status string
}

func (e *gitError) Error() string {
	msg := e.res.err
	if msg == "" {
		msg = e.res.out
	}
	return fmt.Sprintf("git %s: %s: %s", strings.Join(e.args, " "), e.status, lastLines(msg, 6))
}

var urlCreds = regexp.MustCompile(`(://)[^/@\s]+@`)

// scrub removes credentials from git's messages: user:password in URLs
// and any value the operator holds as a secret.
func (m *Manager) scrub(s string) string {
	s = urlCreds.ReplaceAllString(s, "${1}"+proc.Redacted+"@")
	return proc.RedactText(s, m.secrets)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}

// exitCode returns the exit code of a gitError, or -1.
func exitCode(err error) int {
	if ge, ok := err.(*gitError); ok {
		return ge.res.code
	}
	return -1
}

// git runs one git command in the tree, pinned to its repository: what a
// session wrote in the tree's .git file or its administrative directory
// never steers it.
func (t *Tree) git(ctx context.Context, extraEnv []string, args ...string) (gitResult, error) {
	return t.m.git(ctx, t.Dir, append(t.pin.Env(), extraEnv...), args...)
}

// revParse resolves a ref to a commit in the source or, with a
// repository's pin (inRepo), in that repository; "" when it does not
// exist.
func (m *Manager) revParse(ctx context.Context, dir, ref string, env ...string) (string, error) {
	r, err := m.git(ctx, dir, env, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		if exitCode(err) == 1 {
			return "", nil
		}
		return "", err
	}
	return r.out, nil
}

// isAncestor reports whether a is an ancestor of (or equal to) b.
func (t *Tree) isAncestor(ctx context.Context, a, b string) (bool, error) {
	_, err := t.git(ctx, nil, "merge-base", "--is-ancestor", a, b)
	if err == nil {
		return true, nil
	}
	if exitCode(err) == 1 {
		return false, nil
	}
	return false, err
}

// statusLines lists uncommitted changes (untracked files included).
func (m *Manager) statusLines(ctx context.Context, t *Tree) ([]string, error) {
	r, err := t.git(ctx, nil, "status", "--porcelain=v1", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(r.out, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out, nil
}

// conflictedFiles lists paths with unmerged entries.
func (t *Tree) conflictedFiles(ctx context.Context) []string {
	r, err := t.git(ctx, nil, "diff", "--name-only", "--diff-filter=U")
	if err != nil || r.out == "" {
		return nil
	}
	return strings.Split(r.out, "\n")
}

// overwrittenFiles extracts the files git names when it refuses to
// overwrite local changes.
func overwrittenFiles(msg string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(msg, "\n") {
		switch {
		case strings.Contains(l, "would be overwritten by"):
			in = true
		case in && strings.HasPrefix(l, "\t"):
			out = append(out, strings.TrimSpace(l))
		case in:
			in = false
		}
	}
	return out
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if bytes.Contains([]byte(s), []byte(x)) {
			return true
		}
	}
	return false
}
