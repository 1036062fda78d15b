package filestamp

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

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

// linkFree reports whether p exists with no symbolic link on the way to
// it (openat2 with RESOLVE_NO_SYMLINKS); known is false where the kernel
// cannot say (openat2 absent or filtered), and the caller asks
// filepath.EvalSymlinks.
func linkFree(p string) (free, known bool) {
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS})
	switch {
	case err == nil:
		_ = unix.Close(fd)
		return true, true
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR):
		return false, true
	default:
		return false, false
	}
}
