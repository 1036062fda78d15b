// Package specdir is how a hook reads and writes a work item's spec folder:
// confined to the folder (no "..", no symlink out), regular UTF-8 files
// only, reads shared across one check, and artifact slots — the produces
// and validates entries whose "a.md|b.md" alternatives any one of satisfies.
package specdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/the-loop/the-loop/runtime"
)

// Dir gives confined access to a work item's spec folder: names are
// checked with filepath.IsLocal and every read or write goes through an
// os.Root opened on the folder, so neither ".." nor a symlink can reach a
// file outside it. In an inner loop (WorkItem.LoopDir) the graph's records
// resolve to the loop's own folder, opened inside the spec folder, and
// never to the spec folder itself. It caches nothing: each hook call sees
// the disk as it is.
type Dir struct {
	item  folder
	loop  *folder // the inner loop's own folder; nil for the item's own loop
	graph *runtime.Graph
	repo  string
	cache *runtime.EvalCache // shared reads under check; nil when writing
}

// folder is one confined folder: the spec folder or an inner loop's.
type folder struct {
	abs    string
	rel    string   // under the spec folder, slash-separated ("" = the spec folder)
	root   *os.Root // nil when the folder does not exist yet
	shared bool     // root belongs to the cache
}

// Open opens the work item's spec folder (and an inner loop's own folder).
// A folder that does not exist is not an error: every artifact in it is
// simply absent.
func Open(hc *runtime.HookContext) (*Dir, error) {
	dir := hc.WorkItem.SpecDir
	if strings.TrimSpace(dir) == "" {
		return nil, errors.New("the work item has no spec folder (WorkItem.SpecDir is empty)")
	}
	if hc.Cache == nil {
		return openDir(hc)
	}
	// Under check every hook of an item opens the same folders: one Dir
	// serves them all (its roots belong to the cache, so Close keeps them).
	graph := ""
	if hc.Graph != nil {
		graph = hc.Graph.Name
	}
	v, err := hc.Cache.Do("dir\x00"+dir+"\x00"+hc.WorkItem.LoopDir+"\x00"+hc.Repo+"\x00"+graph, func() (any, error) { return openDir(hc) })
	if err != nil {
		return nil, err
	}
	return v.(*Dir), nil
}

// openDir opens the folders of hc's work item.
func openDir(hc *runtime.HookContext) (*Dir, error) {
	dir := hc.WorkItem.SpecDir
	d := &Dir{item: folder{abs: filepath.Clean(dir)}, graph: hc.Graph, repo: hc.Repo, cache: hc.Cache}
	if err := d.open(&d.item, func() (*os.Root, error) { return openRoot(d) }); err != nil {
		return nil, err
	}
	if loop := hc.WorkItem.LoopDir; loop != "" {
		if !filepath.IsLocal(filepath.FromSlash(loop)) {
			d.Close()
			return nil, fmt.Errorf("the inner loop's folder %q is not a folder inside the spec folder", loop)
		}
		d.loop = &folder{abs: filepath.Join(d.item.abs, filepath.FromSlash(loop)), rel: path.Clean(loop)}
		if err := d.open(d.loop, func() (*os.Root, error) { return openLoopRoot(d) }); err != nil {
			d.Close()
			return nil, err
		}
	}
	return d, nil
}

// open opens f's root, once per evaluation under check.
func (d *Dir) open(f *folder, opener func() (*os.Root, error)) error {
	if d.cache == nil {
		root, err := opener()
		f.root = root
		return err
	}
	v, err := d.cache.Do("root\x00"+f.abs, func() (any, error) {
		root, err := opener()
		if root != nil {
			d.cache.OnClose(func() { _ = root.Close() })
		}
		return root, err
	})
	if err != nil {
		return err
	}
	f.root, f.shared = v.(*os.Root), true
	return nil
}

// openRoot opens the spec folder; a folder that does not exist yields nil.
func openRoot(d *Dir) (*os.Root, error) {
	root, err := os.OpenRoot(d.item.abs)
	return absentIsNil(root, err, "open spec folder "+d.Rel(""))
}

// openLoopRoot opens the inner loop's folder through the spec folder's
// root, so a symlink cannot carry it outside; absent yields nil.
func openLoopRoot(d *Dir) (*os.Root, error) {
	if d.item.root == nil {
		return nil, nil
	}
	root, err := d.item.root.OpenRoot(filepath.FromSlash(d.loop.rel))
	return absentIsNil(root, err, "open the inner loop's folder "+repoPath(d.repo, d.loop.abs))
}

// absentIsNil is an opened folder: nil without an error when it does not
// exist, the error wrapped with what was opened otherwise.
func absentIsNil(root *os.Root, err error, what string) (*os.Root, error) {
	switch {
	case err == nil:
		return root, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	default:
		return nil, fmt.Errorf("%s: %w", what, err)
	}
}

// Close releases the folder handles (shared ones are released by the cache).
func (d *Dir) Close() {
	for _, f := range []*folder{&d.item, d.loop} {
		if f != nil && f.root != nil && !f.shared {
			_ = f.root.Close()
		}
	}
}

// at is the folder name lives in: the loop's own folder for one of the
// graph's records in an inner loop, else the spec folder.
func (d *Dir) at(name string) *folder {
	if d.loop != nil && d.graph.IsRecord(name) {
		return d.loop
	}
	return &d.item
}

// LoopDir is the inner loop's own folder under the spec folder
// (pr-loops/pr-7), "" for the item's own loop.
func (d *Dir) LoopDir() string {
	if d.loop == nil {
		return ""
	}
	return d.loop.rel
}

// Exists reports whether the folder itself exists.
func (d *Dir) Exists() bool { return d.item.root != nil }

// Present reports whether name exists inside the folder.
func (d *Dir) Present(name string) bool {
	f := d.at(name)
	if f.root == nil || !filepath.IsLocal(name) {
		return false
	}
	switch d.kindOf(f, filepath.ToSlash(name)) {
	case kindAbsent:
		return false
	case kindFile, kindDir:
		return true
	}
	v, _ := d.cache.Do("stat\x00"+f.abs+"\x00"+name, func() (any, error) {
		_, err := f.root.Stat(name)
		return err == nil, nil
	})
	return v.(bool)
}

// PresentOf returns the slot's names that exist, in slot order.
func (d *Dir) PresentOf(s Slot) []string {
	var out []string
	for _, n := range s.Names {
		if d.Present(n) {
			out = append(out, n)
		}
	}
	return out
}

// Read returns name's text; it refuses names outside the folder and text
// that is not UTF-8.
func (d *Dir) Read(name string) (string, error) {
	f := d.at(name)
	if !filepath.IsLocal(name) {
		return "", fmt.Errorf("%q is not a file inside the spec folder", name)
	}
	if f.root == nil {
		return "", fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	v, err := d.cache.Do("read\x00"+f.abs+"\x00"+name, func() (any, error) {
		// One open of a file the folder's listing shows regular; none of
		// one it shows absent (the error is the one Stat gives).
		slash := filepath.ToSlash(name)
		switch k := d.kindOf(f, slash); {
		case k == kindAbsent:
			return "", &fs.PathError{Op: "statat", Path: name, Err: syscall.ENOENT}
		case k == kindFile && !strings.Contains(slash, "/"):
			if text, ok, err := readListed(d.listingOf(f, ""), name); ok {
				return text, err
			}
		}
		// Only regular files: a FIFO or device could block a check forever.
		if fi, err := f.root.Stat(name); err != nil {
			return "", err
		} else if !fi.Mode().IsRegular() {
			return "", fmt.Errorf("%s is not a regular file", name)
		}
		b, err := f.root.ReadFile(name)
		if err != nil {
			return "", err
		}
		if !utf8.Valid(b) {
			return "", fmt.Errorf("%s is not UTF-8 text", name)
		}
		return string(b), nil
	})
	return v.(string), err
}

// AbsPath is name's absolute path.
func (d *Dir) AbsPath(name string) string {
	f := d.at(name)
	if name == "" {
		return f.abs
	}
	return filepath.Join(f.abs, filepath.FromSlash(name))
}

// Rel is the message path for name ("" = the folder itself): relative to the
// repository root and slash-separated when under it, else absolute.
func (d *Dir) Rel(name string) string {
	f := d.at(name)
	v, _ := d.cache.Do("rel\x00"+f.abs+"\x00"+name, func() (any, error) { return repoPath(d.repo, d.AbsPath(name)), nil })
	return v.(string)
}

// repoPath renders abs relative to repo (slash-separated) when it lies
// inside it, else returns abs unchanged.
func repoPath(repo, abs string) string {
	if repo == "" {
		return abs
	}
	r, err := filepath.Rel(repo, abs)
	if err != nil || !filepath.IsLocal(r) {
		return abs
	}
	return filepath.ToSlash(r)
}

// RefuseUnsafeNames returns one message per name, across the given slots,
// that would resolve outside the spec folder (absolute, "..", empty after
// cleaning). Such a name is never read.
func (d *Dir) RefuseUnsafeNames(groups ...[]Slot) []runtime.Message {
	var out []runtime.Message
	seen := map[string]bool{}
	for _, g := range groups {
		for _, s := range g {
			for _, n := range s.Names {
				if filepath.IsLocal(n) || seen[n] {
					continue
				}
				seen[n] = true
				out = append(out, runtime.Errorf(d.Rel(""),
					"artifact name %s is not a file inside the spec folder — name it relative to %s, with no .. and no leading /",
					strconv.Quote(n), d.Rel("")))
			}
		}
	}
	return out
}

// Bytes returns name's raw content, bypassing the read cache and the text
// checks (a hash of what is on disk).
func (d *Dir) Bytes(name string) ([]byte, error) {
	f := d.at(name)
	if !filepath.IsLocal(name) {
		return nil, fmt.Errorf("%q is not a file inside the spec folder", name)
	}
	if f.root == nil {
		return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	return f.root.ReadFile(name)
}

// Subdirs lists the non-hidden sub-folders of dir, sorted; a dir that does
// not exist, or is not a folder, has none.
func (d *Dir) Subdirs(dir string) ([]string, error) {
	if d.item.root == nil {
		return nil, nil
	}
	if c := filepath.Clean(dir); filepath.IsLocal(c) && c != "." && d.kindOf(&d.item, filepath.ToSlash(c)) == kindAbsent {
		return nil, nil // the folder's listing knows it is not there
	}
	f, err := d.item.root.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", d.Rel(dir), err)
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, nil // not a directory (a stray file named like one): nothing in it
	}
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") && e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}
