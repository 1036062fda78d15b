package config

import (
	"path/filepath"

	"github.com/the-loop/the-loop/internal/lazyre"
)

// Sessions is the `sessions:` block: the supervisor's limits (SessionLimits,
// inline) and where the poller keeps what its sessions need — their files and
// the items' working trees.
type Sessions struct {
	SessionLimits `yaml:",inline"`
	// Harness names the entry of `harnesses:` an item's sessions run when
	// its repository config names none ("" = the only configured harness).
	Harness string `yaml:"harness"`
	// Nodes pins a harness to a node (e.g. critic-review: gemini): that
	// node's sessions run it whatever else is chosen, unless the
	// repository config pins the node itself.
	Nodes map[string]string `yaml:"nodes"`
	// StateDir holds each session's files (prompt, MCP config, transcript)
	// and the tmux socket ("" = the folder of the state database).
	StateDir string `yaml:"stateDir"`
	// Trees holds the items' working trees, one folder per watched
	// repository ("" = StateDir/trees).
	Trees string `yaml:"trees"`
	// Remote is the remote agents push to and the trees sync from
	// (default origin).
	Remote string `yaml:"remote"`
	// CommitName and CommitEmail author the commits the loop makes for what
	// a gate writes ("" = the checkout's git config).
	CommitName  string `yaml:"commitName"`
	CommitEmail string `yaml:"commitEmail"`
}

// SessionsEnabled reports whether the poller launches agent sessions: at
// least one harness is configured. Without one the poller arms items and
// answers gates in the checkout, and launches nothing.
func (c *Config) SessionsEnabled() bool { return len(c.Harnesses) > 0 }

// DefaultHarness is the harness an item runs when its repository config
// names none: sessions.harness, else the only configured one ("" when
// neither decides).
func (c *Config) DefaultHarness() string {
	if c.Sessions.Harness != "" {
		return c.Sessions.Harness
	}
	if len(c.Harnesses) == 1 {
		for name := range c.Harnesses {
			return name
		}
	}
	return ""
}

func (s *Sessions) applyDefaults() {
	s.SessionLimits = s.SessionLimits.WithDefaults()
	orDefault(&s.Remote, "origin")
}

// validateSessions checks `harnesses:` and `sessions:`, returning a
// *FieldError so the message carries the line.
func (c *Config) validateSessions() error {
	if err := ValidateHarnesses(c.Harnesses); err != nil {
		return err
	}
	s := c.Sessions
	if err := s.SessionLimits.Validate("sessions"); err != nil {
		return err
	}
	if s.Harness != "" {
		if _, ok := c.Harnesses[s.Harness]; !ok {
			return badKey("sessions.harness", "%q is not a configured harness; name an entry of harnesses: or leave it out", s.Harness)
		}
	}
	for _, node := range sortedKeys(s.Nodes) {
		key := "sessions.nodes." + node
		if !nodeID().MatchString(node) {
			return badKey(key, "%q is not a node id (lower-case letters, digits and -, e.g. critic-review)", node)
		}
		if _, ok := c.Harnesses[s.Nodes[node]]; !ok {
			return badKey(key, "%q is not a configured harness; name an entry of harnesses:", s.Nodes[node])
		}
	}
	for _, kv := range [][2]string{{"sessions.stateDir", s.StateDir}, {"sessions.trees", s.Trees}} {
		if kv[1] != "" && !filepath.IsAbs(kv[1]) {
			return badKey(kv[0], "%q is not an absolute path; give one, or leave it out for the default", kv[1])
		}
	}
	if s.Remote != "" && !validRemoteName(s.Remote) {
		return badKey("sessions.remote", "%q is not a git remote name (letters, digits, '.', '_', '-')", s.Remote)
	}
	if (s.CommitName == "") != (s.CommitEmail == "") {
		return badKey("sessions.commitName", "give both commitName and commitEmail, or neither (the checkout's git config then authors the loop's commits)")
	}
	return nil
}

// nodeID is the shape of a node id a config may name.
var nodeID = lazyre.New(`^[a-z][a-z0-9-]{0,63}$`)

func validRemoteName(s string) bool {
	if s == "" || s[0] == '-' || s[0] == '.' || len(s) > 100 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
