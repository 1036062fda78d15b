//go:build linux

package service

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/the-loop/the-loop/internal/lockfile"
)

// Wake implements Waker.
func (p PollerSignal) Wake(context.Context, string) error {
	abs, err := filepath.Abs(p.DBPath)
	if err != nil {
		return fmt.Errorf("wake the poller: %w", err)
	}
	path := PollLockPath(abs)
	pid, err := pollLockHolder(path)
	if err != nil {
		return fmt.Errorf("wake the poller: %w", err)
	}
	if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
		return fmt.Errorf("wake the poller (pid %d): %w", pid, err)
	}
	return nil
}

// pollLockHolder is the pid of the process holding the poll lock at path:
// the pid the lock file names, when the kernel's lock table shows that
// pid holding a lock on that very file.
func pollLockHolder(path string) (int, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, ErrNoPoller
		}
		return 0, err
	}
	data, err := lockfile.ReadInfo(path)
	if err != nil {
		return 0, err
	}
	var h pollHolder
	if json.Unmarshal(data, &h) != nil || h.PID <= 0 {
		return 0, ErrNoPoller
	}
	held, err := holdsLock(h.PID, uint64(st.Dev), st.Ino)
	if err != nil {
		return 0, err
	}
	if !held {
		return 0, ErrNoPoller
	}
	return h.PID, nil
}

// holdsLock reads /proc/locks for a lock pid holds on the file dev:ino.
func holdsLock(pid int, dev, ino uint64) (bool, error) {
	f, err := os.Open("/proc/locks")
	if err != nil {
		return false, fmt.Errorf("read the kernel's lock table: %w", err)
	}
	defer f.Close()
	major, minor := (dev>>8)&0xfff|(dev>>32)&^0xfff, dev&0xff|(dev>>12)&^0xff
	want := fmt.Sprintf("%02x:%02x:%d", major, minor, ino)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 19313 fe:00:10027056 0 EOF"
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] == "->" {
			continue
		}
		if p, err := strconv.Atoi(fields[4]); err == nil && p == pid && fields[5] == want {
			return true, nil
		}
	}
	return false, sc.Err()
}
