package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"syscall"
)

// ReclaimGroup kills the process group led by pid, but only when that
// process still carries entry (NAME=value) in its environment — proof that
// it is the child a previous supervisor started, not an unrelated process
// that reused the pid. It reports whether the group was killed. Where the
// environment cannot be read (no /proc), nothing is killed.
func ReclaimGroup(pid int, entry string) (bool, error) {
	if pid <= 0 || entry == "" || runtime.GOOS != "linux" {
		return false, nil
	}
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ESRCH):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("read the environment of pid %d: %w", pid, err)
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if string(kv) == entry {
			return true, signalGroup(pid, syscall.SIGKILL)
		}
	}
	return false, nil
}
