// Package repoconfig resolves a repository checkout as the loop sees it:
// its root, its repository config (.the-loop/harness-config.yaml — the file
// keeps the name it shipped with), the spec folder that config names, and
// the work items under it. The operator config, which is the host's, is
// package config.
package repoconfig

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/internal/filestamp"
	"github.com/the-loop/the-loop/internal/plaintext"
	"github.com/the-loop/the-loop/runtime"
)

// Path is the repository config, relative to the root.
const Path = ".the-loop/harness-config.yaml"

// Repo is a resolved repository checkout.
type Repo struct {
	// Root is the absolute, symlink-resolved repository root.
	Root string
	// SpecRoot is the spec folder relative to Root (slash-separated).
	SpecRoot string
	// Config is the repository config (zero when absent).
	Config Config
	// Warnings are things the user should know (printed on stderr).
	Warnings []string
}

// Config holds the repository-config keys the engine reads; every other key
// is guidance for the agent and ignored here.
type Config struct {
	Ticketing struct {
		System string `yaml:"system"`
		GitHub struct {
			Owner string `yaml:"owner"`
			Repo  string `yaml:"repo"`
		} `yaml:"github"`
		Jira struct {
			Project string `yaml:"project"`
		} `yaml:"jira"`
	} `yaml:"ticketing"`
	Workflow struct {
		SpecDir          string `yaml:"specDir"`
		PhaseLabelPrefix string `yaml:"phaseLabelPrefix"`
	} `yaml:"workflow"`
	// Sessions.Harness names the operator's harness (an entry of the
	// operator config's harnesses:) this repository's items are worked
	// with; "" leaves it to sessions.harness there. Only a configured
	// harness can ever run: the name chooses, it never defines.
	Sessions struct {
		Harness string `yaml:"harness"`
		// Nodes pins one of the operator's harnesses to a node of this
		// repository's items (e.g. implementation: codex).
		Nodes map[string]string `yaml:"nodes"`
	} `yaml:"sessions"`
	// Commands are the repository's own lint, type-check and test
	// commands (the commands: block), read strictly by readCommands.
	Commands Commands `yaml:"-"`
	// Present is true when the file exists.
	Present bool `yaml:"-"`
}

// ErrUnreadable marks a repository path that is not a readable directory.
var ErrUnreadable = errors.New("repository is not a readable directory")

// ErrInvalid marks a repository config the loop cannot use: the fix is in
// the file.
var ErrInvalid = errors.New("the repository config is unusable")

// invalidError is an error of the config file: its message, and ErrInvalid.
type invalidError struct{ error }

func (e invalidError) Unwrap() []error { return []error{e.error, ErrInvalid} }

// Open resolves dir (relative to the working directory) and reads its
// repository config.
func Open(dir string) (*Repo, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnreadable, dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a directory", ErrUnreadable, abs)
	}
	if v, ok := repoCache.Load(abs); ok && v.(cachedRepo).stamps.Unchanged() {
		return v.(cachedRepo).repo.clone(), nil
	}
	stamps, stampedAt := repoStamps(abs), time.Now()
	r := &Repo{Root: abs, SpecRoot: runtime.DefaultSpecRoot}
	if err := r.readConfig(); err != nil {
		return nil, err
	}
	r.warnRepoGraphs()
	if stamps.SettledBefore(stampedAt.Add(-cacheSettle)) {
		repoCache.Store(abs, cachedRepo{stamps: stamps, repo: r.clone()})
	} else {
		repoCache.Delete(abs)
	}
	return r, nil
}

// repoCache keeps resolved repositories while their .the-loop folder and
// harness config are unchanged (a long-running server resolves the same
// checkout on every call). A repository whose config changed less than
// cacheSettle before it was read is not kept: two edits within one tick of
// the file system's clock can look alike.
var repoCache sync.Map // abs root -> cachedRepo

// cacheSettle is filestamp.Settle; tests shorten it.
var cacheSettle = filestamp.Settle

type cachedRepo struct {
	stamps *filestamp.Set
	repo   *Repo
}

// repoStamps stamps what Open reads: the .the-loop folder (files added or
// removed) and the repository config (edited, even with its size and
// modification time put back).
func repoStamps(root string) *filestamp.Set {
	var s filestamp.Set
	s.Add(filepath.Join(root, ".the-loop"))
	s.Add(filepath.Join(root, filepath.FromSlash(Path)))
	return &s
}

func (r *Repo) clone() *Repo {
	c := *r
	c.Warnings = append([]string(nil), r.Warnings...)
	return &c
}

func (r *Repo) readConfig() error {
	p := filepath.Join(r.Root, filepath.FromSlash(Path))
	fi, err := os.Stat(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil && !fi.Mode().IsRegular() {
		return invalidError{fmt.Errorf("%s is not a regular file; make it one, or remove it to use the defaults", Path)}
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	if err := yaml.Unmarshal(data, &r.Config); err != nil {
		return invalidError{fmt.Errorf("%s is not valid YAML: %w (fix the file; workflow.specDir is the key the engine reads)", Path, err)}
	}
	r.Config.Present = true
	if r.Config.Commands, err = readCommands(data); err != nil {
		return err
	}
	if sd := strings.TrimSpace(r.Config.Workflow.SpecDir); sd != "" {
		clean := path.Clean(filepath.ToSlash(sd))
		if !filepath.IsLocal(filepath.FromSlash(clean)) {
			return invalidError{fmt.Errorf("%s: workflow.specDir %q leaves the repository; give a path inside it, e.g. docs/specs", Path, sd)}
		}
		r.SpecRoot = clean
	}
	return r.checkSpecRoot()
}

// checkSpecRoot refuses a spec root that resolves (through symbolic links)
// outside the repository: artifacts are read and state written there.
func (r *Repo) checkSpecRoot() error {
	p := filepath.Join(r.Root, filepath.FromSlash(r.SpecRoot))
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("resolve the spec directory %s: %w", r.SpecRoot, err)
	}
	if rel, err := filepath.Rel(r.Root, real); err != nil || !filepath.IsLocal(rel) {
		return invalidError{fmt.Errorf("the spec directory %s resolves to %s, outside the repository; spec folders must live inside it", r.SpecRoot, real)}
	}
	return nil
}

// CheckItemDir refuses a work-item folder that is a symbolic link: ids
// never become paths outside the repository.
func (r *Repo) CheckItemDir(id string) error {
	fi, err := os.Lstat(r.SpecDir(id))
	if err != nil {
		return nil // absent: nothing to follow
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s/%s is a symbolic link; a work-item folder must be a real directory inside the repository", r.SpecRoot, id)
	}
	return nil
}

func (r *Repo) warnRepoGraphs() {
	dir := filepath.Join(r.Root, ".the-loop")
	candidates := []string{"graph.yaml", "pdlc.yaml", "graphs"}
	for _, n := range graphs.Names() {
		candidates = append(candidates, n+".yaml")
	}
	for _, c := range candidates {
		if _, err := os.Stat(filepath.Join(dir, c)); err == nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("ignoring .the-loop/%s: the shipped graphs cannot be overridden by a repository", c))
		}
	}
}

// SpecDir returns the absolute spec folder of id.
func (r *Repo) SpecDir(id string) string {
	return filepath.Join(r.Root, filepath.FromSlash(r.SpecRoot), id)
}

// WorkItems lists the work-item folders under the spec root, sorted.
func (r *Repo) WorkItems() ([]string, error) {
	root := filepath.Join(r.Root, filepath.FromSlash(r.SpecRoot))
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", root, err)
	}
	var ids []string
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 {
			name := r.SpecRoot + "/" + e.Name()
			if _, unsafe := plaintext.Unsafe(name); unsafe {
				name = strconv.Quote(name) // never print a raw control or bidi character
			}
			r.Warnings = append(r.Warnings, fmt.Sprintf("skipping %s: a symbolic link is not a work-item folder", name))
			continue
		}
		if !e.IsDir() {
			continue
		}
		if err := runtime.ValidateID(e.Name()); err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("skipping the folder %s/%s: %v", r.SpecRoot, strconv.Quote(e.Name()), err))
			continue
		}
		ids = append(ids, e.Name())
	}
	return ids, nil
}

// OriginRepo returns OWNER/REPO from the repository config ("" when unset).
func (r *Repo) OriginRepo() string {
	g := r.Config.Ticketing.GitHub
	if g.Owner == "" || g.Repo == "" {
		return ""
	}
	return g.Owner + "/" + g.Repo
}

// DefaultRef derives the ticket ref of an id: github:owner/repo#n for
// issue-<n> when the repository config names the repository, else "".
func (r *Repo) DefaultRef(id string) string {
	origin := r.OriginRepo()
	if origin == "" {
		return ""
	}
	var n int
	if _, err := fmt.Sscanf(id, "issue-%d", &n); err != nil || n <= 0 || fmt.Sprintf("issue-%d", n) != id {
		return ""
	}
	return fmt.Sprintf("github:%s#%d", origin, n)
}

// SpecRootSource says where SpecRoot came from, for messages: the
// repository config's key, or the default.
func (r *Repo) SpecRootSource() string {
	if strings.TrimSpace(r.Config.Workflow.SpecDir) != "" {
		return "workflow.specDir in " + Path
	}
	return "the default; workflow.specDir in " + Path + " names another"
}

// HasSpecRoot reports whether the spec folder exists as a directory.
func (r *Repo) HasSpecRoot() bool {
	fi, err := os.Stat(filepath.Join(r.Root, filepath.FromSlash(r.SpecRoot)))
	return err == nil && fi.IsDir()
}

// EnclosingRoot returns the nearest directory above dir (dir excluded) that
// looks like a repository root — it holds .git or .the-loop — or "" when
// none does. It names the root a user most likely meant when they ran a
// command from inside a repository.
func EnclosingRoot(dir string) string {
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		for _, marker := range []string{".git", ".the-loop"} {
			if _, err := os.Stat(filepath.Join(d, marker)); err == nil {
				return d
			}
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
