// Package sessions supervises the agent sessions the poller launches. Each
// cycle it is handed the desired state — the work items standing on agent
// nodes — and it keeps at most one live session per item, at most
// sessions.max in all (the rest queued in arming order), stops a session
// at its time limit or when its item's budget runs out, relaunches one
// that ended with its node still unmet (bounded backoff) and escalates
// after a bounded number of relaunches. Every session is a store record;
// every transition is an event in its item's log.
package sessions

import (
	"fmt"
	"time"

	"github.com/the-loop/the-loop/agents/harness"
)

// Runners.
const (
	RunnerProcess = "process"
	RunnerTmux    = "tmux"
)

// Config is the operator config's `sessions:` block.
type Config struct {
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
}

// Budget is a limit on what sessions use, the same for every harness; 0
// leaves a figure unlimited. A session whose harness cannot measure a
// limited figure is not launched (Measures).
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

// window is the repository budget's window.
func (b RepositoryBudget) window() time.Duration {
	return time.Duration(b.WindowHours) * time.Hour
}

// set reports whether any figure is limited.
func (b Budget) set() bool { return b.Turns > 0 || b.Tokens > 0 || b.CostUSD > 0 || b.WallSeconds > 0 }

// Relaunch configures relaunches.
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
func (c Config) WithDefaults() Config {
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
	return c
}

// Validate checks c; key is its path for messages (e.g. "sessions").
func (c Config) Validate(key string) error {
	bad := func(field, format string, args ...any) error {
		return &harness.FieldError{Key: key + "." + field, Msg: fmt.Sprintf(format, args...)}
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
	}
	return nil
}

func (c Config) timeLimit() time.Duration { return time.Duration(c.TimeLimitSeconds) * time.Second }
func (c Config) grace() time.Duration     { return time.Duration(c.StopGraceSeconds) * time.Second }
func (c Config) drain() time.Duration     { return time.Duration(c.DrainSeconds) * time.Second }

// backoff is the wait before relaunch number n (1-based).
func (c Config) backoff(n int) time.Duration {
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

// over reports which limit spend passes ("" = none); at says whether
// reaching the limit counts (true when deciding on a new launch).
func (b Budget) over(f Figures, at bool) string {
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
	case pass(float64(f.Turns), float64(b.Turns)):
		return fmt.Sprintf("%d turns of %d allowed", f.Turns, b.Turns)
	case pass(float64(f.Tokens), float64(b.Tokens)):
		return fmt.Sprintf("%d tokens of %d allowed", f.Tokens, b.Tokens)
	case pass(f.CostUSD, b.CostUSD):
		return fmt.Sprintf("$%.2f of $%.2f allowed", f.CostUSD, b.CostUSD)
	case pass(f.WallSeconds, float64(b.WallSeconds)):
		return fmt.Sprintf("%s of run time of %s allowed", time.Duration(f.WallSeconds*float64(time.Second)).Round(time.Second), time.Duration(b.WallSeconds)*time.Second)
	}
	return ""
}

// unmeasured says which limited figure a harness cannot measure ("" = it
// measures every figure b limits); key is b's config path.
func (b Budget) unmeasured(m harness.Measure, key string) string {
	for _, f := range []struct {
		set, measured bool
		name          string
	}{{b.Turns > 0, m.Turns, "turns"}, {b.Tokens > 0, m.Tokens, "tokens"}, {b.CostUSD > 0, m.Cost, "costUsd"}} {
		if f.set && !f.measured {
			return fmt.Sprintf("%s.%s is set and this session's %s cannot be measured: %s; or set %s.%s to 0", key, f.name, f.name, m.Why, key, f.name)
		}
	}
	return ""
}
