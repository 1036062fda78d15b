package specdir

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/the-loop/the-loop/internal/atomicfile"
)

// WriteAtomic replaces name with data (atomicfile.WriteIn), keeping the
// file's permissions.
func (d *Dir) WriteAtomic(name string, data []byte) error {
	f := d.at(name)
	if !filepath.IsLocal(name) {
		return fmt.Errorf("%q is not a file inside the spec folder", name)
	}
	if f.root == nil {
		return fmt.Errorf("the spec folder %s does not exist", d.Rel(""))
	}
	return atomicfile.WriteIn(f.root, name, data)
}

// WriteFile replaces name with data like WriteAtomic, first creating the
// folders name sits in (inside the spec folder, confined like every write).
func (d *Dir) WriteFile(name string, data []byte) error {
	if !filepath.IsLocal(name) {
		return fmt.Errorf("%q is not a file inside the spec folder", name)
	}
	if d.item.root == nil {
		return fmt.Errorf("the spec folder %s does not exist", d.Rel(""))
	}
	f := d.at(name)
	if f.root == nil {
		// The inner loop's folder, created inside the spec folder.
		if err := d.item.root.MkdirAll(filepath.FromSlash(f.rel), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", repoPath(d.repo, f.abs), err)
		}
		root, err := d.item.root.OpenRoot(filepath.FromSlash(f.rel))
		if err != nil {
			return fmt.Errorf("open %s: %w", repoPath(d.repo, f.abs), err)
		}
		f.root, f.shared = root, false
	}
	if dir := filepath.Dir(filepath.FromSlash(name)); dir != "." {
		if err := f.root.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", repoPath(d.repo, filepath.Join(f.abs, dir)), err)
		}
	}
	return atomicfile.WriteIn(f.root, filepath.FromSlash(name), data)
}

// Append appends s to an existing file in the folder; it never creates one.
func (d *Dir) Append(name, s string) error {
	at := d.at(name)
	if !filepath.IsLocal(name) || at.root == nil {
		return fmt.Errorf("%q is not a file inside the spec folder", name)
	}
	f, err := at.root.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
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
