package service

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const pollLockHelperEnv = "THE_LOOP_POLL_LOCK_HELPER_DB"

// TestPollLockHelper is not a test: it is the body of the child poller the
// single-instance test starts and kills.
func TestPollLockHelper(t *testing.T) {
	db := os.Getenv(pollLockHelperEnv)
	if db == "" {
		t.Skip("runs only as a child of TestASecondPollerIsRefusedUntilTheFirstDies")
	}
	l, err := LockPoller(db)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer l.Release()
	fmt.Println("locked")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until killed
	os.Exit(0)
}

// Fault 5: a second poller on the same store is refused at once, naming the
// holder, and the lock dies with its holder (kill -9).
func TestASecondPollerIsRefusedUntilTheFirstDies(t *testing.T) {
	db := filepath.Join(t.TempDir(), "state", "the-loop.db")
	child := exec.Command(os.Args[0], "-test.run=^TestPollLockHelper$", "-test.count=1")
	child.Env = append(os.Environ(), pollLockHelperEnv+"="+db)
	stdin, err := child.StdinPipe()
	require.NoError(t, err)
	defer stdin.Close()
	out, err := child.StdoutPipe()
	require.NoError(t, err)
	child.Stderr = os.Stderr
	require.NoError(t, child.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "locked", strings.TrimSpace(line))

	_, err = LockPoller(db)
	require.Error(t, err)
	var running *PollerRunningError
	require.True(t, errors.As(err, &running), "%v", err)
	assert.Equal(t, child.Process.Pid, running.PID)
	assert.Contains(t, err.Error(), fmt.Sprintf("another poller (pid %d, since %s) holds the lock", child.Process.Pid, running.Since))
	assert.NotEmpty(t, running.Since)

	require.NoError(t, child.Process.Signal(syscall.SIGKILL))
	_ = child.Wait()
	l, err := LockPoller(db)
	require.NoError(t, err, "the lock died with its holder")
	require.NoError(t, l.Release())
}
