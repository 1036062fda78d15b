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
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/the-loop/the-loop/internal/atomicfile"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/markdown"
)

// Slot is one produces/validates entry: the names it accepts, any one of
// which satisfies it ("requirements.md|bugfix.md").
type Slot struct {
	Entry string
	Names []string
}

// Label joins the slot's names for messages: "requirements.md, bugfix.md".
func (s Slot) Label() string { return strings.Join(s.Names, ", ") }

// ParseSlots turns raw entries into slots; entries naming nothing are dropped.
func ParseSlots(entries []string) []Slot {
	out := make([]Slot, 0, len(entries))
	for _, e := range entries {
		if names := runtime.Alternatives(e); len(names) > 0 {
			out = append(out, Slot{Entry: e, Names: names})
		}
	}
	return out
}

// NodeSlots returns the slots the current node produces.
func NodeSlots(hc *runtime.HookContext) []Slot {
	if hc.Node == nil {
		return nil
	}
	return ParseSlots(hc.Node.Produces)
}

// ParamSlots returns the slots a hook parameter names (a string entry or a
// list of entries).
func ParamSlots(hc *runtime.HookContext, key string) []Slot {
	return ParseSlots(hc.ListParam(key))
}

// Dir gives confined access to a work item's spec folder: names are
// checked with filepath.IsLocal and every read or write goes through an
// os.Root opened on the folder, so neither ".." nor a symlink can reach a
// file outside it. It caches nothing: each hook call sees the disk as it is.
type Dir struct {
	abs    string
	repo   string
	root   *os.Root           // nil when the folder does not exist yet
	cache  *runtime.EvalCache // shared reads under check; nil when writing
	shared bool               // root belongs to the cache
}

// Open opens the work item's spec folder. A folder that does not exist is
// not an error: every artifact in it is simply absent.
func Open(hc *runtime.HookContext) (*Dir, error) {
	dir := hc.WorkItem.SpecDir
	if strings.TrimSpace(dir) == "" {
		return nil, errors.New("the work item has no spec folder (WorkItem.SpecDir is empty)")
	}
	d := &Dir{abs: filepath.Clean(dir), repo: hc.Repo, cache: hc.Cache}
	if d.cache != nil {
		// Under check the folder handle lives for the whole evaluation.
		v, err := d.cache.Do("root\x00"+d.abs, func() (any, error) {
			root, err := openRoot(d)
			if root != nil {
				d.cache.OnClose(func() { _ = root.Close() })
			}
			return root, err
		})
		if err != nil {
			return nil, err
		}
		d.root, d.shared = v.(*os.Root), true
		return d, nil
	}
	root, err := openRoot(d)
	if err != nil {
		return nil, err
	}
	d.root = root
	return d, nil
}

// openRoot opens the folder; a folder that does not exist yields nil.
func openRoot(d *Dir) (*os.Root, error) {
	root, err := os.OpenRoot(d.abs)
	switch {
	case err == nil:
		return root, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	default:
		return nil, fmt.Errorf("open spec folder %s: %w", d.Rel(""), err)
	}
}

// Close releases the folder handle (a shared one is released by the cache).
func (d *Dir) Close() {
	if d.root != nil && !d.shared {
		_ = d.root.Close()
	}
}

// Exists reports whether the folder itself exists.
func (d *Dir) Exists() bool { return d.root != nil }

// Present reports whether name exists inside the folder.
func (d *Dir) Present(name string) bool {
	if d.root == nil || !filepath.IsLocal(name) {
		return false
	}
	v, _ := d.cache.Do("stat\x00"+d.abs+"\x00"+name, func() (any, error) {
		_, err := d.root.Stat(name)
		return err == nil, nil
	})
	return v.(bool)
}

// Parsed is an artifact split into front matter and body, with its sections.
type Parsed struct {
	FrontMatter map[string]any
	Body        string
	Sections    map[string]string
}

// Parse splits text (the content of name) once per evaluation.
func (d *Dir) Parse(name, text string) Parsed {
	v, _ := d.cache.Do("parse\x00"+d.abs+"\x00"+name+"\x00"+strconv.Itoa(len(text)), func() (any, error) {
		fm, body := markdown.SplitFrontMatter(text)
		return Parsed{FrontMatter: fm, Body: body, Sections: markdown.Sections(body)}, nil
	})
	return v.(Parsed)
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
	if !filepath.IsLocal(name) {
		return "", fmt.Errorf("%q is not a file inside the spec folder", name)
	}
	if d.root == nil {
		return "", fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	v, err := d.cache.Do("read\x00"+d.abs+"\x00"+name, func() (any, error) {
		// Only regular files: a FIFO or device could block a check forever.
		if fi, err := d.root.Stat(name); err != nil {
			return "", err
		} else if !fi.Mode().IsRegular() {
			return "", fmt.Errorf("%s is not a regular file", name)
		}
		b, err := d.root.ReadFile(name)
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

// WriteAtomic replaces name with data (atomicfile.WriteIn), keeping the
// file's permissions.
func (d *Dir) WriteAtomic(name string, data []byte) error {
	if !filepath.IsLocal(name) {
		return fmt.Errorf("%q is not a file inside the spec folder", name)
	}
	if d.root == nil {
		return fmt.Errorf("the spec folder %s does not exist", d.Rel(""))
	}
	return atomicfile.WriteIn(d.root, name, data)
}

// WriteFile replaces name with data like WriteAtomic, first creating the
// folders name sits in (inside the spec folder, confined like every write).
func (d *Dir) WriteFile(name string, data []byte) error {
	if !filepath.IsLocal(name) {
		return fmt.Errorf("%q is not a file inside the spec folder", name)
	}
	if d.root == nil {
		return fmt.Errorf("the spec folder %s does not exist", d.Rel(""))
	}
	if dir := filepath.Dir(filepath.FromSlash(name)); dir != "." {
		if err := d.root.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", d.Rel(filepath.ToSlash(dir)), err)
		}
	}
	return atomicfile.WriteIn(d.root, filepath.FromSlash(name), data)
}

// AbsPath is name's absolute path.
func (d *Dir) AbsPath(name string) string {
	if name == "" {
		return d.abs
	}
	return filepath.Join(d.abs, filepath.FromSlash(name))
}

// Rel is the message path for name ("" = the folder itself): relative to the
// repository root and slash-separated when under it, else absolute.
func (d *Dir) Rel(name string) string {
	v, _ := d.cache.Do("rel\x00"+d.abs+"\x00"+name, func() (any, error) { return repoPath(d.repo, d.AbsPath(name)), nil })
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
	if !filepath.IsLocal(name) {
		return nil, fmt.Errorf("%q is not a file inside the spec folder", name)
	}
	if d.root == nil {
		return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	return d.root.ReadFile(name)
}

// Append appends s to an existing file in the folder; it never creates one.
func (d *Dir) Append(name, s string) error {
	if !filepath.IsLocal(name) || d.root == nil {
		return fmt.Errorf("%q is not a file inside the spec folder", name)
	}
	f, err := d.root.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("open %s for appending: %w", d.Rel(name), err)
	}
	if _, err := f.WriteString(s); err != nil {
		_ = f.Close()
		return fmt.Errorf("append to %s: %w", d.Rel(name), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", d.Rel(name), err)
	}
	return nil
}

// Subdirs lists the non-hidden sub-folders of dir, sorted; a dir that does
// not exist, or is not a folder, has none.
func (d *Dir) Subdirs(dir string) ([]string, error) {
	if d.root == nil {
		return nil, nil
	}
	f, err := d.root.Open(dir)
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
