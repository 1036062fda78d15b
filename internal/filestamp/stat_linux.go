package filestamp

import "syscall"

// Supported reports whether stamps see change times here: where they do
// not, an edit that restores a file's size and modification time goes
// unseen, and callers that must see every edit do not rely on a Set.
const Supported = true

// sig is what one lstat says about a path.
type sig struct {
	exists       bool
	dev, ino     uint64
	mode         uint32
	size         int64
	mtime, ctime int64 // nanoseconds since the epoch
}

func (s sig) isDir() bool     { return s.mode&syscall.S_IFMT == syscall.S_IFDIR }
func (s sig) isRegular() bool { return s.mode&syscall.S_IFMT == syscall.S_IFREG }

func lstat(path string) sig {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return sig{}
	}
	return sig{exists: true, dev: uint64(st.Dev), ino: st.Ino, mode: st.Mode, size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}
