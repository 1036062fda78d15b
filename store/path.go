package store

import (
	"os"
	"path/filepath"
)

// EnvDB names the environment variable that overrides the database path.
const EnvDB = "THE_LOOP_DB"

// DefaultPath returns the database path used when no --db flag is given:
// $THE_LOOP_DB when set, else ${XDG_STATE_HOME:-~/.local/state}/the-loop/the-loop.db.
// A relative XDG_STATE_HOME is ignored, as the XDG base-directory rules
// require. It returns "" when neither variable is set and the home directory
// is unknown; Open reports that as a clear error.
func DefaultPath() string {
	if p := os.Getenv(EnvDB); p != "" {
		return p
	}
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "the-loop", "the-loop.db")
}
