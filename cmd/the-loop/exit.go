package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/the-loop/the-loop/integrations/tickets"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/service"
)

// The exit codes of every command. exitCode below is the only place an
// error becomes one.
const (
	// exitOK: the command did what was asked (a wait for a human is ok).
	exitOK = 0
	// exitUnmet: unmet, refused, blocked or failed work — an unmet item, a
	// refused or blocked claim, a store or network failure.
	exitUnmet = 1
	// exitUsage: usage or configuration — a bad flag or argument, an
	// unknown loop, a config or repository config the loop cannot use.
	exitUsage = 2
)

// usageError is a bad invocation or configuration: "error: <msg>", exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// outcome ends a command with a verdict rather than a failure: unmet work,
// an operator act refused for its arguments, or the stop hook's block. Its
// message (optional) is printed on stderr as it is.
type outcome struct {
	code  int
	msg   string
	block bool // the stop hook's block
}

func (o *outcome) Error() string { return o.msg }

// Is makes every stop-hook block errStopBlocked.
func (o *outcome) Is(target error) bool {
	t, ok := target.(*outcome)
	return ok && t.block && o.block
}

// unmet ends a command whose work is unmet, refused or blocked (exit 1).
func unmet(msg string) error { return &outcome{code: exitUnmet, msg: msg} }

// refused ends an operator act the core refused for its arguments (exit 2).
func refused(err error) error { return &outcome{code: exitUsage, msg: "refused: " + err.Error()} }

// blockStop is the stop hook's block: Claude Code's protocol reads exit 2
// with the reason on stderr. Only `the-loop gate` returns it.
func blockStop(reason string) error {
	return &outcome{code: exitUsage, msg: reason, block: true}
}

// errStopBlocked matches (errors.Is) the error blockStop returns.
var errStopBlocked = &outcome{block: true}

// exitCode prints err and maps it to the process exit code.
func exitCode(stderr io.Writer, err error) int {
	var o *outcome
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &o):
		if o.msg != "" {
			fmt.Fprintln(stderr, o.msg)
		}
		return o.code
	case isUsage(err):
		fmt.Fprintf(stderr, "error: %s\n", err)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "error: %s\n", err)
		return exitUnmet
	}
}

// isUsage reports an error the user fixes in the invocation or the
// configuration.
func isUsage(err error) bool {
	var ue *usageError
	var oe *tickets.OptionError
	return errors.As(err, &ue) || errors.As(err, &oe) ||
		errors.Is(err, service.ErrInvalidRequest) || errors.Is(err, repoconfig.ErrInvalid) ||
		errors.Is(err, repoconfig.ErrUnreadable) || errors.Is(err, runtime.ErrReasonRequired)
}

// walkVerdict is the exit of a claim or an advance: a pass, a skip, a wait
// for a human or a claim already behind the pointer is ok; a block, a
// refusal or an escalation is unmet work.
func walkVerdict(status string) error {
	if runtime.Satisfied(status) || status == string(runtime.Wait) || status == runtime.StatusNoop {
		return nil
	}
	return unmet("")
}
