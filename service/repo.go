// Package service is the core the CLI and the MCP tools both call: it
// resolves a repository, loads its harness config and the shipped graphs,
// opens the state store, and runs the runtime. A CLI verb and an MCP tool
// are thin bindings over the same function here, so the two cannot drift.
package service

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/plaintext"
)

// HarnessConfigPath is the per-repository config, relative to the root.
const HarnessConfigPath = ".the-loop/harness-config.yaml"

// Repo is a resolved repository checkout.
type Repo struct {
	// Root is the absolute, symlink-resolved repository root.
	Root string
	// SpecRoot is the spec folder relative to Root (slash-separated).
	SpecRoot string
	// Harness is the repository's harness config (zero when absent).
	Harness Harness
	// Warnings are things the user should know (printed on stderr).
	Warnings []string
}

// Harness holds the harness-config keys the engine reads; every other key
// is guidance for the agent and ignored here.
type Harness struct {
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
	// Present is true when the file exists.
	Present bool `yaml:"-"`
}

// ErrRepoUnreadable marks a repository path that is not a readable directory.
var ErrRepoUnreadable = errors.New("repository is not a readable directory")

// OpenRepo resolves dir (relative to cwd) and reads its harness config.
func OpenRepo(dir string) (*Repo, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrRepoUnreadable, dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a directory", ErrRepoUnreadable, abs)
	}
	key := repoStamp(abs)
	if v, ok := repoCache.Load(abs); ok && v.(cachedRepo).stamp == key {
		return v.(cachedRepo).repo.clone(), nil
	}
	r := &Repo{Root: abs, SpecRoot: runtime.DefaultSpecRoot}
	if err := r.readHarness(); err != nil {
		return nil, err
	}
	r.warnRepoGraphs()
	repoCache.Store(abs, cachedRepo{stamp: key, repo: r.clone()})
	return r, nil
}

// repoCache keeps resolved repositories while their .the-loop folder and
// harness config are unchanged (a long-running server resolves the same
// checkout on every call).
var repoCache sync.Map // abs root -> cachedRepo

type cachedRepo struct {
	stamp string
	repo  *Repo
}

// repoStamp identifies the state of what OpenRepo reads: the .the-loop
// folder (files added or removed) and the harness config (edited).
func repoStamp(root string) string {
	stamp := ""
	for _, p := range []string{filepath.Join(root, ".the-loop"), filepath.Join(root, filepath.FromSlash(HarnessConfigPath))} {
		fi, err := os.Stat(p)
		if err != nil {
			stamp += "-|"
			continue
		}
		stamp += fmt.Sprintf("%d.%d.%d|", fi.ModTime().UnixNano(), fi.Size(), fi.Mode())
	}
	return stamp
}

func (r *Repo) clone() *Repo {
	c := *r
	c.Warnings = append([]string(nil), r.Warnings...)
	return &c
}

func (r *Repo) readHarness() error {
	p := filepath.Join(r.Root, filepath.FromSlash(HarnessConfigPath))
	fi, err := os.Stat(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil && !fi.Mode().IsRegular() {
		return mark(fmt.Errorf("%s is not a regular file; make it one, or remove it to use the defaults", HarnessConfigPath), ErrRepoConfig)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	if err := yaml.Unmarshal(data, &r.Harness); err != nil {
		return mark(fmt.Errorf("%s is not valid YAML: %w (fix the file; workflow.specDir is the key the engine reads)", HarnessConfigPath, err), ErrRepoConfig)
	}
	r.Harness.Present = true
	if sd := strings.TrimSpace(r.Harness.Workflow.SpecDir); sd != "" {
		clean := path.Clean(filepath.ToSlash(sd))
		if !filepath.IsLocal(filepath.FromSlash(clean)) {
			return mark(fmt.Errorf("%s: workflow.specDir %q leaves the repository; give a path inside it, e.g. docs/specs", HarnessConfigPath, sd), ErrRepoConfig)
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
		return mark(fmt.Errorf("the spec directory %s resolves to %s, outside the repository; spec folders must live inside it", r.SpecRoot, real), ErrRepoConfig)
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
	for _, n := range Loops() {
		candidates = append(candidates, n+".yaml")
	}
	for _, c := range candidates {
		if _, err := os.Stat(filepath.Join(dir, c)); err == nil {
			msg := fmt.Sprintf("ignoring .the-loop/%s: the shipped graphs cannot be overridden by a repository", c)
			r.Warnings = append(r.Warnings, msg)
			slog.Warn(msg, "repo", r.Root)
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
		if e.IsDir() && runtime.ValidateID(e.Name()) == nil {
			ids = append(ids, e.Name())
		}
	}
	return ids, nil
}

// OriginRepo returns OWNER/REPO from the harness config ("" when unset).
func (r *Repo) OriginRepo() string {
	g := r.Harness.Ticketing.GitHub
	if g.Owner == "" || g.Repo == "" {
		return ""
	}
	return g.Owner + "/" + g.Repo
}

// DefaultRef derives the ticket ref of an id: github:owner/repo#n for
// issue-<n> when the harness config names the repository, else "".
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
