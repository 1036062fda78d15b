// Package atomicfile writes a file so that a reader sees either the old
// content or the new, never part of either: the data goes to a temporary
// file beside the target (".NAME.tmp-XXXX"), which is synced, given its
// mode, renamed over the target (or, for a file written once, linked to
// it), and the directory synced. A failed write removes its temporary file
// and leaves the target as it was.
package atomicfile

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// dir is where a file is replaced: an os.Root (confined to one folder) or
// the operating system's file system.
type dir interface {
	OpenFile(name string, flag int, perm os.FileMode) (*os.File, error)
	Rename(oldname, newname string) error
	Remove(name string) error
	Open(name string) (*os.File, error)
}

// osDir is the operating system's file system.
type osDir struct{}

func (osDir) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}
func (osDir) Rename(oldname, newname string) error { return os.Rename(oldname, newname) }
func (osDir) Remove(name string) error             { return os.Remove(name) }
func (osDir) Open(name string) (*os.File, error)   { return os.Open(name) }

// Write replaces the file at path with data and gives it mode perm. The
// directory must exist.
func Write(path string, data []byte, perm os.FileMode) error {
	return replace(osDir{}, path, data, perm)
}

// WriteNew writes data to a file at path that must not exist yet, with
// mode perm: the file appears whole or not at all, and an existing one is
// never replaced (the error wraps fs.ErrExist). The directory must exist.
func WriteNew(path string, data []byte, perm os.FileMode) error {
	tmp, err := writeTemp(osDir{}, path, data, perm)
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp) }()
	if err := os.Link(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	SyncDir(filepath.Dir(path))
	return nil
}

// WriteIn replaces name inside root with data, keeping the permission bits
// of the file it replaces (0644 for a new one). Neither ".." nor a symlink
// reaches outside root.
func WriteIn(root *os.Root, name string, data []byte) error {
	perm := os.FileMode(0o644)
	if info, err := root.Stat(name); err == nil {
		perm = info.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return replace(root, name, data, perm)
}

// SyncDir flushes a directory's entries after a rename; platforms that
// cannot fsync a directory are ignored.
func SyncDir(path string) {
	if d, err := os.Open(path); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// TempName is the name of the temporary file a write of target uses, with
// suffix random letters and digits.
func TempName(target, suffix string) string {
	return filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+".tmp-"+suffix)
}

func replace(d dir, name string, data []byte, perm os.FileMode) error {
	tmp, err := writeTemp(d, name, data, perm)
	if err != nil {
		return err
	}
	if err := d.Rename(tmp, name); err != nil {
		_ = d.Remove(tmp)
		return fmt.Errorf("write %s: rename into place: %w", name, err)
	}
	if dir, err := d.Open(filepath.Dir(name)); err == nil {
		_ = dir.Sync() // platforms that cannot fsync a directory are ignored
		_ = dir.Close()
	}
	return nil
}

// writeTemp writes data, synced and with mode perm, to a new temporary file
// beside name and returns its name; on failure nothing is left behind.
func writeTemp(d dir, name string, data []byte, perm os.FileMode) (string, error) {
	tmp := TempName(name, rand.Text())
	f, err := d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("write %s: create temp file: %w", name, err)
	}
	fail := func(step string, err error) (string, error) {
		_ = f.Close()
		_ = d.Remove(tmp)
		return "", fmt.Errorf("write %s: %s: %w", name, step, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail("write temp file", err)
	}
	// The mode is set on the open file, never by name: in a folder someone
	// else can write, the name could be a link by now.
	if err := f.Chmod(perm); err != nil {
		return fail("chmod temp file", err)
	}
	if err := f.Sync(); err != nil {
		return fail("fsync temp file", err)
	}
	if err := f.Close(); err != nil {
		_ = d.Remove(tmp)
		return "", fmt.Errorf("write %s: close temp file: %w", name, err)
	}
	return tmp, nil
}

var _ dir = (*os.Root)(nil)
