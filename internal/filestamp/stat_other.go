//go:build !linux

package filestamp

import (
	"io/fs"
	"os"
)

// Supported reports whether stamps see change times here: where they do
// not, an edit that restores a file's size and modification time goes
// unseen, and callers that must see every edit do not rely on a Set.
const Supported = false

// sig is what one lstat says about a path, without the change time.
type sig struct {
	exists       bool
	mode         fs.FileMode
	size         int64
	mtime, ctime int64 // ctime stays 0
}

func (s sig) isDir() bool     { return s.mode.IsDir() }
func (s sig) isRegular() bool { return s.mode.IsRegular() }

func lstat(path string) sig {
	fi, err := os.Lstat(path)
	if err != nil {
		return sig{}
	}
	return sig{exists: true, mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// linkFree cannot ask the kernel here: the caller asks
// filepath.EvalSymlinks.
func linkFree(string) (free, known bool) { return false, false }
