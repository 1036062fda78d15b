package runtime

import "time"

// RepoCommand is one of the repository's own commands, declared in its
// repository config: Key names it (lint, typeCheck, test), Argv is what
// runs, never through a shell.
type RepoCommand struct {
	Key  string
	Argv []string
}

// RepoCommands are the repository's own commands in the order they run,
// and the bound on each.
type RepoCommands struct {
	List []RepoCommand
	// TimeoutSeconds bounds one command (0: DefaultCommandTimeout).
	TimeoutSeconds int
}

// DefaultCommandTimeout bounds one repository command when the repository
// sets no bound.
const DefaultCommandTimeout = 900 * time.Second

// commandGrace is what a hook running commands gets beyond their bounds,
// for its own bookkeeping.
const commandGrace = 30 * time.Second

// Timeout is the bound on one command.
func (c RepoCommands) Timeout() time.Duration {
	if c.TimeoutSeconds > 0 {
		return time.Duration(c.TimeoutSeconds) * time.Second
	}
	return DefaultCommandTimeout
}

// Budget is how long a hook that runs every command may take (0 when none
// is declared).
func (c RepoCommands) Budget() time.Duration {
	if len(c.List) == 0 {
		return 0
	}
	return time.Duration(len(c.List))*c.Timeout() + commandGrace
}
