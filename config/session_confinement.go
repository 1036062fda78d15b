package config

import (
	"fmt"
	"path/filepath"
)

// Modes of sessions.confinement.
const (
	// ConfinementAuto confines every session with every layer the host
	// offers and refuses to launch one when a required layer is missing
	// (agents/sandbox).
	ConfinementAuto = "auto"
	// ConfinementNone launches sessions unconfined, as the poller's user:
	// the operator's explicit opt-out.
	ConfinementNone = "none"
)

// SessionConfinement is how sessions are confined, part of the
// `sessions:` block. Package sandbox (agents/sandbox) applies it.
type SessionConfinement struct {
	// Confinement is auto (default) or none.
	Confinement string `yaml:"confinement"`
	// User is the sessions' account: a user name, or UID[:GID]. Required
	// under auto when the poller runs as root.
	User string `yaml:"user"`
	// Sandbox adds paths to what every session may read or write.
	Sandbox SandboxPaths `yaml:"sandbox"`
}

// SandboxPaths are extra paths a confined session may read (ReadOnly) or
// read and write (Writable), beyond its tree, home and temp directory and
// the system's directories.
type SandboxPaths struct {
	ReadOnly []string `yaml:"readOnly"`
	Writable []string `yaml:"writable"`
}

// Validate checks c; key is its path for messages (e.g. "sessions").
func (c SessionConfinement) Validate(key string) error {
	switch c.Confinement {
	case "", ConfinementAuto, ConfinementNone:
	default:
		return badKey(key+".confinement", "%q is not one of auto, none", c.Confinement)
	}
	if c.User != "" && c.Confinement == ConfinementNone {
		return badKey(key+".user", "applies only when sessions are confined; remove it, or remove confinement: none")
	}
	for _, l := range []struct {
		name  string
		paths []string
	}{{"readOnly", c.Sandbox.ReadOnly}, {"writable", c.Sandbox.Writable}} {
		for i, p := range l.paths {
			if !filepath.IsAbs(p) {
				return badKey(fmt.Sprintf("%s.sandbox.%s[%d]", key, l.name, i), "%q is not an absolute path", p)
			}
		}
	}
	return nil
}
