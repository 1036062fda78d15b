package continuity

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/the-loop/the-loop/internal/atomicfile"
)

// gitRun runs git with argv (never a shell) in dir and returns trimmed
// stdout and the exit code. err is set only when git could not run at all.
func gitRun(dir string, args ...string) (string, int, error) {
	return gitRunInput(dir, "", args...)
}

// gitRunInput is gitRun with stdin.
func gitRunInput(dir, stdin string, args ...string) (string, int, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return strings.TrimSpace(out.String()), exit.ExitCode(), fmt.Errorf("git %s: exit %d: %s", args[0], exit.ExitCode(), strings.TrimSpace(errOut.String()))
	}
	if err != nil {
		return "", -1, fmt.Errorf("run git %s: %w", args[0], err)
	}
	return strings.TrimSpace(out.String()), 0, nil
}

// gitOutput runs git and fails on any non-zero exit.
func gitOutput(dir string, args ...string) (string, error) {
	out, _, err := gitRun(dir, args...)
	return out, err
}

// IgnoreProof records how .handoff/ was shown to be git-ignored.
type IgnoreProof struct {
	// Path is the ignored directory, relative to the repository root.
	Path string `json:"path"`
	// Rule is git's "source:line:pattern" for the rule that ignores it.
	Rule string `json:"rule"`
	// Added is true when this call wrote the rule into the local exclude.
	Added bool `json:"added"`
}

// IgnoreError is the refusal to write when .handoff/ cannot be proven
// ignored. Check names the failed check.
type IgnoreError struct {
	Check  string
	Detail string
}

// Error names the failed check.
func (e *IgnoreError) Error() string {
	return fmt.Sprintf("continuity: refusing to write: ignore check %q failed: %s", e.Check, e.Detail)
}

// probePaths are checked with git check-ignore; all must be ignored.
var probePaths = []string{
	HandoffDir + "/",
	HandoffDir + "/continuity/" + DeathPointFile,
	HandoffDir + "/handoffs/brief.md",
}

// EnsureIgnored proves .handoff/ is git-ignored and holds no tracked files.
// When it is not ignored it appends "/.handoff/" to the repository-local
// exclude file and proves it again. Every writing method calls it first.
func (s *Set) EnsureIgnored() (IgnoreProof, error) {
	proof := IgnoreProof{Path: HandoffDir + "/"}
	tracked, err := gitOutput(s.Root, "ls-files", "--", HandoffDir)
	if err != nil {
		return proof, &IgnoreError{Check: "git ls-files .handoff", Detail: err.Error()}
	}
	if tracked != "" {
		first := strings.SplitN(tracked, "\n", 2)[0]
		return proof, &IgnoreError{Check: "no tracked files under .handoff/", Detail: fmt.Sprintf("%s is tracked by git; untrack it with `git rm --cached -r %s` (the files stay on disk)", first, HandoffDir)}
	}
	rules, err := s.ignoreRules()
	if err != nil {
		return proof, err
	}
	if !allIgnored(rules) {
		exclude, err := s.addExclude()
		if err != nil {
			return proof, err
		}
		proof.Added = true
		if rules, err = s.ignoreRules(); err != nil {
			return proof, err
		}
		if !allIgnored(rules) {
			return proof, &IgnoreError{
				Check:  "git check-ignore .handoff/ after adding /.handoff/ to " + s.rel(exclude),
				Detail: "a higher-precedence rule (for example !.handoff/ in a .gitignore) un-ignores it; remove that rule",
			}
		}
	}
	proof.Rule = rules[1].String()
	return proof, nil
}

// ignoreRule is the rule git's check-ignore matched for one path: its
// source file, line and pattern (all empty when none matched).
type ignoreRule struct{ source, line, pattern string }

// ignores reports a rule that ignores its path: one matched and it is not
// a negation ("!…" un-ignores).
func (r ignoreRule) ignores() bool { return r.pattern != "" && !strings.HasPrefix(r.pattern, "!") }

// String is git's "source:line:pattern".
func (r ignoreRule) String() string { return r.source + ":" + r.line + ":" + r.pattern }

func allIgnored(rules []ignoreRule) bool {
	for _, r := range rules {
		if !r.ignores() {
			return false
		}
	}
	return true
}

// ignoreRules asks git, in one run, which rule matches each of probePaths
// (check-ignore --verbose --non-matching, NUL-separated on stdin and
// stdout).
func (s *Set) ignoreRules() ([]ignoreRule, error) {
	out, code, err := gitRunInput(s.Root, strings.Join(probePaths, "\x00")+"\x00", "check-ignore", "-v", "-n", "-z", "--stdin")
	if code != 0 && code != 1 { // 1: none is ignored
		return nil, &IgnoreError{Check: "git check-ignore " + strings.Join(probePaths, " "), Detail: err.Error()}
	}
	fields := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	if len(fields) != 4*len(probePaths) {
		return nil, &IgnoreError{Check: "git check-ignore " + strings.Join(probePaths, " "), Detail: fmt.Sprintf("unexpected output %q", out)}
	}
	rules := make([]ignoreRule, len(probePaths))
	for i, p := range probePaths {
		f := fields[4*i : 4*i+4]
		if f[3] != p {
			return nil, &IgnoreError{Check: "git check-ignore " + p, Detail: fmt.Sprintf("unexpected output %q", out)}
		}
		rules[i] = ignoreRule{source: f[0], line: f[1], pattern: f[2]}
	}
	return rules, nil
}

// addExclude appends the .handoff/ rule to the local exclude file (the
// worktree-aware path git reports for info/exclude).
func (s *Set) addExclude() (string, error) {
	rel, err := gitOutput(s.Root, "rev-parse", "--git-path", "info/exclude")
	if err != nil {
		return "", &IgnoreError{Check: "git rev-parse --git-path info/exclude", Detail: err.Error()}
	}
	path := rel
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.Root, rel)
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return path, &IgnoreError{Check: "read " + s.rel(path), Detail: err.Error()}
	}
	data := append([]byte{}, old...)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	data = append(data, "# the-loop continuity records (never staged)\n/"+HandoffDir+"/\n"...)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return path, &IgnoreError{Check: "create " + s.rel(filepath.Dir(path)), Detail: err.Error()}
	}
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return path, &IgnoreError{Check: "write " + s.rel(path), Detail: err.Error()}
	}
	return path, nil
}
