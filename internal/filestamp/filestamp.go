// Package filestamp records what a set of paths looked like (device,
// inode, type and mode, size, modification and change times), so that a
// later caller can tell with one lstat per path whether any of them
// changed since: a file rewritten, replaced, created, removed or
// re-permissioned. The change time cannot be set back by the file's owner,
// so an edit that restores the modification time is seen too.
//
// A stamp is trustworthy only for files whose times are older than the
// file system clock's grain: two edits within one tick can leave equal
// times. SettledBefore tells the caller whether every stamped time is older
// than a bound it chooses.
package filestamp

import (
	"os"
	"path/filepath"
	"time"
)

// Settle is how old every stamped time must be before a stamp is trusted:
// longer than the tick of any file system clock this runs on.
const Settle = time.Second

// Set is the stamps of the paths added to it. The zero value is empty and
// ready to use. It is not safe for concurrent use while it is built.
type Set struct {
	paths []string
	sigs  []sig
}

// Add stamps one path as it is now, without following a final symbolic
// link; an absent path is stamped as absent.
func (s *Set) Add(path string) {
	s.paths = append(s.paths, path)
	s.sigs = append(s.sigs, lstat(path))
}

// AddTree stamps dir and everything under it. It reports false, and the
// set must not be used, when the tree holds a symbolic link or anything
// other than folders and regular files (what those point to is not
// stamped), or more than max entries. An absent dir is stamped as absent.
func (s *Set) AddTree(dir string, max int) bool {
	root := lstat(dir)
	s.paths = append(s.paths, dir)
	s.sigs = append(s.sigs, root)
	if !root.exists || !root.isDir() {
		return !root.exists || root.isRegular()
	}
	n := 0
	var walk func(string) bool
	walk = func(d string) bool {
		entries, err := os.ReadDir(d)
		if err != nil {
			return false
		}
		for _, e := range entries {
			if n++; n > max {
				return false
			}
			p := filepath.Join(d, e.Name())
			sg := lstat(p)
			if !sg.exists || !(sg.isDir() || sg.isRegular()) {
				return false
			}
			s.paths = append(s.paths, p)
			s.sigs = append(s.sigs, sg)
			if sg.isDir() && !walk(p) {
				return false
			}
		}
		return true
	}
	return walk(dir)
}

// Unchanged reports whether every stamped path still looks as it did.
func (s *Set) Unchanged() bool {
	for i, p := range s.paths {
		if lstat(p) != s.sigs[i] {
			return false
		}
	}
	return true
}

// SettledBefore reports whether every stamped path that exists was last
// modified and last changed before t.
func (s *Set) SettledBefore(t time.Time) bool {
	bound := t.UnixNano()
	for _, sg := range s.sigs {
		if sg.exists && (sg.mtime >= bound || sg.ctime >= bound) {
			return false
		}
	}
	return true
}

// LeadsTo reports whether path, through its symbolic links as they are
// now, resolves to real: what comparing filepath.EvalSymlinks(path) with
// real reports. A path that is its own real path is asked of the kernel in
// one open where it can (no link on the way), instead of an lstat per
// component.
func LeadsTo(path, real string) bool {
	if path == real {
		if free, known := linkFree(real); known {
			return free
		}
	}
	resolved, err := filepath.EvalSymlinks(path)
	return err == nil && resolved == real
}
