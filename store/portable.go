package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/the-loop/the-loop/internal/atomicfile"
)

// The portable record is a work item's committed state written beside its
// artifacts, so a checkout carries it: the database is the authority, the
// record its copy. Its file I/O is here, with the database's; what it holds
// (the state's JSON) is the runtime's.

// ErrNotRegular marks a portable record path that is not a regular file
// (a directory, a device, a socket): it is never read nor replaced.
var ErrNotRegular = errors.New("not a regular file")

// ReadPortable reads the portable record in specDir, trying names in
// order (the current file name, then older ones): its bytes and its path,
// or nil and "" when none exists.
func ReadPortable(specDir string, names ...string) ([]byte, string, error) {
	for _, name := range names {
		path := filepath.Join(specDir, name)
		fi, err := os.Stat(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err == nil && !fi.Mode().IsRegular() {
			return nil, path, fmt.Errorf("%s: %w", path, ErrNotRegular)
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, path, fmt.Errorf("read %s: %w", path, err)
		}
		return data, path, nil
	}
	return nil, "", nil
}

// WritePortable replaces the portable record at path with data, atomically
// (a reader sees the old record or the new one); a record that already
// holds exactly data is left alone. path lies under root, the repository
// the record belongs to: the folders between them are created, never root
// itself, so a repository (an item's working tree) deleted while its record
// is written stays deleted.
func WritePortable(root, path string, data []byte) error {
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, data) {
		return nil
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("write %s: not inside the repository %s", path, root)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer r.Close()
	if dir := filepath.Dir(rel); dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Join(root, dir), err)
		}
	}
	if err := atomicfile.WriteIn(r, rel, data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
