package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// GitDirs are what a session working in the tree needs of git: writable,
// the tree's own repository's objects, refs and logs and the tree's
// administrative directory (its index and HEAD); read-only, that
// repository as a whole (its config, which the loop wrote) and the source's
// objects it borrows. Nothing of the source but its objects, and nothing
// of another item, is among them: a session cannot write the source's refs
// or config, nor move another item's branch. They come from what the loop
// made, never from the tree's .git file, which the tree's next session
// finds restored first. Nil for a tree the loop has not pinned.
func (t *Tree) GitDirs() (writable, readOnly []string) {
	if !t.pin.Pinned() {
		return nil, nil
	}
	_ = t.restore()
	repo := t.pin.GitDir
	writable = []string{filepath.Join(repo, "objects"), filepath.Join(repo, "refs"), filepath.Join(repo, "logs"), t.pin.Admin}
	for _, d := range writable {
		_ = os.MkdirAll(d, 0o755)
	}
	return writable, []string{repo, filepath.Join(t.m.common, "objects")}
}

// Unpushed counts the commits of the tree's branch the remote lacks, as
// the source last fetched or pushed the remote's branch (no network): a
// session's commits, which the loop publishes (Push), as a session never
// pushes.
func (t *Tree) Unpushed(ctx context.Context) (int, error) { return t.unpushed(ctx) }

// unpushed counts the commits of the tree's branch that the remote's
// branch, as the source last fetched or pushed it, lacks — every remote
// branch the source knows when the remote has none of that name yet.
func (t *Tree) unpushed(ctx context.Context) (int, error) {
	m := t.m
	local, err := t.head(ctx)
	if err != nil || local == "" {
		return 0, err
	}
	not := []string{}
	if sha, err := m.revParse(ctx, m.source, m.remoteRef(t.Branch)); err != nil {
		return 0, err
	} else if sha != "" {
		not = append(not, sha)
	} else {
		r, err := m.git(ctx, m.source, nil, "for-each-ref", "--format=%(objectname)", "refs/remotes/"+m.remote+"/")
		if err != nil {
			return 0, err
		}
		not = strings.Fields(r.out)
	}
	args := []string{"rev-list", "--count", local}
	for _, sha := range not {
		args = append(args, "^"+sha)
	}
	r, err := t.git(ctx, nil, args...)
	if err != nil {
		return 0, fmt.Errorf("count the commits %s has not pushed: %w", t.Branch, err)
	}
	n := 0
	_, _ = fmt.Sscan(r.out, &n)
	return n, nil
}
