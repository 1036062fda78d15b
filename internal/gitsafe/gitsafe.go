// Package gitsafe is how the loop runs git in a working tree a session can
// write. A session writes its tree (the .git file included), its own
// repository's objects, refs and logs, and the tree's administrative
// directory (its HEAD, index, commondir and gitdir), so the loop's git
// never finds the repository from them: a tree the loop made is pinned to
// the repository the loop keeps for it beside the trees
// (<trees>/<container>/.repos/<id>, whose config, HEAD, hooks and info no
// session can write) through GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE.
// With the repository itself as GIT_DIR, git reads no commondir and no
// worktree config, and the HEAD it reads is the repository's, which names
// the item's branch whatever the session checked out. Git then reads
// configuration only from files the poller owns — the system's, the
// poller's global one and that repository's, which the loop wrote — so
// nothing a session wrote is run or followed by the loop's git: no hook, no
// file-system monitor, no ssh command, no diff, filter or textconv
// program, no include. Settings carries that rule again on every command
// line.
package gitsafe

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// ReposDir is the folder beside an item's tree that holds the trees'
// own repositories: <trees>/<container>/.repos/<id>.
const ReposDir = ".repos"

// MarkerFile, in a tree's repository, records what the loop made it for:
// the tree, the checkout it was made from and that checkout's remote. No
// session can write it.
const MarkerFile = "the-loop.json"

// Settings are the settings every git command the loop runs carries on
// its command line, whatever the configuration says: hooks and the
// file-system monitor off, no automatic gc or maintenance, no recursion
// into submodules. With the repository pinned they repeat what the files
// already say; they hold also where a checkout is not a tree the loop
// made. (A worktree's own config.worktree is read only when the
// repository's config turns extensions.worktreeConfig on, which no
// command line can turn off: the repository the loop makes for a tree
// never does.)
var Settings = []string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "gc.auto=0",
	"-c", "maintenance.auto=false", "-c", "submodule.recurse=false"}

// Marker is the content of MarkerFile.
type Marker struct {
	// Tree is the working tree the repository was made for.
	Tree string `json:"tree"`
	// Source is the checkout the tree was made from: its remote is the
	// item's remote and its refs are the poller's alone.
	Source string `json:"source"`
	// Remote names the source's remote the loop fetches and pushes.
	Remote string `json:"remote"`
}

// Repo is where git finds a working tree's repository.
type Repo struct {
	// WorkTree is the working tree.
	WorkTree string
	// GitDir is the tree's repository, Index the tree's index (in its
	// administrative directory, Admin); all "" for a plain checkout,
	// which git finds as it always does.
	GitDir, Index, Admin string
	// Source and Remote are the marker's ("" for a plain checkout).
	Source, Remote string
}

// Pinned reports whether r is a tree the loop made, pinned to its own
// repository.
func (r Repo) Pinned() bool { return r.GitDir != "" }

// RepoOf is where the loop keeps the repository of the tree at dir.
func RepoOf(tree string) string {
	return filepath.Join(filepath.Dir(tree), ReposDir, filepath.Base(tree))
}

// AdminOf is the administrative directory of the tree at dir inside its
// repository.
func AdminOf(tree string) string {
	return filepath.Join(RepoOf(tree), "worktrees", filepath.Base(tree))
}

// Open resolves dir: a tree the loop made — its repository under .repos
// beside it, whose marker names dir — is pinned to that repository; any
// other directory is a plain checkout. Nothing under dir is read.
func Open(dir string) Repo {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Repo{WorkTree: dir}
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	m, ok := readMarker(RepoOf(abs))
	if !ok || filepath.Clean(m.Tree) != abs {
		return Repo{WorkTree: abs}
	}
	admin := AdminOf(abs)
	return Repo{WorkTree: abs, GitDir: RepoOf(abs), Index: filepath.Join(admin, "index"), Admin: admin, Source: m.Source, Remote: m.Remote}
}

// markers caches the markers read, by repository and the marker's
// modification time: the poller resolves the same trees every cycle.
var markers sync.Map // repo -> cachedMarker

type cachedMarker struct {
	stamp string
	m     Marker
	ok    bool
}

func readMarker(repo string) (Marker, bool) {
	path := filepath.Join(repo, MarkerFile)
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return Marker{}, false
	}
	stamp := fmt.Sprintf("%d.%d", fi.ModTime().UnixNano(), fi.Size())
	if v, ok := markers.Load(repo); ok && v.(cachedMarker).stamp == stamp {
		c := v.(cachedMarker)
		return c.m, c.ok
	}
	var m Marker
	b, err := os.ReadFile(path)
	ok := err == nil && json.Unmarshal(b, &m) == nil && m.Tree != "" && m.Source != "" && m.Remote != ""
	markers.Store(repo, cachedMarker{stamp: stamp, m: m, ok: ok})
	return m, ok
}

// WriteMarker records m in repo (0644: the session's git reads the
// repository, never this file's secrets, for it has none).
func WriteMarker(repo string, m Marker) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(repo, MarkerFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("record what the repository %s is for: %w", repo, err)
	}
	return nil
}

// Env pins GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE for a tree the loop
// made (nothing for a plain checkout).
func (r Repo) Env() []string {
	if !r.Pinned() {
		return nil
	}
	return []string{"GIT_DIR=" + r.GitDir, "GIT_WORK_TREE=" + r.WorkTree, "GIT_INDEX_FILE=" + r.Index}
}

// Args are git's arguments for args run in r: -C the tree, Settings, args
// (the program itself not included).
func (r Repo) Args(args ...string) []string {
	out := append([]string{"-C", r.WorkTree}, Settings...)
	return append(out, args...)
}

// Unpinned are the variables that would redirect git to another
// repository, index or configuration: dropped from any environment the
// loop's git inherits before the pins are added.
var Unpinned = []string{"GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM",
	"GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_ATTR_SOURCE"}

// Environ returns env without Unpinned (and GIT_CONFIG_KEY_n/VALUE_n),
// with r's pins added.
func (r Repo) Environ(env []string) []string {
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		if !unpinned(kv) {
			out = append(out, kv)
		}
	}
	return append(out, r.Env()...)
}

func unpinned(kv string) bool {
	name, _, _ := strings.Cut(kv, "=")
	return slices.Contains(Unpinned, name) || strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
}
