// Package workspace gives every work item its own git working tree on the
// item's branch, in a repository of its own that borrows the source
// checkout's objects (see repo.go): a session in the tree reaches no other
// item's branch and nothing of the source but its objects, read-only. It
// keeps the tree in step with what was pushed (fetch in the source, then
// fast-forward only), commits what a gate writes (named paths only, with a
// marked message) and publishes the branch — a session's commits too —
// from the source, with the poller's credentials. Every git command it runs
// in a tree is pinned to the tree's repository (internal/gitsafe).
// Conflicts and refused pushes come back as typed errors; nothing is ever
// forced or reset over local work.
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

	"github.com/the-loop/the-loop/internal/gitsafe"
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
	// Remote is the remote the loop fetches and pushes (default "origin").
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
	common     string // the source's git directory (its objects, refs, config)
	format     string // its object format: sha1 or sha256
	root       string
	remote     string
	base       string
	gitProgram string
	env        []string
	secrets    []string
	identity   Identity

	mu sync.Mutex // serialises fetch, worktree add/remove and pushes

	notes sessionNotes // what each tree's repository was last told of its remote
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
	m.env = append(withoutVars(gitsafe.Repo{}.Environ(env), "GIT_TERMINAL_PROMPT", "LC_ALL"),
		"GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_LITERAL_PATHSPECS=1")
	common, err := m.git(ctx, opts.Source, nil, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return nil, fmt.Errorf("workspace source %s is not a git checkout: %w", opts.Source, err)
	}
	m.common = filepath.Clean(common.out)
	m.format = "sha1"
	if f, err := m.git(ctx, opts.Source, nil, "rev-parse", "--show-object-format"); err == nil && f.out != "" {
		m.format = f.out
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
	// pin is where the loop's git finds the tree's repository.
	pin gitsafe.Repo
}

// Path returns where the tree of item id lives (whether or not it exists).
func (m *Manager) Path(id string) string { return filepath.Join(m.root, id) }

// Add creates item id's tree on branch, or returns the existing one. The
// branch starts where the item's repository already has it (a tree gone
// from disk), else the source's local branch, else the remote's branch
// (what an agent or a handoff pushed), else the base.
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
	if err := m.prune(ctx, dir); err != nil {
		return nil, fmt.Errorf("add work tree for %s: forget the trees gone from disk: %w", id, err)
	}
	if _, err := m.git(ctx, m.source, nil, "fetch", "--quiet", m.remote); err != nil {
		return nil, fmt.Errorf("add work tree for %s: fetch %s: %w", id, m.remote, err)
	}
	repo, err := m.makeRepo(ctx, dir)
	if err != nil {
		return nil, err
	}
	if err := m.startBranch(ctx, repo, branch); err != nil {
		return nil, fmt.Errorf("add work tree for %s on %s: %w", id, branch, err)
	}
	if _, err := m.git(ctx, repo, inRepo(repo), "worktree", "add", "--quiet", dir, branch); err != nil {
		return nil, fmt.Errorf("add work tree for %s on %s: %w", id, branch, err)
	}
	t.pin = gitsafe.Open(dir)
	if !t.pin.Pinned() {
		return nil, fmt.Errorf("add work tree for %s: %s is not the repository the loop made for it", id, repo)
	}
	return t, nil
}

// startBranch gives the tree's repository its branch, where it is not yet:
// the source's local branch, else the remote's, else the base. The
// remote's branch is recorded there too (refs/remotes/<remote>/<branch>),
// so a session's git status says how far ahead it is.
func (m *Manager) startBranch(ctx context.Context, repo, branch string) error {
	remote, err := m.revParse(ctx, m.source, m.remoteRef(branch))
	if err != nil {
		return err
	}
	if remote != "" {
		if _, err := m.git(ctx, repo, inRepo(repo), "update-ref", m.remoteRef(branch), remote); err != nil {
			return err
		}
		m.notes.set(repo, branch, remote)
	}
	// The repository's own HEAD names the branch: the loop's git, pinned to
	// the repository, reads this HEAD (the poller's), never the tree's.
	if _, err := m.git(ctx, repo, inRepo(repo), "symbolic-ref", "HEAD", "refs/heads/"+branch); err != nil {
		return err
	}
	if have, err := m.revParse(ctx, repo, "refs/heads/"+branch, inRepo(repo)...); err != nil || have != "" {
		return err
	}
	start, err := m.revParse(ctx, m.source, "refs/heads/"+branch)
	if err != nil {
		return err
	}
	if start == "" {
		start = remote
	}
	if start == "" {
		if start, err = m.baseRef(ctx); err != nil {
			return err
		}
		if start, err = m.revParse(ctx, m.source, start); err != nil || start == "" {
			return fmt.Errorf("the base of %s names no commit in %s: %v", branch, m.source, err)
		}
	}
	_, err = m.git(ctx, repo, inRepo(repo), "update-ref", "refs/heads/"+branch, start)
	return err
}

// checkExisting accepts an existing directory only when it is a tree the
// loop made of this source, with branch checked out. A tree made before
// trees had repositories of their own is moved to one first.
func (m *Manager) checkExisting(ctx context.Context, t *Tree) error {
	if err := m.pinTree(ctx, t); err != nil {
		return err
	}
	if filepath.Clean(t.pin.Source) != filepath.Clean(m.source) {
		return fmt.Errorf("%s exists but belongs to another checkout (%s); move it aside", t.Dir, t.pin.Source)
	}
	head, err := t.git(ctx, nil, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil || head.out != t.Branch {
		return fmt.Errorf("%s exists but has %q checked out, not %s; switch it back or remove it", t.Dir, head.out, t.Branch)
	}
	return nil
}

// pinTree finds the repository of the existing tree at t.Dir, moving a
// tree of the old kind (a worktree of the source) to one of its own.
func (m *Manager) pinTree(ctx context.Context, t *Tree) error {
	t.pin = gitsafe.Open(t.Dir)
	if t.pin.Pinned() {
		return nil
	}
	if err := m.adopt(ctx, t.Dir); err != nil {
		return err
	}
	t.pin = gitsafe.Open(t.Dir)
	if !t.pin.Pinned() {
		return fmt.Errorf("%s exists and is not a work tree the loop made; move it aside", t.Dir)
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
	m.mu.Lock()
	defer m.mu.Unlock()
	return t, m.checkExisting(ctx, t)
}

// Find returns item id's existing tree with the branch it has checked out,
// or nil when the item has no tree. A directory that is not a tree the
// loop made of this source, on a branch, is an error: it is never taken
// over.
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
	m.mu.Lock()
	defer m.mu.Unlock()
	t := &Tree{ID: id, Dir: dir, m: m}
	if err := m.pinTree(ctx, t); err != nil {
		return nil, err
	}
	head, err := t.git(ctx, nil, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return nil, fmt.Errorf("%s exists but has no branch checked out; check one out or move it aside: %w", dir, err)
	}
	t.Branch = head.out
	return t, m.checkExisting(ctx, t)
}

// Remove deletes item id's tree and its repository. It refuses, with a
// *DirtyError, when the tree holds uncommitted changes or commits the
// remote lacks, unless discard is set. A tree that does not exist is not
// an error. The branch itself is kept: its commits are copied into the
// source's branch of the same name first.
func (m *Manager) Remove(ctx context.Context, id string, discard bool) error {
	if err := ValidateID(id); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	dir := m.Path(id)
	repo := gitsafe.RepoOf(dir)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat(repo); err == nil {
			_, _ = m.git(ctx, repo, inRepo(repo), "worktree", "prune")
		}
		_, perr := m.git(ctx, m.source, nil, "worktree", "prune")
		return perr
	}
	t := &Tree{ID: id, Dir: dir, m: m}
	if err := m.pinTree(ctx, t); err != nil {
		return fmt.Errorf("remove work tree %s: %w", dir, err)
	}
	head, err := t.git(ctx, nil, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return fmt.Errorf("remove work tree %s: it has no branch checked out; check one out or move it aside", dir)
	}
	t.Branch = head.out
	if !discard {
		changes, err := m.statusLines(ctx, t)
		if err != nil {
			return fmt.Errorf("remove work tree %s: %w", dir, err)
		}
		n, err := t.unpushed(ctx)
		if err != nil {
			return fmt.Errorf("remove work tree %s: %w", dir, err)
		}
		if len(changes) > 0 || n > 0 {
			return &DirtyError{Dir: dir, Changes: changes, Unpushed: n}
		}
	}
	if _, err := m.git(ctx, m.source, nil, "fetch", "--quiet", "--no-tags", repo, "+refs/heads/"+t.Branch+":refs/heads/"+t.Branch); err != nil {
		return fmt.Errorf("remove work tree %s: keep its branch %s in the source: %w", dir, t.Branch, err)
	}
	if err := t.restore(); err != nil {
		return fmt.Errorf("remove work tree %s: %w", dir, err)
	}
	args := []string{"worktree", "remove"}
	if discard {
		args = append(args, "--force", "--force")
	}
	if _, err := m.git(ctx, repo, inRepo(repo), append(args, dir)...); err != nil {
		return fmt.Errorf("remove work tree %s: %w", dir, err)
	}
	m.notes.forget(repo)
	if err := os.RemoveAll(repo); err != nil {
		return fmt.Errorf("remove the repository of %s: %w", dir, err)
	}
	return nil
}
