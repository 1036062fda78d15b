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
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
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
	ok, err := s.allIgnored()
	if err != nil {
		return proof, err
	}
	if !ok {
		exclude, err := s.addExclude()
		if err != nil {
			return proof, err
		}
		proof.Added = true
		if ok, err = s.allIgnored(); err != nil {
			return proof, err
		}
		if !ok {
			return proof, &IgnoreError{
				Check:  "git check-ignore .handoff/ after adding /.handoff/ to " + s.rel(exclude),
				Detail: "a higher-precedence rule (for example !.handoff/ in a .gitignore) un-ignores it; remove that rule",
			}
		}
	}
	rule, _, _ := gitRun(s.Root, "check-ignore", "-v", "--", probePaths[1])
	if tab := strings.IndexByte(rule, '\t'); tab >= 0 {
		rule = rule[:tab]
	}
	proof.Rule = rule
	return proof, nil
}

func (s *Set) allIgnored() (bool, error) {
	for _, p := range probePaths {
		_, code, err := gitRun(s.Root, "check-ignore", "-q", "--", p)
		switch code {
		case 0:
		case 1:
			return false, nil
		default:
			return false, &IgnoreError{Check: "git check-ignore " + p, Detail: err.Error()}
		}
	}
	return true, nil
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
