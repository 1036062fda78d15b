package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNoBranch reports that a missing tree cannot be re-created because no
// branch of the item can be found: not the one its registration names, not
// one of the candidates, not a single the-loop/<id>-… branch.
var ErrNoBranch = errors.New("no branch of the item was found to re-create its tree from")

// Recreate re-creates item id's tree, which is gone from disk, on its
// branch: the branch its stale registration names (`git worktree list`),
// else the first candidate that exists here or on the remote, else the
// one branch named the-loop/<id> or the-loop/<id>-…. The stale
// registration is pruned first, so `git worktree add` does not refuse a
// "missing but already registered worktree". Nothing committed is lost:
// the branch holds every commit the tree made.
func (m *Manager) Recreate(ctx context.Context, id string, candidates ...string) (*Tree, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	if _, err := os.Stat(m.Path(id)); err == nil {
		return nil, fmt.Errorf("work tree %s exists; nothing to re-create", m.Path(id))
	}
	branch, err := m.branchOf(ctx, id, candidates)
	if err != nil {
		return nil, err
	}
	return m.Add(ctx, id, branch)
}

// branchOf finds the branch a missing tree had.
func (m *Manager) branchOf(ctx context.Context, id string, candidates []string) (string, error) {
	if b, err := m.registeredBranch(ctx, m.Path(id)); err != nil || b != "" {
		return b, err
	}
	if _, err := m.git(ctx, m.source, nil, "fetch", "--quiet", m.remote); err != nil {
		return "", fmt.Errorf("re-create the work tree of %s: fetch %s: %w", id, m.remote, err)
	}
	for _, c := range candidates {
		if c == "" || ValidateBranch(c) != nil {
			continue
		}
		for _, ref := range []string{"refs/heads/" + c, m.remoteRef(c)} {
			if sha, err := m.revParse(ctx, m.source, ref); err != nil {
				return "", err
			} else if sha != "" {
				return c, nil
			}
		}
	}
	r, err := m.git(ctx, m.source, nil, "for-each-ref", "--format=%(refname)",
		"refs/heads/"+BranchPrefix+id, "refs/heads/"+BranchPrefix+id+"-*",
		"refs/remotes/"+m.remote+"/"+BranchPrefix+id, "refs/remotes/"+m.remote+"/"+BranchPrefix+id+"-*")
	if err != nil {
		return "", err
	}
	found := map[string]bool{}
	for _, ref := range strings.Fields(r.out) {
		name := strings.TrimPrefix(strings.TrimPrefix(ref, "refs/heads/"), "refs/remotes/"+m.remote+"/")
		found[name] = true
	}
	if len(found) == 1 {
		for name := range found {
			return name, nil
		}
	}
	names := make([]string, 0, len(found))
	for name := range found {
		names = append(names, name)
	}
	if len(names) > 1 {
		return "", fmt.Errorf("%w: %s has several (%s); re-create it by hand with `git worktree add %s <branch>`", ErrNoBranch, id, strings.Join(names, ", "), m.Path(id))
	}
	return "", fmt.Errorf("%w: %s has none; re-create it by hand with `git worktree add %s <branch>`", ErrNoBranch, id, m.Path(id))
}

// registeredBranch is the branch git still records for the tree at dir
// ("" when git records no tree there, or one without a branch).
func (m *Manager) registeredBranch(ctx context.Context, dir string) (string, error) {
	r, err := m.git(ctx, m.source, nil, "worktree", "list", "--porcelain")
	if err != nil {
		return "", err
	}
	want := map[string]bool{filepath.Clean(dir): true}
	if real, err := filepath.EvalSymlinks(filepath.Dir(dir)); err == nil {
		want[filepath.Join(real, filepath.Base(dir))] = true
	}
	for _, block := range strings.Split(r.out, "\n\n") {
		var path, branch string
		for _, l := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(l, "worktree "):
				path = filepath.Clean(strings.TrimPrefix(l, "worktree "))
			case strings.HasPrefix(l, "branch refs/heads/"):
				branch = strings.TrimPrefix(l, "branch refs/heads/")
			}
		}
		if want[path] && branch != "" {
			return branch, nil
		}
	}
	return "", nil
}

// prune forgets the registrations of trees gone from disk.
func (m *Manager) prune(ctx context.Context) error {
	_, err := m.git(ctx, m.source, nil, "worktree", "prune")
	return err
}

// Aside is what SetAside kept of a tree it took away.
type Aside struct {
	// Dir is where the files were kept.
	Dir string
	// Files are the kept files, relative to Dir (and to the tree); a
	// broken tree is kept whole, as "." .
	Files []string
	// Branch is the branch the tree had checked out ("" when unknown).
	Branch string
}

// SetAside takes item id's tree away so it can be re-created from its
// branch: the files git reports as uncommitted (modified, added, untracked)
// are copied into a fresh folder under aside, named in the result, and the
// tree is removed; a directory that is not a usable work tree of this
// source (no .git, another branch, another repository) is moved there
// whole. Nothing is committed, and the branch's commits are untouched.
func (m *Manager) SetAside(ctx context.Context, id, aside string) (Aside, error) {
	if err := ValidateID(id); err != nil {
		return Aside{}, err
	}
	dir := m.Path(id)
	if err := os.MkdirAll(filepath.Dir(aside), 0o700); err != nil {
		return Aside{}, fmt.Errorf("set aside the work tree of %s: %w", id, err)
	}
	if err := os.Mkdir(aside, 0o700); err != nil {
		return Aside{}, fmt.Errorf("set aside the work tree of %s: %w", id, err)
	}
	out := Aside{Dir: aside}
	changes, serr := m.statusPaths(ctx, dir)
	head, herr := m.git(ctx, dir, nil, "symbolic-ref", "--quiet", "--short", "HEAD")
	if herr == nil {
		out.Branch = head.out
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if serr != nil || herr != nil {
		// Not a work tree git can read: keep all of it.
		if err := os.Rename(dir, filepath.Join(aside, "tree")); err != nil {
			return out, fmt.Errorf("set aside the work tree of %s: %w", id, err)
		}
		out.Files = []string{"tree"}
		return out, m.prune(ctx)
	}
	for _, rel := range changes {
		src := filepath.Join(dir, filepath.FromSlash(rel))
		fi, err := os.Lstat(src)
		if errors.Is(err, fs.ErrNotExist) {
			continue // a deletion: the branch still has the file
		}
		if err != nil {
			return out, fmt.Errorf("set aside %s: %w", rel, err)
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		if err := copyFile(src, filepath.Join(aside, filepath.FromSlash(rel)), fi.Mode().Perm()); err != nil {
			return out, fmt.Errorf("set aside %s: %w", rel, err)
		}
		out.Files = append(out.Files, rel)
	}
	if _, err := m.git(ctx, m.source, nil, "worktree", "remove", "--force", "--force", dir); err != nil {
		return out, fmt.Errorf("remove the work tree of %s after setting its files aside in %s: %w", id, aside, err)
	}
	return out, m.prune(ctx)
}

// statusPaths lists the paths git reports as changed in dir, untracked
// files included, each once (a rename's new name). It reads git's
// porcelain v2 format, whose entries start with their type, never a space.
func (m *Manager) statusPaths(ctx context.Context, dir string) ([]string, error) {
	r, err := m.git(ctx, dir, nil, "status", "--porcelain=v2", "-z", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	var out []string
	fields := strings.Split(r.out, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		var skip int
		switch {
		case strings.HasPrefix(f, "1 "):
			skip = 8 // 1 XY sub mH mI mW hH hI path
		case strings.HasPrefix(f, "2 "):
			skip = 9 // 2 XY sub mH mI mW hH hI Xscore path, then the original path
			i++
		case strings.HasPrefix(f, "u "):
			skip = 10 // u XY sub m1 m2 m3 mW h1 h2 h3 path
		case strings.HasPrefix(f, "? "):
			skip = 1
		default:
			continue
		}
		parts := strings.SplitN(f, " ", skip+1)
		if len(parts) == skip+1 {
			out = append(out, parts[skip])
		}
	}
	return out, nil
}

func copyFile(src, dst string, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm&0o700)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

// Unpushed counts the commits of the tree's branch that its remote branch,
// as last fetched or pushed, lacks: work committed here that a push never
// delivered (a refused push, the loop's or a session's). It reads only
// local refs.
func (t *Tree) Unpushed(ctx context.Context) (int, error) {
	m := t.m
	base := m.remoteRef(t.Branch)
	args := []string{"rev-list", "--count", "HEAD", "^" + base}
	if sha, err := m.revParse(ctx, t.Dir, base); err != nil {
		return 0, err
	} else if sha == "" {
		args = []string{"rev-list", "--count", "HEAD", "--not", "--remotes=" + m.remote}
	}
	r, err := m.git(ctx, t.Dir, nil, args...)
	if err != nil {
		return 0, err
	}
	n := 0
	_, _ = fmt.Sscan(r.out, &n)
	return n, nil
}

// IsGitError reports an error of a git command the workspace ran.
func IsGitError(err error) bool {
	var ge *gitError
	return errors.As(err, &ge)
}
