package service

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/the-loop/the-loop/agents/workspace"
)

// checkedOutBranch is the branch the git checkout at root has checked out
// ("" when root is no checkout, or HEAD is detached). It reads git's files
// only: a checkout's .git/HEAD, or a worktree's, through the gitdir its
// .git file names.
func checkedOutBranch(root string) string {
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Stat(dotgit)
	if err != nil {
		return ""
	}
	gitdir := dotgit
	if !fi.IsDir() {
		b, err := os.ReadFile(dotgit)
		if err != nil {
			return ""
		}
		dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return ""
		}
		if gitdir = strings.TrimSpace(dir); !filepath.IsAbs(gitdir) {
			gitdir = filepath.Join(root, gitdir)
		}
	}
	head, err := os.ReadFile(filepath.Join(gitdir, "HEAD"))
	if err != nil {
		return ""
	}
	branch, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: refs/heads/")
	if !ok || workspace.ValidateBranch(branch) != nil {
		return ""
	}
	return branch
}
