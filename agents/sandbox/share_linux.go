//go:build linux

package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// POSIX ACL extended attributes (linux/posix_acl_xattr.h).
const (
	aclAccess   = "system.posix_acl_access"
	aclDefault  = "system.posix_acl_default"
	aclVersion  = 2
	aclUserObj  = 0x01
	aclUser     = 0x02
	aclGroupObj = 0x04
	aclMask     = 0x10
	aclOther    = 0x20
	aclNoID     = 0xffffffff
)

// Share lets the account uid read and write every file and directory under
// each path through POSIX ACLs, and makes what is created there later
// inherit that (default ACLs). Files stay the poller's. A tree shared
// before is walked again at each launch, and only what the poller wrote
// since with a narrow mode (its records, the folders it made, a file a
// gate rewrote) is opened to the account: one getxattr per entry.
func Share(uid int, paths ...string) error {
	for _, root := range paths {
		again := shared(root, uid)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type()&fs.ModeSymlink != 0 || !(d.IsDir() || d.Type().IsRegular()) {
				return nil
			}
			if again && grants(path, aclAccess, uid, 6) {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			return shareOne(path, fi.Mode(), uid, d.IsDir())
		})
		if err != nil {
			return fmt.Errorf("share %s with the sessions' account (uid %d): %w", root, uid, err)
		}
	}
	return nil
}

// shared reports whether root's default ACL already grants uid.
func shared(root string, uid int) bool { return grants(root, aclDefault, uid, 7) }

// grants reports whether path's ACL attr gives uid at least perm, its mask
// included.
func grants(path, attr string, uid int, perm uint16) bool {
	buf := make([]byte, 512)
	n, err := unix.Getxattr(path, attr, buf)
	if err != nil || n < 4 {
		return false
	}
	user, mask := uint16(0), uint16(7)
	for off := 4; off+8 <= n; off += 8 {
		switch binary.LittleEndian.Uint16(buf[off:]) {
		case aclUser:
			if int(binary.LittleEndian.Uint32(buf[off+4:])) == uid {
				user = binary.LittleEndian.Uint16(buf[off+2:])
			}
		case aclMask:
			mask = binary.LittleEndian.Uint16(buf[off+2:])
		}
	}
	return user&mask&perm == perm
}

func shareOne(path string, mode fs.FileMode, uid int, dir bool) error {
	owner, group, other := uint16(mode>>6&7), uint16(mode>>3&7), uint16(mode&7)
	perm := uint16(6) // rw
	if dir || owner&1 != 0 {
		perm = 7
	}
	if err := unix.Setxattr(path, aclAccess, acl(owner, perm, group, other, uid), 0); err != nil {
		if errors.Is(err, syscall.EOPNOTSUPP) {
			return fmt.Errorf("%s: the file system does not support POSIX ACLs (mount it with acl)", path)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	if dir {
		if err := unix.Setxattr(path, aclDefault, acl(7, 7, group|5, other, uid), 0); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}

// acl encodes an ACL granting uid perm beside the owner, group and other
// entries, with a mask that lets uid's entry count.
func acl(owner, perm, group, other uint16, uid int) []byte {
	entries := [][3]uint32{
		{aclUserObj, uint32(owner), aclNoID},
		{aclUser, uint32(perm), uint32(uid)},
		{aclGroupObj, uint32(group), aclNoID},
		{aclMask, uint32(perm | group), aclNoID},
		{aclOther, uint32(other), aclNoID},
	}
	b := make([]byte, 4+8*len(entries))
	binary.LittleEndian.PutUint32(b, aclVersion)
	for i, e := range entries {
		off := 4 + 8*i
		binary.LittleEndian.PutUint16(b[off:], uint16(e[0]))
		binary.LittleEndian.PutUint16(b[off+2:], uint16(e[1]))
		binary.LittleEndian.PutUint32(b[off+4:], e[2])
	}
	return b
}

// Reachable checks that the account can walk down to path: every
// directory above it must let the account search it (ACLs aside).
func Reachable(a Account, path string) error {
	path = resolve(path)
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		m := fi.Mode().Perm()
		ok := m&0o001 != 0
		if int(st.Uid) == a.UID {
			ok = m&0o100 != 0
		} else if int(st.Gid) == a.GID {
			ok = m&0o010 != 0
		}
		if !ok {
			return fmt.Errorf("the sessions' account %s (uid %d) cannot reach %s: %s (mode %04o, owner %d) does not let it through; put it under a directory others may search (e.g. /var/lib/the-loop, mode 0711)",
				a.Name, a.UID, path, dir, m, st.Uid)
		}
		if dir == "/" {
			return nil
		}
	}
}

// Own gives the account paths it owns outright: the session's private
// home and temp directory, its prompt and MCP config.
func Own(a Account, paths ...string) error {
	for _, root := range paths {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(path, a.UID, a.GID)
		})
		if err != nil {
			return fmt.Errorf("give %s to the sessions' account: %w", root, err)
		}
	}
	return nil
}
