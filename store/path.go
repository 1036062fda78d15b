package store

import (
	"errors"
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
	if dir := defaultDir(); dir != "" {
		return filepath.Join(dir, "the-loop.db")
	}
	return ""
}

// defaultDir is ${XDG_STATE_HOME:-~/.local/state}/the-loop ("" when the
// home directory is unknown).
func defaultDir() string {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "the-loop")
}

// LocalDir is the folder of this host's own files beside the store at
// loc (the poll heartbeat, session files): the database file's folder, or
// for a PostgreSQL store ${XDG_STATE_HOME:-~/.local/state}/the-loop.
func LocalDir(loc string) (string, error) {
	if IsURL(loc) {
		if dir := defaultDir(); dir != "" {
			return dir, nil
		}
		return "", errors.New("the state folder is unknown (no home directory and no XDG_STATE_HOME); set sessions.stateDir and --status-file")
	}
	return filepath.Abs(filepath.Dir(loc))
}
