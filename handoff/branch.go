package handoff

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/internal/gitref"
)

// maxBranchLen bounds a spec branch name.
const maxBranchLen = 200

// ValidateBranch checks a spec branch name before any checkout: it must
// start with "the-loop/" and satisfy git's rule for a branch name
// (gitref.CheckBranch).
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
	if err := gitref.CheckBranch(name); err != nil {
		return bad("%v", err)
	}
	return nil
}
