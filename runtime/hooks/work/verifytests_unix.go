//go:build unix

package work

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup runs the command in its own process group and makes
// cancellation kill the whole group, so a timed-out test run leaves no
// grandchildren behind holding its output open.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
