package specdir

import (
	"errors"
	"os"
	"syscall"
	"unsafe"
)

// readDirKinds lists the folder open as dir from its directory entries'
// types (getdents64), with no stat per entry.
func readDirKinds(dir *os.File) (map[string]entryKind, error) {
	rc, err := dir.SyscallConn()
	if err != nil {
		return nil, err
	}
	out := map[string]entryKind{}
	buf := make([]byte, 16<<10)
	for {
		var n int
		var rerr error
		if err := rc.Read(func(fd uintptr) bool {
			n, rerr = syscall.ReadDirent(int(fd), buf)
			return !errors.Is(rerr, syscall.EAGAIN)
		}); err != nil {
			return nil, err
		}
		if rerr != nil {
			return nil, rerr
		}
		if n <= 0 {
			return out, nil
		}
		parseDirents(buf[:n], out)
	}
}

// parseDirents adds each linux_dirent64 record in b to out.
func parseDirents(b []byte, out map[string]entryKind) {
	const nameOff = int(unsafe.Offsetof(syscall.Dirent{}.Name))
	for len(b) >= nameOff {
		de := (*syscall.Dirent)(unsafe.Pointer(&b[0]))
		reclen := int(de.Reclen)
		if reclen < nameOff || reclen > len(b) {
			return
		}
		name := b[nameOff:reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if s := string(name); s != "." && s != ".." {
			switch de.Type {
			case syscall.DT_REG:
				out[s] = kindFile
			case syscall.DT_DIR:
				out[s] = kindDir
			default: // symlinks, FIFOs, devices, and DT_UNKNOWN
				out[s] = kindOther
			}
		}
		b = b[reclen:]
	}
}

// readAt reads name in the folder open as dir: openat with O_NOFOLLOW (a
// single name, so nothing outside the folder) and O_NONBLOCK (a FIFO put
// there since the listing cannot block the read), then fstat on what was
// opened, which must be a regular file.
func readAt(dir *os.File, name string) ([]byte, bool, error) {
	rc, err := dir.SyscallConn()
	if err != nil {
		return nil, false, nil
	}
	var fd int
	var oerr error
	if err := rc.Control(func(dfd uintptr) {
		for {
			fd, oerr = syscall.Openat(int(dfd), name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
			if !errors.Is(oerr, syscall.EINTR) {
				return
			}
		}
	}); err != nil {
		return nil, false, nil
	}
	if oerr != nil {
		return nil, true, &os.PathError{Op: "open", Path: name, Err: oerr}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, true, &os.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, true, errNotRegular(name)
	}
	b := make([]byte, 0, st.Size+1)
	for {
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, true, &os.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			return b, true, nil
		}
		b = b[:len(b)+n]
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // it grew while read: make room
		}
	}
}
