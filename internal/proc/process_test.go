package proc

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/syncbuf"
)

func TestStartWritesOutputToFilesAndReportsExit(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.log")
	require.NoError(t, os.WriteFile(out, []byte("earlier\n"), 0o600))
	in := filepath.Join(dir, "in.txt")
	require.NoError(t, os.WriteFile(in, []byte("from the prompt file\n"), 0o600))
	p, err := Start(Spec{Argv: helperArgv(t), Env: helperEnv("stdin"), StdinPath: in, StdoutPath: out, StderrPath: filepath.Join(dir, "err.log")})
	require.NoError(t, err)
	assert.Greater(t, p.Pid(), 0)
	st := p.Wait()
	assert.True(t, st.Success())
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, "earlier\nfrom the prompt file\n", string(got), "stdout is appended")
	fi, err := os.Stat(filepath.Join(dir, "err.log"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	got2, ok := p.Exited()
	assert.True(t, ok)
	assert.Equal(t, st, got2)
}

func TestStartStopEndsTheGroup(t *testing.T) {
	tests := []struct {
		name       string
		mode       string
		grace      time.Duration
		wantSignal string
	}{
		{"a child that honours SIGTERM", "sleep", 30 * time.Second, "SIGTERM"},
		{"a child that ignores SIGTERM is killed after the grace", "trapterm", 200 * time.Millisecond, "SIGKILL"},
		{"no grace kills at once", "sleep", 0, "SIGKILL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ready := filepath.Join(t.TempDir(), "ready")
			p, err := Start(Spec{Argv: helperArgv(t, ready), Env: helperEnv(tt.mode)})
			require.NoError(t, err)
			waitFor(t, "the child to be ready", func() bool { _, err := os.Stat(ready); return err == nil })
			_, exited := p.Exited()
			assert.False(t, exited)
			p.Stop(tt.grace)
			p.Stop(tt.grace) // idempotent
			st := p.Wait()
			assert.Equal(t, tt.wantSignal, st.Signal)
			assert.Equal(t, -1, st.Code)
			assert.True(t, strings.HasPrefix(st.String(), "killed by "))
		})
	}
}

func TestStartKillsGrandchildrenWhenTheChildExits(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "gc.pid")
	p, err := Start(Spec{Argv: helperArgv(t, pidfile, "leave"), Env: helperEnv("grandchild")})
	require.NoError(t, err)
	assert.True(t, p.Wait().Success())
	gc := readPid(t, pidfile)
	waitFor(t, "the grandchild to die", func() bool { return !alive(gc) })
}

func TestStartRefusesMissingProgramAndBadFiles(t *testing.T) {
	_, err := Start(Spec{Argv: []string{filepath.Join(t.TempDir(), "missing")}})
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = Start(Spec{Argv: helperArgv(t), StdinPath: filepath.Join(t.TempDir(), "no-such-prompt")})
	assert.ErrorContains(t, err, "stdin")
	_, err = Start(Spec{Argv: helperArgv(t), StdoutPath: filepath.Join(t.TempDir(), "no-dir", "out")})
	assert.ErrorContains(t, err, "stdout")
}

func TestReclaimGroupKillsOnlyAProvenChild(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "ready")
	p, err := Start(Spec{Argv: helperArgv(t, ready), Env: helperEnv("sleep", "THE_LOOP_SESSION=s-abc")})
	require.NoError(t, err)
	waitFor(t, "the child to be ready", func() bool { _, err := os.Stat(ready); return err == nil })

	killed, err := ReclaimGroup(p.Pid(), "THE_LOOP_SESSION=s-other")
	require.NoError(t, err)
	assert.False(t, killed, "a process without the marker is never killed")
	_, exited := p.Exited()
	assert.False(t, exited)

	killed, err = ReclaimGroup(p.Pid(), "THE_LOOP_SESSION=s-abc")
	require.NoError(t, err)
	assert.True(t, killed)
	assert.Equal(t, "SIGKILL", p.Wait().Signal)

	killed, err = ReclaimGroup(p.Pid(), "THE_LOOP_SESSION=s-abc")
	require.NoError(t, err)
	assert.False(t, killed, "a gone process is nothing to reclaim")
}

func TestZombieStatusReadsAnUnreapedExit(t *testing.T) {
	// A child the test starts with the raw syscall is never reaped by proc,
	// so it stays a zombie until the test waits for it.
	self := helperArgv(t)[0]
	for _, tt := range []struct {
		env  []string
		args []string
		want ExitStatus
	}{
		{helperEnv("exit"), []string{self, "7"}, ExitStatus{Code: 7}},
		{helperEnv("sleep"), []string{self}, ExitStatus{Code: -1, Signal: "SIGKILL"}},
	} {
		pid, err := syscall.ForkExec(self, tt.args, &syscall.ProcAttr{Env: tt.env})
		require.NoError(t, err)
		if tt.want.Signal != "" {
			require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
		}
		var st ExitStatus
		waitFor(t, "the child to become a zombie", func() bool {
			var ok bool
			st, ok = ZombieStatus(pid)
			return ok
		})
		assert.Equal(t, tt.want, st)
		var ws syscall.WaitStatus
		_, err = syscall.Wait4(pid, &ws, 0, nil)
		require.NoError(t, err)
		_, ok := ZombieStatus(pid)
		assert.False(t, ok, "a reaped process is no zombie")
	}
	_, ok := ZombieStatus(os.Getpid())
	assert.False(t, ok, "a running process is no zombie")
}

func TestStartCopiesOutputToWritersBeforeItCountsAsDone(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	require.NoError(t, os.WriteFile(in, []byte("through a writer\n"), 0o600))
	var out syncbuf.Buffer
	p, err := Start(Spec{Argv: helperArgv(t), Env: helperEnv("stdin"), StdinPath: in, Stdout: &out,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: false, Pdeathsig: syscall.SIGKILL}})
	require.NoError(t, err)
	assert.True(t, p.Wait().Success())
	assert.Equal(t, "through a writer\n", out.String(), "all output is copied once Done")
}
