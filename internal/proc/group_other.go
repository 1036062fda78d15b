//go:build !unix

package proc

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup is a no-op where process groups are not available.
func ownGroup(*exec.Cmd, *syscall.SysProcAttr) {}

// signalGroup can only reach the child itself here.
func signalGroup(pid int, sig syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	return p.Kill()
}

func signalName(s syscall.Signal) string { return s.String() }
