package sessions

import "context"

// Scope is what a confined session's capability allows: calls for one work
// item (of one repository), and claims of the node — of the pull request's
// loop when PR > 0 — the session was launched for.
type Scope struct {
	Session  string
	Repo     string
	WorkItem string
	Node     string
	PR       int
	PRRepo   string
}

// Gateway is the poller's end of the confined sessions' sockets: Open
// listens on socket for one session and mints its capability; Close
// revokes it (the socket closes, and every connection on it ends).
type Gateway interface {
	Open(ctx context.Context, socket string, scope Scope) (capability string, err error)
	Close(session string)
}
