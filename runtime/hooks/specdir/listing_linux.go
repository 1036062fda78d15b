package specdir

import (
	"errors"
	"os"
	"syscall"
	"unsafe"
)

// openListing opens folder f's sub-folder sub ("" = f itself) for a
// listing. The spec folder itself is opened by its path, as its root was
// (os.OpenRoot follows the same path, symlinks included, so this opens
// nothing the root could not), with one open: the root's Open(".") would
// make an *os.File, which on Linux costs four fcntl and an epoll_ctl more
// per work item. Anything inside it, an inner loop's folder included, is
// opened through the root, which keeps it inside.
func openListing(f *folder, sub string) (*listing, error) {
	if sub == "" && f.rel == "" {
		for {
			fd, err := syscall.Open(f.abs, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if err != nil {
				return nil, &os.PathError{Op: "open", Path: f.abs, Err: err}
			}
			return &listing{fd: fd}, nil
		}
	}
	name := sub
	if name == "" {
		name = "."
	}
	dir, err := f.root.Open(name)
	if err != nil {
		return nil, err
	}
	rc, err := dir.SyscallConn()
	if err != nil {
		_ = dir.Close()
		return nil, err
	}
	var fd int
	if err := rc.Control(func(dfd uintptr) { fd = int(dfd) }); err != nil {
		_ = dir.Close()
		return nil, err
	}
	return &listing{fd: fd, file: dir}, nil
}

// closeFd closes a folder opened by openListing.
func closeFd(fd int) { _ = syscall.Close(fd) }

// readDirKinds lists the folder open as fd from its directory entries'
// types (getdents64), with no stat per entry.
func readDirKinds(fd int) (map[string]entryKind, error) {
	out := map[string]entryKind{}
	buf := make([]byte, 16<<10)
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
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
func readAt(dir int, name string) ([]byte, bool, error) {
	var fd int
	var oerr error
	for {
		fd, oerr = syscall.Openat(dir, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if !errors.Is(oerr, syscall.EINTR) {
			break
		}
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
