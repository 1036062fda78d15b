//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the child as the leader of a new process group, with
// what attr adds.
func ownGroup(cmd *exec.Cmd, attr *syscall.SysProcAttr) {
	a := syscall.SysProcAttr{}
	if attr != nil {
		a = *attr
	}
	a.Setpgid, a.Pgid = true, 0
	cmd.SysProcAttr = &a
}

// signalGroup signals every process in the group led by pid. A group
// that no longer exists is not an error.
func signalGroup(pid int, sig syscall.Signal) error {
	if pid <= 0 {
		return nil
	}
	err := syscall.Kill(-pid, sig)
	if err == syscall.ESRCH {
		return nil
	}
	return err
}

var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT", syscall.SIGABRT: "SIGABRT",
	syscall.SIGKILL: "SIGKILL", syscall.SIGSEGV: "SIGSEGV", syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM",
	syscall.SIGTERM: "SIGTERM", syscall.SIGBUS: "SIGBUS", syscall.SIGUSR1: "SIGUSR1", syscall.SIGUSR2: "SIGUSR2",
}

func signalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return n
	}
	return "signal " + s.String()
}
