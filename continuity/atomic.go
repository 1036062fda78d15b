package continuity

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeAtomic replaces path with data so a reader sees either the old file
// or the new one, never half of either: write a temp file in the same
// directory, fsync it, rename it over path, then fsync the directory.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: create temp file: %w", path, err)
	}
	name := tmp.Name()
	fail := func(step string, err error) error {
		_ = tmp.Close()
		_ = os.Remove(name)
		return fmt.Errorf("write %s: %s: %w", path, step, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail("write temp file", err)
	}
	if err := tmp.Sync(); err != nil {
		return fail("fsync temp file", err)
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("write %s: close temp file: %w", path, err)
	}
	if err := os.Chmod(name, 0o644); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("write %s: chmod temp file: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("write %s: rename into place: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// syncDir flushes a directory entry after a rename; platforms that cannot
// fsync a directory are ignored.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
