package service

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/the-loop/the-loop/internal/lockfile"
)

// PollLockPath is the poller's single-instance lock file, beside the store
// at dbPath.
func PollLockPath(dbPath string) string { return dbPath + ".poll.lock" }

// PollerRunningError reports that another poller holds the lock on the same
// store. PID and Since come from the lock file and are zero when the holder
// has not written them yet.
type PollerRunningError struct {
	PID      int
	Since    string
	Store    string
	LockFile string
}

func (e *PollerRunningError) Error() string {
	who := "pid unknown"
	if e.PID > 0 {
		who = fmt.Sprintf("pid %d", e.PID)
	}
	if e.Since != "" {
		who += ", since " + e.Since
	}
	return fmt.Sprintf("another poller (%s) holds the lock %s on the store %s; stop that poller first, or point --db at another store (several pollers share one PostgreSQL store: store.url, see docs/deploy.md)",
		who, e.LockFile, e.Store)
}

// pollHolder is what a running poller writes into its lock file.
type pollHolder struct {
	PID   int    `json:"pid"`
	Since string `json:"since"`
}

// LockPoller takes the single-instance lock of the poller on the store at
// dbPath, without waiting: a second poller on the same store gets a
// *PollerRunningError naming the holder. The lock is a kernel file lock, so
// it dies with its holder however that exits (kill -9 included); nothing
// stale is ever left to clean up. Release it when the poller stops.
func LockPoller(dbPath string) (*lockfile.Lock, error) {
	abs, err := filepath.Abs(dbPath)
	if err != nil {
		return nil, fmt.Errorf("poller lock: %w", err)
	}
	path := PollLockPath(abs)
	l, err := lockfile.TryLock(path)
	if errors.Is(err, lockfile.ErrHeld) {
		e := &PollerRunningError{Store: abs, LockFile: path}
		if data, rerr := lockfile.ReadInfo(path); rerr == nil {
			var h pollHolder
			if json.Unmarshal(data, &h) == nil {
				e.PID, e.Since = h.PID, h.Since
			}
		}
		return nil, e
	}
	if err != nil {
		return nil, fmt.Errorf("poller lock: %w", err)
	}
	info, err := json.Marshal(pollHolder{PID: os.Getpid(), Since: time.Now().UTC().Format(time.RFC3339)})
	if err == nil {
		err = l.WriteInfo(info)
	}
	if err != nil {
		_ = l.Release()
		return nil, fmt.Errorf("poller lock: %w", err)
	}
	return l, nil
}
