package store

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Environment of the re-executed test binary.
const (
	helperEnv     = "THE_LOOP_STORE_HELPER" // "writers" or "crash"
	helperDBEnv   = "THE_LOOP_STORE_HELPER_DB"
	helperWorkers = "THE_LOOP_STORE_HELPER_WORKERS"
	helperN       = "THE_LOOP_STORE_HELPER_N"
)

// TestHelperProcess is not a test: it is the body of the child processes the
// multi-process tests start by re-executing the test binary.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("runs only as a child of the multi-process tests")
	}
	ctx := context.Background()
	s, err := Open(ctx, os.Getenv(helperDBEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper open:", err)
		os.Exit(2)
	}
	switch mode {
	case "writers":
		workers, _ := strconv.Atoi(os.Getenv(helperWorkers))
		n, _ := strconv.Atoi(os.Getenv(helperN))
		if errs := hammer(ctx, []*Store{s}, workers, n, "r", "shared"); len(errs) > 0 {
			fmt.Fprintf(os.Stderr, "helper: %d errors, first: %v\n", len(errs), errs[0])
			os.Exit(3)
		}
		fmt.Println("done")
	case "crash":
		// Update forever, announcing each commit after it returned, until
		// the parent kills us.
		for {
			var n int
			err := s.Update(ctx, "r", "crash", func(cur *WorkItem) (*WorkItem, []Event, error) {
				next, evs, err := increment(cur)
				if err == nil {
					n = next.Nodes[0].Attempts
				}
				return next, evs, err
			})
			if err != nil {
				fmt.Fprintln(os.Stderr, "helper update:", err)
				os.Exit(4)
			}
			if _, err := fmt.Fprintf(os.Stdout, "committed %d\n", n); err != nil {
				os.Exit(5)
			}
		}
	default:
		fmt.Fprintln(os.Stderr, "helper: unknown mode", mode)
		os.Exit(6)
	}
	_ = s.Close()
	os.Exit(0)
}

// helperCmd prepares a child running TestHelperProcess in mode on path.
func helperCmd(t *testing.T, mode, path string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperDBEnv+"="+path)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

func TestUpdateConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	const children, workers, n = 2, 8, 10
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "procs.db")
	s, err := Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()

	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for range children {
		cmd := helperCmd(t, "writers", path,
			helperWorkers+"="+strconv.Itoa(workers), helperN+"="+strconv.Itoa(n))
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		require.NoError(t, cmd.Start())
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	// This process writes at the same time.
	errs := hammer(ctx, []*Store{s}, workers, n, "r", "shared")
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "child %d output:\n%s", i, outs[i])
		assert.Contains(t, outs[i].String(), "done")
	}
	require.Empty(t, errs)
	assert.Equal(t, (children+1)*workers*n, assertCounterConsistent(t, s, "r", "shared"))
}

func TestCrashMidStreamLeavesConsistentState(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills child processes")
	}
	const rounds = 10
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crash.db")
	prev := 0
	for round := range rounds {
		cmd := helperCmd(t, "crash", path)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())

		// Kill after a random number of announced commits, while the child
		// is still writing.
		killAfter := 5 + rand.IntN(60)
		sc := bufio.NewScanner(stdout)
		last, seen := 0, 0
		var once sync.Once
		for sc.Scan() {
			v, ok := strings.CutPrefix(sc.Text(), "committed ")
			require.True(t, ok, "unexpected child output %q", sc.Text())
			last, err = strconv.Atoi(v)
			require.NoError(t, err)
			seen++
			if seen >= killAfter {
				once.Do(func() { require.NoError(t, cmd.Process.Kill()) })
			}
		}
		waitErr := cmd.Wait()
		require.Error(t, waitErr, "child should die from SIGKILL; stderr:\n%s", stderr.String())
		require.Contains(t, waitErr.Error(), "killed", "stderr:\n%s", stderr.String())
		require.GreaterOrEqual(t, seen, killAfter)

		s, err := Open(ctx, path)
		require.NoError(t, err, "round %d: reopen after SIGKILL", round)
		require.NoError(t, s.IntegrityCheck(ctx), "round %d", round)
		got := assertCounterConsistent(t, s, "r", "crash")
		require.NoError(t, s.Close())

		// Every announced commit survived; at most one more committed
		// between its COMMIT and its announcement.
		assert.GreaterOrEqual(t, got, last, "round %d: lost a committed update", round)
		assert.LessOrEqual(t, got, last+1, "round %d", round)
		assert.Greater(t, got, prev, "round %d made no progress", round)
		prev = got
	}
}
