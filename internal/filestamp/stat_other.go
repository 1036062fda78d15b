//go:build !linux

package filestamp

// Supported reports whether stamps see change times here: where they do
// not, Unchanged cannot be trusted and callers must not rely on a Set.
const Supported = false

// sig is empty where change times are not read: every path looks alike.
type sig struct {
	exists       bool
	mtime, ctime int64
}

func (s sig) isDir() bool     { return false }
func (s sig) isRegular() bool { return false }

func lstat(string) sig { return sig{} }
