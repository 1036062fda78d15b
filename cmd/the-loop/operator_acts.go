package main

import (
	"fmt"

	"github.com/the-loop/the-loop/internal/sessionenv"
)

// refuseInSession refuses an operator act (graph force, graph skip, a
// change by graph repos) run from inside an agent session the loop
// launched: the process, or one of its ancestors, carries the session's
// marker (package sessionenv). A confined session cannot read the store,
// the config or the key anyway; this says so before anything is opened.
func refuseInSession(f *Factory, act string) error {
	inside := sessionenv.Session
	if f.Process {
		inside = sessionenv.SessionOfProcess
	}
	id, ok := inside(f.Getenv)
	if !ok {
		return nil
	}
	return unmet(fmt.Sprintf("error: %s is an operator act and is refused inside an agent session (%s=%s): run it from an operator's shell on the poller's host, not from a session the loop launched",
		act, sessionenv.ID, id))
}
