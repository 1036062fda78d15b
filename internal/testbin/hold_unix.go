//go:build unix

package testbin

import (
	"fmt"
	"os"
	"syscall"
)

// held keeps this process's shared locks open until it exits; the kernel
// releases them then, however the process ends.
var held []*os.File

// holdShared takes a shared lock on path for the life of the process.
func holdShared(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("hold the shared build folder: %w", err)
	}
	if err := flock(f, syscall.LOCK_SH); err != nil {
		_ = f.Close()
		return fmt.Errorf("hold the shared build folder: %w", err)
	}
	held = append(held, f)
	return nil
}

// unused reports whether no process holds path (its folder may go).
func unused(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return os.IsNotExist(err)
	}
	defer f.Close()
	return flock(f, syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// ownedByMe reports a file of this process's user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
