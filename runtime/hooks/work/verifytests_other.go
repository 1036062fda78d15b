//go:build !unix

package work

import "os/exec"

// ownProcessGroup is a no-op where process groups are not available; the
// command's WaitDelay still bounds how long its output is waited for.
func ownProcessGroup(cmd *exec.Cmd) {}
