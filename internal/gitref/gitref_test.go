package gitref

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckBranchNamesTheRuleBroken(t *testing.T) {
	tests := map[string]string{
		"":             "is empty",
		"HEAD":         "is HEAD",
		"@":            "single character '@'",
		"-x":           "starts with '-'",
		"/x":           "leading, trailing or doubled '/'",
		"x/":           "leading, trailing or doubled '/'",
		"a//b":         "leading, trailing or doubled '/'",
		"x.":           "ends with '.'",
		"a..b":         "contains '..'",
		"a@{b":         "contains '@{'",
		"a\x01b":       "control character",
		"del\x7f":      "control character",
		"a b":          "contains ' '",
		`a\b`:          `contains '\\'`,
		"a/.b":         `component ".b" starting with '.'`,
		"a/b.lock/c":   `component "b.lock" ending with '.lock'`,
		"issue\u202e1": "invisible, bidirectional or unprintable",
		"x\u200bx":     "invisible or bidirectional",
	}
	for name, want := range tests {
		err := CheckBranch(name)
		if assert.Error(t, err, "%q", name) {
			assert.Contains(t, err.Error(), want, "%q", name)
		}
	}
	for _, ok := range []string{"main", "the-loop/issue-12-fix", "feature/a.b", "x_y", "@x", "a@b", "ünïcode", "v1.2", "x.lock.y"} {
		assert.NoError(t, CheckBranch(ok), ok)
	}
}

// TestCheckBranchAgreesWithGit holds the rule to `git check-ref-format
// --branch` on every name git itself decides.
func TestCheckBranchAgreesWithGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not on PATH")
	}
	names := []string{
		"the-loop/issue-12", "feature/x", "a/b/c", "x.lock.y", "@x", "a@b", "ünïcode", "v1.2",
		"", "a..b", "a/.b", ".hidden", "a.lock", "a/b.lock/c", "-x", "x/", "/x", "x.", "a//b", "a b", "a~b", "a^b",
		"a:b", "a?b", "a*b", "a[b", "a\\b", "a@{b", "a\x01b", "a\x7fb", "tab\tname",
	}
	for _, n := range names {
		cmd := exec.Command(git, "check-ref-format", "--branch", n)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1"}
		cmd.Dir = t.TempDir()
		gitOK := cmd.Run() == nil
		err := CheckBranch(n)
		assert.Equal(t, gitOK, err == nil, "branch %q: git says ok=%v, CheckBranch says %v", n, gitOK, err)
	}
	assert.True(t, strings.HasPrefix(CheckBranch("HEAD").Error(), "is HEAD"), "--branch expands HEAD instead of checking it; as a branch name git refuses it")
}
