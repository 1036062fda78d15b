// Package workspace gives every work item its own git working tree: a
// `git worktree` of the source checkout on the item's branch. It keeps the
// tree in step with what the agent pushed (fetch, then fast-forward only)
// and commits and pushes what a gate writes (named paths only, with a
// marked message). Conflicts and refused pushes come back as typed errors;
// nothing is ever forced or reset over local work.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/the-loop/the-loop/internal/proc"
)

// Identity is the author of the commits the loop makes.
type Identity struct {
	Name  string
	Email string
}

// Options configure a Manager.
type Options struct {
	// Source is the checkout the worktrees are added to (the poller's
	// clone of the repository).
	Source string
	// Root is the directory that holds the trees, one per item: Root/<id>.
	Root string
	// Remote is the remote the agent pushes to (default "origin").
	Remote string
	// Base is the ref a new branch starts from (default: the remote's
	// default branch when known, else the source's HEAD).
	Base string
	// Git is the git program (default "git", looked up in Env's PATH).
	Git string
	// Env is git's complete environment (default: proc.Basics from the
	// poller's environment). The loop adds GIT_TERMINAL_PROMPT=0 and
	// LC_ALL=C so git never prompts and its messages can be read.
	Env []string
	// Secrets are values scrubbed from git's messages.
	Secrets []string
	// Identity authors the loop's commits ("" = the repository's config).
	Identity Identity
}

// Manager creates, syncs and removes the per-item trees of one source
// checkout. It is safe for concurrent use: operations that touch the
// source's shared refs run one at a time.
type Manager struct {
	source     string
	root       string
	remote     string
	base       string
	gitProgram string
	env        []string
	secrets    []string
	identity   Identity

	mu sync.Mutex // serialises fetch, worktree add/remove and pushes
}

// New checks opts and returns a Manager.
func New(ctx context.Context, opts Options) (*Manager, error) {
	if opts.Source == "" || !filepath.IsAbs(opts.Source) {
		return nil, fmt.Errorf("workspace source %q: give the absolute path of the repository checkout", opts.Source)
	}
	if opts.Root == "" || !filepath.IsAbs(opts.Root) {
		return nil, fmt.Errorf("workspace root %q: give an absolute directory for the per-item trees", opts.Root)
	}
	if (opts.Identity.Name == "") != (opts.Identity.Email == "") {
		return nil, errors.New("workspace identity: give both a name and an email, or neither")
	}
	m := &Manager{source: opts.Source, root: opts.Root, remote: opts.Remote, base: opts.Base, gitProgram: opts.Git,
		secrets: opts.Secrets, identity: opts.Identity}
	if m.remote == "" {
		m.remote = "origin"
	}
	if m.gitProgram == "" {
		m.gitProgram = "git"
	}
	env := opts.Env
	if env == nil {
		e, err := proc.BuildEnv(proc.EnvSpec{}, os.LookupEnv)
		if err != nil {
			return nil, err
		}
		env = e.List()
	}
	m.env = append(withoutVars(env, "GIT_TERMINAL_PROMPT", "LC_ALL", "GIT_INDEX_FILE", "GIT_DIR", "GIT_WORK_TREE"),
		"GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_LITERAL_PATHSPECS=1")
	if _, err := m.git(ctx, opts.Source, nil, "rev-parse", "--git-dir"); err != nil {
		return nil, fmt.Errorf("workspace source %s is not a git checkout: %w", opts.Source, err)
	}
	if _, err := m.git(ctx, opts.Source, nil, "remote", "get-url", m.remote); err != nil {
		return nil, fmt.Errorf("workspace source %s has no remote %q to fetch from and push to: %w", opts.Source, m.remote, err)
	}
	if err := os.MkdirAll(opts.Root, 0o700); err != nil {
		return nil, fmt.Errorf("workspace root %s: %w", opts.Root, err)
	}
	return m, nil
}

func withoutVars(env []string, names ...string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		n, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, x := range names {
			drop = drop || n == x
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}

// Tree is one item's working tree.
type Tree struct {
	// ID is the work item id; Branch its branch; Dir the tree's path.
	ID     string
	Branch string
	Dir    string
	m      *Manager
}

// Path returns where the tree of item id lives (whether or not it exists).
func (m *Manager) Path(id string) string { return filepath.Join(m.root, id) }

// Add creates item id's tree on branch, or returns the existing one. The
// branch is checked out from the local branch when there is one, else from
// the remote's branch (what an agent or a handoff pushed), else created
// from the base; its upstream is the remote's branch of the same name, so
// a plain `git push` in the tree publishes it.
func (m *Manager) Add(ctx context.Context, id, branch string) (*Tree, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	if err := ValidateBranch(branch); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	dir := m.Path(id)
	t := &Tree{ID: id, Branch: branch, Dir: dir, m: m}
	if _, err := os.Stat(dir); err == nil {
		return t, m.checkExisting(ctx, t)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("work tree %s: %w", dir, err)
	}
	if err := m.prune(ctx); err != nil {
		return nil, fmt.Errorf("add work tree for %s: forget the trees gone from disk: %w", id, err)
	}
	if _, err := m.git(ctx, m.source, nil, "fetch", "--quiet", m.remote); err != nil {
		return nil, fmt.Errorf("add work tree for %s: fetch %s: %w", id, m.remote, err)
	}
	local, err := m.revParse(ctx, m.source, "refs/heads/"+branch)
	if err != nil {
		return nil, err
	}
	remote, err := m.revParse(ctx, m.source, m.remoteRef(branch))
	if err != nil {
		return nil, err
	}
	switch {
	case local != "":
		_, err = m.git(ctx, m.source, nil, "worktree", "add", "--quiet", dir, branch)
	case remote != "":
		_, err = m.git(ctx, m.source, nil, "worktree", "add", "--quiet", "--track", "-b", branch, dir, m.remoteRef(branch))
	default:
		base, berr := m.baseRef(ctx)
		if berr != nil {
			return nil, berr
		}
		_, err = m.git(ctx, m.source, nil, "worktree", "add", "--quiet", "--no-track", "-b", branch, dir, base)
	}
	if err != nil {
		return nil, fmt.Errorf("add work tree for %s on %s: %w", id, branch, err)
	}
	for _, kv := range [][2]string{{"branch." + branch + ".remote", m.remote}, {"branch." + branch + ".merge", "refs/heads/" + branch}} {
		if _, err := m.git(ctx, dir, nil, "config", kv[0], kv[1]); err != nil {
			return nil, fmt.Errorf("set upstream of %s: %w", branch, err)
		}
	}
	return t, nil
}

// checkExisting accepts an existing directory only when it is this
// source's worktree with branch checked out.
func (m *Manager) checkExisting(ctx context.Context, t *Tree) error {
	common, err := m.git(ctx, t.Dir, nil, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return fmt.Errorf("%s exists and is not a git work tree; move it aside: %w", t.Dir, err)
	}
	want, err := m.git(ctx, m.source, nil, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return err
	}
	if filepath.Clean(common.out) != filepath.Clean(want.out) {
		return fmt.Errorf("%s exists but belongs to another repository (%s); move it aside", t.Dir, common.out)
	}
	head, err := m.git(ctx, t.Dir, nil, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil || head.out != t.Branch {
		return fmt.Errorf("%s exists but has %q checked out, not %s; switch it back or remove it", t.Dir, head.out, t.Branch)
	}
	return nil
}

func (m *Manager) remoteRef(branch string) string { return "refs/remotes/" + m.remote + "/" + branch }

// baseRef is where a new branch starts.
func (m *Manager) baseRef(ctx context.Context) (string, error) {
	if m.base != "" {
		sha, err := m.revParse(ctx, m.source, m.base)
		if err != nil {
			return "", err
		}
		if sha == "" {
			return "", fmt.Errorf("workspace base %q does not name a commit in %s", m.base, m.source)
		}
		return sha, nil
	}
	if r, err := m.git(ctx, m.source, nil, "symbolic-ref", "--quiet", "refs/remotes/"+m.remote+"/HEAD"); err == nil && r.out != "" {
		return r.out, nil
	}
	return "HEAD", nil
}

// Open returns the existing tree of item id on branch.
func (m *Manager) Open(ctx context.Context, id, branch string) (*Tree, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	t := &Tree{ID: id, Branch: branch, Dir: m.Path(id), m: m}
	if _, err := os.Stat(t.Dir); err != nil {
		return nil, fmt.Errorf("no work tree for %s at %s: %w", id, t.Dir, err)
	}
	return t, m.checkExisting(ctx, t)
}

// Find returns item id's existing tree with the branch it has checked out,
// or nil when the item has no tree. A directory that is not this source's
// worktree on a branch is an error: it is never taken over.
func (m *Manager) Find(ctx context.Context, id string) (*Tree, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	dir := m.Path(id)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("work tree %s: %w", dir, err)
	}
	head, err := m.git(ctx, dir, nil, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return nil, fmt.Errorf("%s exists but has no branch checked out; check one out or move it aside: %w", dir, err)
	}
	t := &Tree{ID: id, Branch: head.out, Dir: dir, m: m}
	return t, m.checkExisting(ctx, t)
}

// Remove deletes item id's tree. It refuses, with a *DirtyError, when the
// tree holds uncommitted changes or commits the remote lacks, unless
// discard is set. A tree that does not exist is not an error. The branch
// itself is kept.
func (m *Manager) Remove(ctx context.Context, id string, discard bool) error {
	if err := ValidateID(id); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	dir := m.Path(id)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		_, perr := m.git(ctx, m.source, nil, "worktree", "prune")
		return perr
	}
	if !discard {
		changes, err := m.statusLines(ctx, dir)
		if err != nil {
			return fmt.Errorf("remove work tree %s: %w", dir, err)
		}
		unpushed, err := m.git(ctx, dir, nil, "rev-list", "--count", "HEAD", "--not", "--remotes="+m.remote)
		if err != nil {
			return fmt.Errorf("remove work tree %s: %w", dir, err)
		}
		n := 0
		_, _ = fmt.Sscan(unpushed.out, &n)
		if len(changes) > 0 || n > 0 {
			return &DirtyError{Dir: dir, Changes: changes, Unpushed: n}
		}
	}
	args := []string{"worktree", "remove"}
	if discard {
		args = append(args, "--force", "--force")
	}
	if _, err := m.git(ctx, m.source, nil, append(args, dir)...); err != nil {
		return fmt.Errorf("remove work tree %s: %w", dir, err)
	}
	return nil
}
