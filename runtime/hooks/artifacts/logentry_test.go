package artifacts

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

func pinClock(t *testing.T) time.Time {
	t.Helper()
	at := time.Date(2026, 12, 2, 13, 3, 53, 0, time.Local)
	old := clock
	clock = func() time.Time { return at }
	t.Cleanup(func() { clock = old })
	return at
}

func TestLogEntryAppends(t *testing.T) {
	pinClock(t)
	hc := hooktest.NewContext(t, &runtime.Node{ID: "design"}, nil)
	hc.Boundary = "entry"
	hooktest.WriteArtifact(t, hc, "execution-log.md", "# Execution log\n")
	r, err := LogEntry(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Equal(t, map[string]any{"appended": true}, r.Data)
	want := "# Execution log\n\n### 2026-12-02 — entry design\n\n- **Node:** design\n- **Boundary:** entry\n"
	assert.Equal(t, want, hooktest.ReadArtifact(t, hc, "execution-log.md"))

	hc.Boundary = "exit"
	_, err = LogEntry(hc)
	require.NoError(t, err)
	assert.Equal(t, want+"\n### 2026-12-02 — exit design\n\n- **Node:** design\n- **Boundary:** exit\n",
		hooktest.ReadArtifact(t, hc, "execution-log.md"), "a second entry is appended, the first kept")
}

func TestLogEntryNeverCreatesTheLog(t *testing.T) {
	hc := hooktest.NewContext(t, &runtime.Node{ID: "design"}, nil)
	r, err := LogEntry(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Skip, r.Status)
	assert.Equal(t, []string{"no execution log for this work item"}, hooktest.Texts(r))
	_, statErr := os.Stat(filepath.Join(hc.WorkItem.SpecDir, "execution-log.md"))
	assert.ErrorIs(t, statErr, os.ErrNotExist)
}

func TestLogEntryWritesNothingUnderCheck(t *testing.T) {
	hc := hooktest.NewContext(t, &runtime.Node{ID: "design"}, nil)
	hc.ReadOnly = true
	p := hooktest.WriteArtifact(t, hc, "execution-log.md", "# Execution log\n")
	before, err := os.Stat(p)
	require.NoError(t, err)
	r, err := LogEntry(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Skip, r.Status)
	assert.Equal(t, "# Execution log\n", hooktest.ReadArtifact(t, hc, "execution-log.md"))
	after, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, before.ModTime(), after.ModTime())
}

func TestLogEntryWriteFailureIsADegradation(t *testing.T) {
	hc := hooktest.NewContext(t, &runtime.Node{ID: "design"}, nil)
	// A folder where the log should be: present, but it cannot be appended to.
	require.NoError(t, os.Mkdir(filepath.Join(hc.WorkItem.SpecDir, "execution-log.md"), 0o755))
	r, err := LogEntry(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Equal(t, false, r.Data["appended"])
	assert.Contains(t, r.Data["error"], "docs/specs/issue-1/execution-log.md")
}
