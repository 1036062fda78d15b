package proc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunNeverInheritsParentEnvironment(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "ghp_mustnotleak")
	t.Setenv("THE_LOOP_SIGNING_KEY", "signing-mustnotleak")
	t.Setenv("SOME_PARENT_VAR", "parent")
	env, err := BuildEnv(EnvSpec{Set: map[string]string{helperVar: "env"}}, os.LookupEnv)
	require.NoError(t, err)
	res, err := Run(context.Background(), Command{Argv: helperArgv(t), Env: env.List()})
	require.NoError(t, err)
	require.True(t, res.Status.Success(), res.Status.String()+string(res.Stderr))
	out := string(res.Stdout)
	assert.NotContains(t, out, "mustnotleak")
	assert.NotContains(t, out, "SOME_PARENT_VAR")
	assert.Contains(t, out, "PATH="+os.Getenv("PATH"))
}

func TestRunNilEnvIsEmpty(t *testing.T) {
	t.Setenv("SOME_PARENT_VAR", "parent")
	// The child's environment is exactly what Env lists: here only the
	// helper's mode, nothing from the parent.
	res, err := Run(context.Background(), Command{Argv: helperArgv(t), Env: helperEnv("env")})
	require.NoError(t, err)
	lines := strings.Fields(string(res.Stdout))
	assert.Equal(t, []string{helperVar + "=env"}, lines)
}

func TestRunArgvIsNeverShellInterpreted(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "pwned")
	args := []string{"$(touch " + marker + ")", "; touch " + marker, "`touch " + marker + "`", "a b", "*", "$HOME"}
	res, err := Run(context.Background(), Command{Argv: helperArgv(t, args...), Env: helperEnv("args"), Dir: dir})
	require.NoError(t, err)
	assert.Equal(t, strings.Join(args, "\n")+"\n", string(res.Stdout))
	assert.NoFileExists(t, marker)
}

func TestRunExitStatus(t *testing.T) {
	res, err := Run(context.Background(), Command{Argv: helperArgv(t, "3"), Env: helperEnv("exit")})
	require.NoError(t, err, "a non-zero exit is a result, not an error")
	assert.Equal(t, ExitStatus{Code: 3}, res.Status)
	assert.False(t, res.Status.Success())
	assert.Equal(t, "exit 3", res.Status.String())
}

func TestRunProgramNotFound(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		env  []string
	}{
		{"absolute path missing", []string{filepath.Join(t.TempDir(), "nope")}, nil},
		{"bare name not in the child's PATH", []string{"definitely-not-a-program-xyz"}, []string{"PATH=/usr/bin:/bin"}},
		{"bare name with no PATH at all", []string{"ls"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), Command{Argv: tt.argv, Env: tt.env})
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrNotFound), err.Error())
		})
	}
	_, err := Run(context.Background(), Command{})
	assert.ErrorContains(t, err, "empty argv")
}

func TestRunBoundsCapturedOutput(t *testing.T) {
	res, err := Run(context.Background(), Command{Argv: helperArgv(t, "200000"), Env: helperEnv("spam"), MaxOutput: 1000})
	require.NoError(t, err)
	assert.Len(t, res.Stdout, 1000)
	assert.True(t, res.StdoutTruncated)
	assert.True(t, strings.HasSuffix(string(res.Stdout), "END\n"), "the end of the output is kept")
	assert.Len(t, res.Stderr, 1000)
	assert.True(t, res.StderrTruncated)

	small, err := Run(context.Background(), Command{Argv: helperArgv(t, "a"), Env: helperEnv("args")})
	require.NoError(t, err)
	assert.False(t, small.StdoutTruncated)
	assert.Equal(t, "a\n", string(small.Stdout))
}

func TestRunFeedsStdin(t *testing.T) {
	res, err := Run(context.Background(), Command{Argv: helperArgv(t), Env: helperEnv("stdin"), Stdin: strings.NewReader("hello\nworld\n")})
	require.NoError(t, err)
	assert.Equal(t, "hello\nworld\n", string(res.Stdout))
}

func TestRunTimeoutKillsTheWholeGroup(t *testing.T) {
	// The timeout must fire after the helper has started its grandchild; on
	// a loaded machine it may not have yet, so the run is repeated with a
	// longer budget until the grandchild existed when the timeout fired.
	for _, timeout := range []time.Duration{300 * time.Millisecond, 2 * time.Second, 10 * time.Second} {
		pidfile := filepath.Join(t.TempDir(), "gc.pid")
		res, err := Run(context.Background(), Command{Argv: helperArgv(t, pidfile, "stay"), Env: helperEnv("grandchild"), Timeout: timeout})
		require.Error(t, err)
		assert.True(t, errors.Is(err, ErrTimeout), err.Error())
		assert.True(t, res.TimedOut)
		assert.Equal(t, "SIGKILL", res.Status.Signal)
		if b, err := os.ReadFile(pidfile); err != nil || len(b) == 0 {
			continue // killed before the grandchild started: nothing to prove yet
		}
		gc := readPid(t, pidfile)
		waitFor(t, "the grandchild to die", func() bool { return !alive(gc) })
		return
	}
	t.Fatal("the helper never started its grandchild before the timeout")
}

func TestRunCancelKillsTheWholeGroup(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "gc.pid")
	ctx, cancel := context.WithCancel(context.Background())
	type out struct {
		res Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := Run(ctx, Command{Argv: helperArgv(t, pidfile, "stay"), Env: helperEnv("grandchild")})
		done <- out{res, err}
	}()
	gc := readPid(t, pidfile)
	require.True(t, alive(gc))
	cancel()
	o := <-done
	require.Error(t, o.err)
	assert.True(t, errors.Is(o.err, context.Canceled), o.err.Error())
	assert.False(t, o.res.TimedOut)
	waitFor(t, "the grandchild to die", func() bool { return !alive(gc) })
}

func TestRunReapsWhatTheChildLeavesBehind(t *testing.T) {
	// The child exits at once, leaving a sleeping grandchild that holds its
	// stdout open: Run still returns, and the grandchild is killed.
	pidfile := filepath.Join(t.TempDir(), "gc.pid")
	res, err := Run(context.Background(), Command{Argv: helperArgv(t, pidfile, "leave"), Env: helperEnv("grandchild")})
	require.NoError(t, err)
	assert.True(t, res.Status.Success())
	gc := readPid(t, pidfile)
	waitFor(t, "the grandchild to die", func() bool { return !alive(gc) })
}

func TestTailBufferKeepsTheEnd(t *testing.T) {
	b := &tailBuffer{max: 8}
	_, _ = b.Write([]byte("abcdef"))
	_, _ = b.Write([]byte("ghij"))
	assert.Equal(t, "cdefghij", string(b.bytes()))
	_, _ = b.Write([]byte(strings.Repeat("z", 20) + "12345678"))
	assert.Equal(t, "12345678", string(b.bytes()))
}
