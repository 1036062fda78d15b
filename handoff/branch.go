package handoff

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/runtime/plaintext"
)

// maxBranchLen bounds a spec branch name.
const maxBranchLen = 200

// ValidateBranch checks a spec branch name before any checkout: it must
// start with "the-loop/", must not start with "-", and must satisfy git's
// ref-format rules (git check-ref-format) for refs/heads/<name>.
func ValidateBranch(name string) error {
	bad := func(format string, args ...any) error {
		return rejectf(CodeBadBranch, 0, "branch %q %s; use a name like the-loop/issue-42-short-title", name, fmt.Sprintf(format, args...))
	}
	if name == "" {
		return bad("is empty")
	}
	if len(name) > maxBranchLen {
		return bad("is longer than %d bytes", maxBranchLen)
	}
	if !strings.HasPrefix(name, BranchPrefix) || len(name) == len(BranchPrefix) {
		return bad("does not start with %q followed by a name", BranchPrefix)
	}
	if err := checkRefFormat(name); err != "" {
		return bad("%s", err)
	}
	return nil
}

// checkRefFormat applies git check-ref-format's rules to a branch name and
// returns the first violated rule, or "".
func checkRefFormat(name string) string {
	if strings.HasPrefix(name, "-") {
		return "starts with '-'"
	}
	if name == "@" {
		return "is the single character '@'"
	}
	if strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") || strings.Contains(name, "//") {
		return "has a leading, trailing or doubled '/'"
	}
	if strings.HasSuffix(name, ".") {
		return "ends with '.'"
	}
	if strings.Contains(name, "..") {
		return "contains '..'"
	}
	if strings.Contains(name, "@{") {
		return "contains '@{'"
	}
	if r, bad := plaintext.Unsafe(name); bad {
		return fmt.Sprintf("contains %U, a control, invisible, bidirectional or unprintable character", r)
	}
	for _, r := range name {
		switch {
		case r < 0x20 || r == 0x7f:
			return "contains a control character"
		case strings.ContainsRune(" ~^:?*[\\", r):
			return fmt.Sprintf("contains %q", r)
		}
	}
	for _, comp := range strings.Split(name, "/") {
		if strings.HasPrefix(comp, ".") {
			return fmt.Sprintf("has a component %q starting with '.'", comp)
		}
		if strings.HasSuffix(comp, ".lock") {
			return fmt.Sprintf("has a component %q ending with '.lock'", comp)
		}
	}
	return ""
}
