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

// ZombieStatus reports how pid ended when it has exited but its parent has
// not reaped it yet (a zombie), read from /proc/<pid>/stat's exit_code
// field (Linux). ok is false for a running or reaped process, or where
// /proc cannot tell.
func ZombieStatus(pid int) (status ExitStatus, ok bool) {
	if pid <= 0 || runtime.GOOS != "linux" {
		return ExitStatus{}, false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ExitStatus{}, false
	}
	s := string(b)
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(s) {
		return ExitStatus{}, false
	}
	fields := bytes.Fields(b[i+2:]) // fields[0] is field 3 (state)
	if len(fields) < 50 || string(fields[0]) != "Z" {
		return ExitStatus{}, false
	}
	var code int
	if _, err := fmt.Sscan(string(fields[49]), &code); err != nil { // field 52: exit_code
		return ExitStatus{}, false
	}
	ws := syscall.WaitStatus(code)
	if ws.Signaled() {
		return ExitStatus{Code: -1, Signal: signalName(ws.Signal())}, true
	}
	return ExitStatus{Code: ws.ExitStatus()}, true
}
