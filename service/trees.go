package service

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/the-loop/the-loop/agents/workspace"
	"github.com/the-loop/the-loop/config"
)

// Trees gives every polled work item its own working tree: one
// workspace.Manager per watched container's checkout, and under Root one
// folder per container holding one tree per item (Root/<container>/<id>).
// The item's tree is its repository from arming to cleanup: its state, its
// gates and its sessions all live there.
type Trees struct {
	root string
	tmpl workspace.Options

	mu       sync.Mutex
	managers map[string]*workspace.Manager // by checkout and container
	trees    map[string]*workspace.Tree    // by checkout, container and item
}

// NewTrees returns the trees under root; tmpl carries what every manager
// shares (remote, git environment, secrets to scrub, commit identity).
func NewTrees(root string, tmpl workspace.Options) *Trees {
	return &Trees{root: root, tmpl: tmpl, managers: map[string]*workspace.Manager{}, trees: map[string]*workspace.Tree{}}
}

func treeKey(parts ...string) string { return strings.Join(parts, "\x00") }

// containerDir names a container's folder: OWNER/REPO becomes OWNER-REPO.
func containerDir(container string) string {
	var b strings.Builder
	for _, r := range container {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), ".-")
	if s == "" {
		s = "repo"
	}
	return s
}

func (t *Trees) manager(ctx context.Context, checkout, container string) (*workspace.Manager, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := treeKey(checkout, container)
	if m := t.managers[key]; m != nil {
		return m, nil
	}
	opts := t.tmpl
	abs, err := filepath.Abs(checkout)
	if err != nil {
		return nil, err
	}
	opts.Source, opts.Root = abs, filepath.Join(t.root, containerDir(container))
	m, err := workspace.New(ctx, opts)
	if err != nil {
		return nil, err
	}
	t.managers[key] = m
	return m, nil
}

// CheckTrees checks, before the first cycle, that every polled checkout
// can carry working trees: a git checkout with the remote agents push to.
// Without trees configured there is nothing to check.
func (s *Service) CheckTrees(ctx context.Context, sources []config.Source) error {
	t := s.deps.Trees
	if t == nil {
		return nil
	}
	for _, src := range sources {
		containers := src.Repos
		if src.System == "jira" {
			containers = src.Projects
		}
		for _, c := range containers {
			if src.Checkout == "" {
				continue // the cycle reports a source without a checkout
			}
			if _, err := t.manager(ctx, src.Checkout, c); err != nil {
				return fmt.Errorf("polling source %s %s: the items' working trees: %w", src.System, c, err)
			}
		}
	}
	return nil
}

// Dirs lists the trees kept for container's items (and for pull requests
// of other repositories' items), whatever checkout they belong to.
func (t *Trees) Dirs(container string) []string {
	root := filepath.Join(t.root, containerDir(container))
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(root, e.Name()))
		}
	}
	return out
}

// Find returns the existing tree of item id (nil when it has none).
func (t *Trees) Find(ctx context.Context, checkout, container, id string) (*workspace.Tree, error) {
	key := treeKey(checkout, container, id)
	t.mu.Lock()
	tr := t.trees[key]
	t.mu.Unlock()
	if tr != nil {
		if _, err := os.Stat(tr.Dir); err == nil {
			return tr, nil
		}
	}
	m, err := t.manager(ctx, checkout, container)
	if err != nil {
		return nil, err
	}
	tr, err = m.Find(ctx, id)
	if err != nil || tr == nil {
		return nil, err
	}
	t.mu.Lock()
	t.trees[key] = tr
	t.mu.Unlock()
	return tr, nil
}

// Add creates item id's tree on branch (or returns the one it has).
func (t *Trees) Add(ctx context.Context, checkout, container, id, branch string) (*workspace.Tree, error) {
	m, err := t.manager(ctx, checkout, container)
	if err != nil {
		return nil, err
	}
	tr, err := m.Add(ctx, id, branch)
	return t.keep(checkout, container, id, tr, err)
}

// Remove deletes item id's tree; a tree holding work the remote lacks is
// kept (a *workspace.DirtyError).
func (t *Trees) Remove(ctx context.Context, checkout, container, id string) error {
	m, err := t.manager(ctx, checkout, container)
	if err != nil {
		return err
	}
	t.mu.Lock()
	delete(t.trees, treeKey(checkout, container, id))
	t.mu.Unlock()
	return m.Remove(ctx, id, false)
}

// Path is where item id's tree of container lives (whether or not it
// exists), with the symbolic links of its folder resolved as a
// repository's root is: the key its state is stored under.
func (t *Trees) Path(container, id string) string {
	dir := filepath.Join(t.root, containerDir(container))
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Join(dir, id)
}

// Recreate re-creates item id's tree, gone from disk, on its branch (see
// workspace.Manager.Recreate; candidates are the branches it may have).
func (t *Trees) Recreate(ctx context.Context, checkout, container, id string, candidates ...string) (*workspace.Tree, error) {
	m, err := t.manager(ctx, checkout, container)
	if err != nil {
		return nil, err
	}
	tr, err := m.Recreate(ctx, id, candidates...)
	return t.keep(checkout, container, id, tr, err)
}

// keep remembers tree tr of item id (made or re-made), or passes err on.
func (t *Trees) keep(checkout, container, id string, tr *workspace.Tree, err error) (*workspace.Tree, error) {
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.trees[treeKey(checkout, container, id)] = tr
	t.mu.Unlock()
	return tr, nil
}

// SetAside takes item id's tree away so it can be re-created: its
// uncommitted files (or, for a broken tree, the whole folder) are kept in
// a fresh folder under <root>/.aside/<container>/<id>/, named in the
// result.
func (t *Trees) SetAside(ctx context.Context, checkout, container, id string, at time.Time) (workspace.Aside, error) {
	m, err := t.manager(ctx, checkout, container)
	if err != nil {
		return workspace.Aside{}, err
	}
	t.mu.Lock()
	delete(t.trees, treeKey(checkout, container, id))
	t.mu.Unlock()
	aside := filepath.Join(t.root, ".aside", containerDir(container), id, at.UTC().Format("20060102T150405.000000000Z"))
	return m.SetAside(ctx, id, aside)
}

// snapshot is the content of the files under dir, by path relative to
// root; what a gate wrote is the difference of two snapshots.
type snapshot map[string][sha256.Size]byte

func takeSnapshot(root, dir string) (snapshot, error) {
	out := snapshot{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = sha256.Sum256(b)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	return out, nil
}

// changed lists the paths written, created or removed since before.
func (s snapshot) changed(before snapshot) []string {
	var out []string
	for p, h := range s {
		if old, ok := before[p]; !ok || old != h {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := s[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
