package hooks

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/markdown"
)

// slot is one produces/validates entry: the names it accepts, any one of
// which satisfies it ("requirements.md|bugfix.md").
type slot struct {
	entry string
	names []string
}

// label joins the slot's names for messages: "requirements.md, bugfix.md".
func (s slot) label() string { return strings.Join(s.names, ", ") }

// parseSlots turns raw entries into slots; entries naming nothing are dropped.
func parseSlots(entries []string) []slot {
	out := make([]slot, 0, len(entries))
	for _, e := range entries {
		if names := runtime.Alternatives(e); len(names) > 0 {
			out = append(out, slot{entry: e, names: names})
		}
	}
	return out
}

// nodeSlots returns the slots the current node produces.
func nodeSlots(hc *runtime.HookContext) []slot {
	if hc.Node == nil {
		return nil
	}
	return parseSlots(hc.Node.Produces)
}

// paramSlots returns the slots a hook parameter names (a string entry or a
// list of entries).
func paramSlots(hc *runtime.HookContext, key string) []slot {
	return parseSlots(hc.ListParam(key))
}

// specDir gives confined access to a work item's spec folder: names are
// checked with filepath.IsLocal and every read or write goes through an
// os.Root opened on the folder, so neither ".." nor a symlink can reach a
// file outside it. It caches nothing: each hook call sees the disk as it is.
type specDir struct {
	abs    string
	repo   string
	root   *os.Root           // nil when the folder does not exist yet
	cache  *runtime.EvalCache // shared reads under check; nil when writing
	shared bool               // root belongs to the cache
}

// openSpecDir opens the work item's spec folder. A folder that does not
// exist is not an error: every artifact in it is simply absent.
func openSpecDir(hc *runtime.HookContext) (*specDir, error) {
	dir := hc.WorkItem.SpecDir
	if strings.TrimSpace(dir) == "" {
		return nil, errors.New("the work item has no spec folder (WorkItem.SpecDir is empty)")
	}
	d := &specDir{abs: filepath.Clean(dir), repo: hc.Repo, cache: hc.Cache}
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
func openRoot(d *specDir) (*os.Root, error) {
	root, err := os.OpenRoot(d.abs)
	switch {
	case err == nil:
		return root, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	default:
		return nil, fmt.Errorf("open spec folder %s: %w", d.rel(""), err)
	}
}

// Close releases the folder handle (a shared one is released by the cache).
func (d *specDir) Close() {
	if d.root != nil && !d.shared {
		_ = d.root.Close()
	}
}

// present reports whether name exists inside the folder.
func (d *specDir) present(name string) bool {
	if d.root == nil || !filepath.IsLocal(name) {
		return false
	}
	v, _ := d.cache.Do("stat\x00"+d.abs+"\x00"+name, func() (any, error) {
		_, err := d.root.Stat(name)
		return err == nil, nil
	})
	return v.(bool)
}

// parsed is an artifact split into front matter and body, with its sections.
type parsed struct {
	fm       map[string]any
	body     string
	sections map[string]string
}

// parse splits text (the content of name) once per evaluation.
func (d *specDir) parse(name, text string) parsed {
	v, _ := d.cache.Do("parse\x00"+d.abs+"\x00"+name+"\x00"+strconv.Itoa(len(text)), func() (any, error) {
		fm, body := markdown.SplitFrontMatter(text)
		return parsed{fm: fm, body: body, sections: markdown.Sections(body)}, nil
	})
	return v.(parsed)
}

// presentOf returns the slot's names that exist, in slot order.
func (d *specDir) presentOf(s slot) []string {
	var out []string
	for _, n := range s.names {
		if d.present(n) {
			out = append(out, n)
		}
	}
	return out
}

// read returns name's text; it refuses names outside the folder and text
// that is not UTF-8.
func (d *specDir) read(name string) (string, error) {
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

// writeAtomic replaces name with data through a temporary file in the same
// folder (written, synced, renamed), keeping the file's permissions.
func (d *specDir) writeAtomic(name string, data []byte) error {
	if !filepath.IsLocal(name) {
		return fmt.Errorf("%q is not a file inside the spec folder", name)
	}
	if d.root == nil {
		return fmt.Errorf("the spec folder %s does not exist", d.rel(""))
	}
	perm := os.FileMode(0o644)
	if info, err := d.root.Stat(name); err == nil {
		perm = info.Mode().Perm()
	}
	tmp := filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".tmp-"+rand.Text())
	f, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("create a temporary file for %s: %w", name, err)
	}
	fail := func(step string, err error) error {
		_ = f.Close()
		_ = d.root.Remove(tmp)
		return fmt.Errorf("%s %s: %w", step, name, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail("write", err)
	}
	if err := f.Sync(); err != nil {
		return fail("sync", err)
	}
	if err := f.Close(); err != nil {
		_ = d.root.Remove(tmp)
		return fmt.Errorf("close %s: %w", name, err)
	}
	if err := d.root.Rename(tmp, name); err != nil {
		_ = d.root.Remove(tmp)
		return fmt.Errorf("rename into %s: %w", name, err)
	}
	if dir, err := d.root.Open(filepath.Dir(name)); err == nil {
		_ = dir.Sync()
		_ = dir.Close()
	}
	return nil
}

// absPath is name's absolute path.
func (d *specDir) absPath(name string) string {
	if name == "" {
		return d.abs
	}
	return filepath.Join(d.abs, filepath.FromSlash(name))
}

// rel is the message path for name ("" = the folder itself): relative to the
// repository root and slash-separated when under it, else absolute.
func (d *specDir) rel(name string) string {
	v, _ := d.cache.Do("rel\x00"+d.abs+"\x00"+name, func() (any, error) { return repoPath(d.repo, d.absPath(name)), nil })
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

// refuseUnsafeNames returns one message per name, across the given slots,
// that would resolve outside the spec folder (absolute, "..", empty after
// cleaning). Such a name is never read.
func (d *specDir) refuseUnsafeNames(groups ...[]slot) []runtime.Message {
	var out []runtime.Message
	seen := map[string]bool{}
	for _, g := range groups {
		for _, s := range g {
			for _, n := range s.names {
				if filepath.IsLocal(n) || seen[n] {
					continue
				}
				seen[n] = true
				out = append(out, runtime.Errorf(d.rel(""),
					"artifact name %s is not a file inside the spec folder — name it relative to %s, with no .. and no leading /",
					strconv.Quote(n), d.rel("")))
			}
		}
	}
	return out
}

// final builds a non-retriable block: the graph itself must change.
func final(hook string, msgs ...runtime.Message) runtime.Result {
	r := runtime.Blocked(hook, msgs...)
	r.Retriable = false
	return r
}

// truthy mirrors the graph's loose booleans: true, a non-empty string,
// list or map, or a non-zero number.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case int:
		return x != 0
	case int64:
		return x != 0
	case float64:
		return x != 0
	case []any:
		return len(x) > 0
	case []string:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}
