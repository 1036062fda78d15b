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

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/config"
)

// Config is the supervisor's limits: the operator config's `sessions:`
// block, which package config owns and checks.
type Config = config.SessionLimits

// Budget and Relaunch are the sessions.budget and sessions.relaunch keys.
type (
	Budget   = config.Budget
	Relaunch = config.Relaunch
)

// Runners.
const (
	RunnerProcess = config.RunnerProcess
	RunnerTmux    = config.RunnerTmux
)

// RepositoryBudget is the sessions.repositoryBudget key.
type RepositoryBudget = config.RepositoryBudget

// over reports which limit of b the figures pass ("" = none); at as for
// config.Budget.Over.
func over(b Budget, f Figures, at bool) string {
	return b.Over(f.Turns, f.Tokens, f.CostUSD, f.WallSeconds, at)
}

// unmeasured says which figure b limits that a harness cannot measure
// ("" = it measures every one); key is b's config path.
func unmeasured(b Budget, m harness.Measure, key string) string {
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
