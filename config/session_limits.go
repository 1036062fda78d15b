package config

import (
	"fmt"
	"time"
)

// Runners a sessions: block names.
const (
	RunnerProcess = "process"
	RunnerTmux    = "tmux"
)

// SessionLimits is the supervisor's part of the `sessions:` block: how many
// sessions run, how, for how long and on what budget. Package sessions
// (agents/sessions) enforces them.
type SessionLimits struct {
	// Max caps live sessions across all items (default 4).
	Max int `yaml:"max"`
	// Runner is process (default: a supervised child) or tmux (a detached
	// tmux session a human can attach to).
	Runner string `yaml:"runner"`
	// TimeLimitSeconds stops a session that runs longer (default 7200).
	TimeLimitSeconds int `yaml:"timeLimitSeconds"`
	// StopGraceSeconds is how long a stopped session gets between SIGTERM
	// and SIGKILL (default 10).
	StopGraceSeconds int `yaml:"stopGraceSeconds"`
	// DrainSeconds is how long a session may keep running after its item
	// left its node (it claimed the node and is wrapping up) before it is
	// stopped (default 120).
	DrainSeconds int `yaml:"drainSeconds"`
	// Budget caps what one work item's sessions may use, summed.
	Budget Budget `yaml:"budget"`
	// RepositoryBudget caps what all sessions of one repository may use
	// within a rolling window.
	RepositoryBudget RepositoryBudget `yaml:"repositoryBudget"`
	// Relaunch bounds how a session that ended with its node unmet is
	// launched again.
	Relaunch Relaunch `yaml:"relaunch"`
	// Confinement, User and Sandbox say how sessions are confined
	// (sessions.confinement: auto or none, sessions.user, sessions.sandbox).
	SessionConfinement `yaml:",inline"`
	// MaxTranscriptBytes holds a session's transcript (and its stderr.log)
	// to this size; past it the oldest output is cut and the tail kept
	// (default 64 MiB).
	MaxTranscriptBytes int64 `yaml:"maxTranscriptBytes"`
}

// DefaultMaxTranscriptBytes is sessions.maxTranscriptBytes when unset;
// MinTranscriptBytes is the least it may be.
const (
	DefaultMaxTranscriptBytes = 64 << 20
	MinTranscriptBytes        = 64 << 10
)

// Budget is a limit on what sessions use (sessions.budget per work item,
// sessions.repositoryBudget per repository), the same for every harness; 0
// leaves a figure unlimited. A session whose harness cannot measure a
// limited figure is not launched.
type Budget struct {
	Turns   int     `yaml:"turns"`
	Tokens  int64   `yaml:"tokens"`
	CostUSD float64 `yaml:"costUsd"`
	// WallSeconds caps the sessions' run time, summed.
	WallSeconds int `yaml:"wallSeconds"`
}

// RepositoryBudget is a limit on what every session of one repository
// uses within the last WindowHours (default 720, thirty days). A
// repository over it gets no session until its spend in the window falls
// below the limit; its items are held, not escalated.
type RepositoryBudget struct {
	Budget      `yaml:",inline"`
	WindowHours int `yaml:"windowHours"`
}

// Window is the repository budget's window.
func (b RepositoryBudget) Window() time.Duration {
	return time.Duration(b.WindowHours) * time.Hour
}

// Set reports whether any figure is limited.
func (b Budget) Set() bool { return b.Turns > 0 || b.Tokens > 0 || b.CostUSD > 0 || b.WallSeconds > 0 }

// Relaunch is sessions.relaunch: how a session is launched again.
type Relaunch struct {
	// Max is how many relaunches an item gets for one node before it
	// escalates (default 3; the first launch is not a relaunch).
	Max int `yaml:"max"`
	// BackoffSeconds is the wait before the first relaunch, doubled for
	// each further one (default 30) up to MaxBackoffSeconds (default 600).
	BackoffSeconds    int `yaml:"backoffSeconds"`
	MaxBackoffSeconds int `yaml:"maxBackoffSeconds"`
}

// WithDefaults returns c with every unset value defaulted.
func (c SessionLimits) WithDefaults() SessionLimits {
	if c.Max == 0 {
		c.Max = 4
	}
	if c.Runner == "" {
		c.Runner = RunnerProcess
	}
	if c.TimeLimitSeconds == 0 {
		c.TimeLimitSeconds = 7200
	}
	if c.StopGraceSeconds == 0 {
		c.StopGraceSeconds = 10
	}
	if c.DrainSeconds == 0 {
		c.DrainSeconds = 120
	}
	if c.Relaunch.Max == 0 {
		c.Relaunch.Max = 3
	}
	if c.Relaunch.BackoffSeconds == 0 {
		c.Relaunch.BackoffSeconds = 30
	}
	if c.Relaunch.MaxBackoffSeconds == 0 {
		c.Relaunch.MaxBackoffSeconds = 600
	}
	if c.RepositoryBudget.WindowHours == 0 {
		c.RepositoryBudget.WindowHours = 720
	}
	if c.Confinement == "" {
		c.Confinement = ConfinementAuto
	}
	if c.MaxTranscriptBytes == 0 {
		c.MaxTranscriptBytes = DefaultMaxTranscriptBytes
	}
	return c
}

// Validate checks c; key is its path for messages (e.g. "sessions").
func (c SessionLimits) Validate(key string) error {
	bad := func(field, format string, args ...any) error {
		return badKey(key+"."+field, format, args...)
	}
	switch {
	case c.Max < 0:
		return bad("max", "%d is negative; give how many sessions may run at once (default 4)", c.Max)
	case c.Runner != "" && c.Runner != RunnerProcess && c.Runner != RunnerTmux:
		return bad("runner", "%q is not one of process, tmux", c.Runner)
	case c.TimeLimitSeconds < 0:
		return bad("timeLimitSeconds", "%d is negative; give the most seconds one session may run (default 7200)", c.TimeLimitSeconds)
	case c.StopGraceSeconds < 0:
		return bad("stopGraceSeconds", "%d is negative", c.StopGraceSeconds)
	case c.DrainSeconds < 0:
		return bad("drainSeconds", "%d is negative", c.DrainSeconds)
	case c.Budget.Turns < 0 || c.Budget.Tokens < 0 || c.Budget.CostUSD < 0 || c.Budget.WallSeconds < 0:
		return bad("budget", "limits cannot be negative; 0 leaves a figure unlimited")
	case c.RepositoryBudget.Turns < 0 || c.RepositoryBudget.Tokens < 0 || c.RepositoryBudget.CostUSD < 0 || c.RepositoryBudget.WallSeconds < 0:
		return bad("repositoryBudget", "limits cannot be negative; 0 leaves a figure unlimited")
	case c.RepositoryBudget.WindowHours < 0:
		return bad("repositoryBudget.windowHours", "%d is negative; give the window in hours (default 720, thirty days)", c.RepositoryBudget.WindowHours)
	case c.Relaunch.Max < 0:
		return bad("relaunch.max", "%d is negative; give how many relaunches an item gets per node (default 3)", c.Relaunch.Max)
	case c.Relaunch.BackoffSeconds < 0 || c.Relaunch.MaxBackoffSeconds < 0:
		return bad("relaunch", "backoff seconds cannot be negative")
	case c.Relaunch.MaxBackoffSeconds > 0 && c.Relaunch.BackoffSeconds > c.Relaunch.MaxBackoffSeconds:
		return bad("relaunch.backoffSeconds", "%d is above maxBackoffSeconds (%d)", c.Relaunch.BackoffSeconds, c.Relaunch.MaxBackoffSeconds)
	case c.MaxTranscriptBytes < 0 || (c.MaxTranscriptBytes > 0 && c.MaxTranscriptBytes < MinTranscriptBytes):
		return bad("maxTranscriptBytes", "%d is too small; give at least %d (64 KiB), or leave it out for 64 MiB", c.MaxTranscriptBytes, MinTranscriptBytes)
	}
	return c.SessionConfinement.Validate(key)
}

// TimeLimit is how long one session may run.
func (c SessionLimits) TimeLimit() time.Duration {
	return time.Duration(c.TimeLimitSeconds) * time.Second
}

// StopGrace is how long a stopped session gets between SIGTERM and SIGKILL.
func (c SessionLimits) StopGrace() time.Duration {
	return time.Duration(c.StopGraceSeconds) * time.Second
}

// Drain is how long a session may run on after its item left its node.
func (c SessionLimits) Drain() time.Duration { return time.Duration(c.DrainSeconds) * time.Second }

// Backoff is the wait before relaunch number n (1-based).
func (c SessionLimits) Backoff(n int) time.Duration {
	d := time.Duration(c.Relaunch.BackoffSeconds) * time.Second
	limit := time.Duration(c.Relaunch.MaxBackoffSeconds) * time.Second
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	if d > limit {
		d = limit
	}
	return d
}

// Over reports which limit spend passes ("" = none): turns, tokens, the
// known cost and the run time in seconds; at says whether reaching the
// limit counts (true when deciding on a new launch).
func (b Budget) Over(turns int, tokens int64, cost, wallSeconds float64, at bool) string {
	pass := func(v, limit float64) bool {
		if limit <= 0 {
			return false
		}
		if at {
			return v >= limit
		}
		return v > limit
	}
	switch {
	case pass(float64(turns), float64(b.Turns)):
		return fmt.Sprintf("%d turns of %d allowed", turns, b.Turns)
	case pass(float64(tokens), float64(b.Tokens)):
		return fmt.Sprintf("%d tokens of %d allowed", tokens, b.Tokens)
	case pass(cost, b.CostUSD):
		return fmt.Sprintf("$%.2f of $%.2f allowed", cost, b.CostUSD)
	case pass(wallSeconds, float64(b.WallSeconds)):
		return fmt.Sprintf("%s of run time of %s allowed", time.Duration(wallSeconds*float64(time.Second)).Round(time.Second), time.Duration(b.WallSeconds)*time.Second)
	}
	return ""
}
