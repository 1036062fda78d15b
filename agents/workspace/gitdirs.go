package workspace

import (
	"os"
	"path/filepath"
	"strings"
)

// GitDirs are what a session working in the tree needs of the source's
// repository: writable, the shared objects, refs and logs and the tree's
// own administrative directory (its index, HEAD and logs); read-only, the
// repository's git directory as a whole (its config stays out of the
// session's reach). They are found from the source checkout the loop was
// given, never from the tree's .git file, which a session can rewrite;
// an administrative directory that does not point back at this tree is
// left out. Nil when the source's git directory is not a plain one.
func (t *Tree) GitDirs() (writable, readOnly []string) {
	common := filepath.Join(t.m.source, ".git")
	if fi, err := os.Lstat(common); err != nil || !fi.IsDir() {
		return nil, nil
	}
	logs := filepath.Join(common, "logs")
	_ = os.MkdirAll(logs, 0o755) // a session's commit appends its reflog there
	writable = []string{filepath.Join(common, "objects"), filepath.Join(common, "refs"), logs}
	admin := filepath.Join(common, "worktrees", filepath.Base(t.Dir))
	if b, err := os.ReadFile(filepath.Join(admin, "gitdir")); err == nil && sameFile(strings.TrimSpace(string(b)), filepath.Join(t.Dir, ".git")) {
		writable = append(writable, admin)
	}
	return writable, []string{common}
}

func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
