package service

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckedOutBranchReadsTheCheckoutsHead(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, root string)
		want  string
	}{
		{name: "no checkout", setup: func(*testing.T, string) {}, want: ""},
		{name: "a checkout on a branch", setup: func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/the-loop/issue-4-export\n")
		}, want: "the-loop/issue-4-export"},
		{name: "a worktree on a branch", setup: func(t *testing.T, root string) {
			gitdir := filepath.Join(t.TempDir(), "worktrees", "issue-4")
			writeFile(t, filepath.Join(gitdir, "HEAD"), "ref: refs/heads/feature/csv\n")
			writeFile(t, filepath.Join(root, ".git"), "gitdir: "+gitdir+"\n")
		}, want: "feature/csv"},
		{name: "a detached head", setup: func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, ".git", "HEAD"), "0123456789abcdef0123456789abcdef01234567\n")
		}, want: ""},
		{name: "a head git would refuse as a branch", setup: func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/bad..name\n")
		}, want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			tc.setup(t, root)
			assert.Equal(t, tc.want, checkedOutBranch(root))
		})
	}
}
