// Package sessions supervises the agent sessions the poller launches. Each
// cycle it is handed the desired state — the work items standing on agent
// nodes — and it keeps at most one live session per item, at most
// sessions.max in all (the rest queued in arming order), stops a session
// at its time limit or when its item's budget runs out, relaunches one
// that ended with its node still unmet (bounded backoff) and escalates
// after a bounded number of relaunches. Every session is a store record;
// every transition is an event in its item's log.
package sessions

import "github.com/the-loop/the-loop/config"

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
