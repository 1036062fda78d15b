//go:build linux

package sandbox

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Attr is how the poller starts the launcher for p: in new PID and mount
// namespaces (and, for a poller that is not root, a user namespace mapping
// its own ids, with the one capability the launcher needs to mount /proc),
// killed when the poller's thread that started it dies.
func Attr(p Policy) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if !p.Has(LayerPID) {
		return a
	}
	a.Cloneflags = syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
	if os.Geteuid() != 0 {
		uid, gid := os.Geteuid(), os.Getegid()
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		a.GidMappingsEnableSetgroups = false
		a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	}
	return a
}
