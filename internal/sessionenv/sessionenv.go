// Package sessionenv is the one definition of "inside a session the loop
// launched": the variables the launcher sets in every session's
// environment; Inside and Endpoint, which commands read to forward their
// calls to the poller instead of reaching the store, the config or the key
// themselves; and SessionOfProcess, which also finds the marker in an
// ancestor's environment, for refusing an operator's act.
//
// The variables are a courtesy, not the barrier: a confined session cannot
// read the store, the config or the key whatever its environment says.
package sessionenv

// The session's variables.
const (
	// ID is the session's id (every session has it, confined or not).
	ID = "THE_LOOP_SESSION"
	// Socket is the session's own socket to the poller (confined sessions).
	Socket = "THE_LOOP_SOCKET"
	// Capability authenticates the session on Socket.
	Capability = "THE_LOOP_CAPABILITY"
)

// Inside reports whether the process runs inside a session the loop
// launched.
func Inside(getenv func(string) string) bool { return getenv(ID) != "" }

// Endpoint returns the session's socket and capability; ok is false
// outside a confined session.
func Endpoint(getenv func(string) string) (socket, capability string, ok bool) {
	socket, capability = getenv(Socket), getenv(Capability)
	return socket, capability, socket != "" && capability != ""
}
