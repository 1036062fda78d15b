//go:build !linux

package sandbox

import (
	"errors"
	"io"
	"syscall"
)

// ExitSetup is the launcher's exit code when it could not confine the
// session.
const ExitSetup = 126

// Exec refuses: confinement needs Linux.
func Exec(string, []string, io.Writer) int { return ExitSetup }

// ProbeMain refuses: confinement needs Linux.
func ProbeMain(string, io.Writer, io.Writer) int { return ExitSetup }

// Attr is empty off Linux.
func Attr(Policy) *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

func landlockABI() int { return 0 }

// Share refuses: confinement needs Linux.
func Share(int, ...string) error { return errUnsupported }

// Reachable refuses: confinement needs Linux.
func Reachable(Account, string) error { return errUnsupported }

// Own refuses: confinement needs Linux.
func Own(Account, ...string) error { return errUnsupported }

var errUnsupported = errors.New("sandbox: session confinement needs Linux")
