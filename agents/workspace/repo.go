package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/the-loop/the-loop/internal/atomicfile"
	"github.com/the-loop/the-loop/internal/gitsafe"
)

// Every tree has a repository of its own, <root>/.repos/<id>
// (gitsafe.RepoOf): a bare repository that borrows the source's objects
// (objects/info/alternates) and holds the item's branch, and of which the
// tree is the one worktree. A session writes that repository's objects,
// refs and logs and the tree's administrative directory — nothing of the
// source, nothing of another item — and never its config, hooks or info,
// which are the poller's. The loop's own git in the tree is pinned to that
// repository (gitsafe.Repo.Env), so what a session writes in the tree's
// .git file, its commondir or a config.worktree is never read by it. The
// remote is reached only from the source: the item's branch is fetched
// from the tree's repository into the source (every object checked on the
// way) and pushed from there with the poller's own credentials.

// repoConfig is the configuration of a tree's repository: bare, no
// automatic gc, reflogs kept, and nothing else — no remote (a session
// pushes nothing; the loop pushes from the source), no worktree config, no
// include.
const repoConfig = "[core]\n\trepositoryformatversion = %d\n\tfilemode = true\n\tbare = true\n\tlogallrefupdates = true\n%s" +
	"[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n"

// makeRepo creates (or completes) the repository of the tree at dir.
func (m *Manager) makeRepo(ctx context.Context, dir string) (string, error) {
	repo := gitsafe.RepoOf(dir)
	if err := os.MkdirAll(filepath.Dir(repo), 0o711); err != nil {
		return "", fmt.Errorf("the repositories of the trees: %w", err)
	}
	if _, err := os.Stat(filepath.Join(repo, gitsafe.MarkerFile)); err == nil {
		return repo, nil
	}
	if _, err := m.git(ctx, filepath.Dir(repo), nil, "init", "--quiet", "--bare", "--object-format="+m.format, repo); err != nil {
		return "", fmt.Errorf("make the repository of %s: %w", dir, err)
	}
	m.notes.forget(repo)
	version, ext := 0, ""
	if m.format != "sha1" {
		version, ext = 1, "[extensions]\n\tobjectformat = "+m.format+"\n"
	}
	files := map[string]string{
		"config":                  fmt.Sprintf(repoConfig, version, ext),
		"objects/info/alternates": filepath.Join(m.common, "objects") + "\n",
	}
	for name, body := range files {
		if err := atomicfile.Write(filepath.Join(repo, filepath.FromSlash(name)), []byte(body), 0o644); err != nil {
			return "", fmt.Errorf("make the repository of %s: %w", dir, err)
		}
	}
	// The sample hooks git copies are never run (hooks are off), but a
	// repository the loop made holds none.
	_ = os.RemoveAll(filepath.Join(repo, "hooks"))
	for _, d := range []string{"logs", "worktrees"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			return "", fmt.Errorf("make the repository of %s: %w", dir, err)
		}
	}
	if err := gitsafe.WriteMarker(repo, gitsafe.Marker{Tree: dir, Source: m.source, Remote: m.remote}); err != nil {
		return "", err
	}
	return repo, nil
}

// inRepo is the environment that pins git to a tree's repository alone
// (no working tree): worktree, ref and branch commands.
func inRepo(repo string) []string { return []string{"GIT_DIR=" + repo} }

// restore rewrites what points the tree at its repository — the tree's
// .git file, and its administrative directory's commondir and gitdir — and
// the repository's alternates (in its objects, which a session writes) to
// what the loop made, when a session changed them: the loop's own git
// never reads the first three (it is pinned), but the next session's git
// and git's worktree commands do; the alternates the loop's git reads too.
// Each file is replaced, never written through, so a link planted there is
// itself replaced.
func (t *Tree) restore() error {
	admin := t.pin.Admin
	want := map[string]string{
		filepath.Join(t.Dir, ".git"):                                 "gitdir: " + admin + "\n",
		filepath.Join(admin, "commondir"):                            "../..\n",
		filepath.Join(admin, "gitdir"):                               filepath.Join(t.Dir, ".git") + "\n",
		filepath.Join(t.pin.GitDir, "objects", "info", "alternates"): filepath.Join(t.m.common, "objects") + "\n",
	}
	for path, body := range want {
		fi, err := os.Lstat(path)
		if err == nil && fi.Mode().IsRegular() {
			if b, err := os.ReadFile(path); err == nil && bytes.Equal(b, []byte(body)) {
				continue
			}
		}
		if err == nil && fi.IsDir() {
			if err := os.RemoveAll(path); err != nil {
				return fmt.Errorf("restore %s: %w", path, err)
			}
		}
		if err := atomicfile.Write(path, []byte(body), 0o644); err != nil {
			return fmt.Errorf("restore %s: %w", path, err)
		}
	}
	return nil
}

// adopt moves a tree made before trees had repositories of their own — a
// worktree of the source, whose administrative directory is the source's
// and whose branch lives in the source's refs — to a repository of its
// own: the branch is copied into it, the administrative directory made
// there with the old index, the tree's .git pointed at it, and the
// source's registration removed. Nothing in the tree changes.
func (m *Manager) adopt(ctx context.Context, dir string) error {
	admin, err := m.legacyAdmin(dir)
	if err != nil {
		return err
	}
	head, err := os.ReadFile(filepath.Join(admin, "HEAD"))
	if err != nil {
		return fmt.Errorf("%s: read the branch it has checked out: %w", dir, err)
	}
	branch, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: refs/heads/")
	if !ok || ValidateBranch(branch) != nil {
		return fmt.Errorf("%s exists but has no branch checked out; check one out or move it aside", dir)
	}
	sha, err := m.revParse(ctx, m.source, "refs/heads/"+branch)
	if err != nil || sha == "" {
		return fmt.Errorf("%s has %s checked out, which the source %s does not hold: %v", dir, branch, m.source, err)
	}
	repo, err := m.makeRepo(ctx, dir)
	if err != nil {
		return err
	}
	if _, err := m.git(ctx, repo, inRepo(repo), "symbolic-ref", "HEAD", "refs/heads/"+branch); err != nil {
		return fmt.Errorf("move the tree %s to a repository of its own: %w", dir, err)
	}
	if _, err := m.git(ctx, repo, inRepo(repo), "update-ref", "refs/heads/"+branch, sha); err != nil {
		return fmt.Errorf("move the tree %s to a repository of its own: %w", dir, err)
	}
	if remote, _ := m.revParse(ctx, m.source, m.remoteRef(branch)); remote != "" {
		if _, err := m.git(ctx, repo, inRepo(repo), "update-ref", m.remoteRef(branch), remote); err == nil {
			m.notes.set(repo, branch, remote)
		}
	}
	newAdmin := gitsafe.AdminOf(dir)
	if err := os.MkdirAll(newAdmin, 0o755); err != nil {
		return fmt.Errorf("move the tree %s to a repository of its own: %w", dir, err)
	}
	if err := atomicfile.Write(filepath.Join(newAdmin, "HEAD"), []byte("ref: refs/heads/"+branch+"\n"), 0o644); err != nil {
		return err
	}
	if index, err := os.ReadFile(filepath.Join(admin, "index")); err == nil {
		if err := atomicfile.Write(filepath.Join(newAdmin, "index"), index, 0o644); err != nil {
			return err
		}
	}
	t := &Tree{Dir: dir, m: m, pin: gitsafe.Open(dir)}
	if !t.pin.Pinned() {
		return fmt.Errorf("move the tree %s to a repository of its own: its repository %s is not marked as the loop's", dir, repo)
	}
	if err := t.restore(); err != nil {
		return err
	}
	if err := os.RemoveAll(admin); err != nil {
		return fmt.Errorf("the source forgets the tree %s: %w", dir, err)
	}
	return nil
}

// legacyAdmin finds the source's administrative directory of the tree at
// dir: the one whose gitdir names the tree, preferring the one named after
// it (a session could have pointed its own at another tree).
func (m *Manager) legacyAdmin(dir string) (string, error) {
	entries, err := os.ReadDir(filepath.Join(m.common, "worktrees"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	var found []string
	for _, e := range entries {
		admin := filepath.Join(m.common, "worktrees", e.Name())
		b, err := os.ReadFile(filepath.Join(admin, "gitdir"))
		if err != nil || !sameFile(strings.TrimSpace(string(b)), filepath.Join(dir, ".git")) {
			continue
		}
		if e.Name() == filepath.Base(dir) {
			return admin, nil
		}
		found = append(found, admin)
	}
	if len(found) == 1 {
		return found[0], nil
	}
	return "", fmt.Errorf("%s exists and is not a work tree the loop made; move it aside", dir)
}

func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
