package work

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

// running reports a live process (not a zombie waiting to be reaped).
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

// TestATimedOutTestCommandLeavesNothingRunning: a test command that started
// a background process and ran past its time is killed with its whole
// process group.
func TestATimedOutTestCommandLeavesNothingRunning(t *testing.T) {
	requireSh(t)
	pidfile := filepath.Join(t.TempDir(), "grandchild.pid")
	hc := hooktest.NewContext(t, &runtime.Node{ID: "implementation"}, map[string]any{
		"command": []any{"sh", "-c", "sleep 60 & echo $! > " + pidfile + "; wait"}, "timeoutSeconds": 1})
	r, err := VerifyTests(hc)
	require.NoError(t, err)
	assert.Equal(t, []string{"the node's test command timed out after 1s and was stopped: sh -c 'sleep 60 & echo $! > " + pidfile + "; wait'"}, hooktest.Texts(r))
	b, err := os.ReadFile(pidfile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	deadline := time.Now().Add(10 * time.Second)
	for running(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	assert.False(t, running(pid), "the background sleep was killed with the group")
}
