package work

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

// repoContext is a hook context at implementation whose repository declares
// cmds (key → sh script).
func repoContext(t *testing.T, cmds ...[2]string) *runtime.HookContext {
	t.Helper()
	requireSh(t)
	hc := hooktest.NewContext(t, &runtime.Node{ID: "implementation"}, nil)
	hc.State = runtime.NewState("issue-1")
	for _, c := range cmds {
		hc.Commands.List = append(hc.Commands.List, runtime.RepoCommand{Key: c[0], Argv: []string{"sh", "-c", c[1]}})
	}
	hc.Commands.TimeoutSeconds = 60
	return hc
}

func verify(t *testing.T, hc *runtime.HookContext) runtime.Result {
	t.Helper()
	r, err := VerifyTests(hc)
	require.NoError(t, err)
	return r
}

// record puts the run a claim made into the state, as the runtime does.
func record(t *testing.T, hc *runtime.HookContext, r runtime.Result) {
	t.Helper()
	d, ok := r.Data[runtime.ReceiptKey].(*runtime.Decision)
	require.True(t, ok)
	d.Node = hc.NodeID()
	hc.State.TestRuns = map[string]*runtime.Decision{hc.NodeID(): d}
}

// A repository whose test command fails blocks implementation: the message
// names the command and its first failing lines, the commands after it do
// not run, and the output is written as evidence.
func TestAFailingTestCommandBlocksImplementationNamingIt(t *testing.T) {
	hc := repoContext(t,
		[2]string{"lint", "echo lint clean"},
		[2]string{"test", "echo '=== RUN TestExport'; echo '--- FAIL: TestExport (0.00s)'; echo '    export_test.go:12: got 3 rows, want 4'; echo 'FAIL\texample.com/export'; exit 1"},
	)
	hc.Commands.List = append(hc.Commands.List, runtime.RepoCommand{Key: "typeCheck", Argv: []string{"sh", "-c", "touch never-ran"}})
	r := verify(t, hc)
	assert.Equal(t, runtime.Block, r.Status)
	texts := hooktest.Texts(r)
	assert.Equal(t, "commands.test failed: sh -c 'echo '\\''=== RUN TestExport'\\''; echo '\\''--- FAIL: TestExport (0.00s)'\\''; echo '\\''    export_test.go:12: got 3 rows, want 4'\\''; echo '\\''FAIL\texample.com/export'\\''; exit 1' ended with exit 1", texts[0])
	assert.Equal(t, []string{"--- FAIL: TestExport (0.00s)", "FAIL\texample.com/export"}, texts[1:], "the lines that report the failure, first")
	_, err := os.Stat(filepath.Join(hc.Repo, "never-ran"))
	assert.ErrorIs(t, err, os.ErrNotExist, "the commands after a failure do not run")

	d := r.Data[runtime.ReceiptKey].(*runtime.Decision)
	assert.Equal(t, runtime.TestsFailed, d.Outcome)
	ev, err := os.ReadFile(filepath.Join(hc.WorkItem.SpecDir, "evidence", "tests-implementation.md"))
	require.NoError(t, err)
	for _, want := range []string{"| lint |", "| exit 0 |", "| test |", "| exit 1 |", "| typeCheck |", "| not run |", "lint clean", "got 3 rows, want 4"} {
		assert.Contains(t, string(ev), want)
	}
	assert.NotContains(t, string(ev), hc.Repo, "the evidence names no path of the host")

	record(t, hc, r)
	hc.ReadOnly = true
	r = verify(t, hc)
	assert.Equal(t, runtime.Block, r.Status)
	assert.Contains(t, hooktest.Texts(r)[0], "the last run at implementation failed (commands.test `sh -c")
}

// Under check nothing runs: the node is reported from the run the loop
// recorded, and a recorded pass stops counting when its evidence is edited
// or a command is declared after it.
func TestCheckReportsTheRecordedRun(t *testing.T) {
	hc := repoContext(t, [2]string{"lint", "echo ok"}, [2]string{"test", "echo PASS"})
	r := verify(t, hc)
	require.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
	assert.Contains(t, hooktest.Texts(r)[0], "lint, test passed at ")
	record(t, hc, r)

	hc.ReadOnly = true
	hc.Commands.List[1].Argv = []string{"sh", "-c", "touch ran-under-check"}
	r = verify(t, hc)
	assert.Equal(t, runtime.Block, r.Status, "the test command changed since the recorded run")
	assert.Contains(t, hooktest.Texts(r)[0], "did not pass commands.test (sh -c 'touch ran-under-check'), declared now")
	_, err := os.Stat(filepath.Join(hc.Repo, "ran-under-check"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	hc.Commands.List[1].Argv = []string{"sh", "-c", "echo PASS"}
	r = verify(t, hc)
	assert.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
	assert.True(t, strings.HasPrefix(hooktest.Texts(r)[0], "recorded run: lint, test passed at "))

	ev := filepath.Join(hc.WorkItem.SpecDir, "evidence", "tests-implementation.md")
	b, err := os.ReadFile(ev)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(ev, []byte(strings.Replace(string(b), "PASS", "all green", 1)), 0o644))
	r = verify(t, hc)
	assert.Equal(t, runtime.Block, r.Status)
	assert.Contains(t, hooktest.Texts(r)[0], "evidence/tests-implementation.md is not the output the recorded run at implementation wrote (it was edited)")

	require.NoError(t, os.Remove(ev))
	r = verify(t, hc)
	assert.Equal(t, runtime.Pass, r.Status, "a receipt without its file in this checkout still proves the run")
	assert.Contains(t, hooktest.Texts(r)[0], "(that file is not in this checkout)")
}

// The output written as evidence and shown in messages never carries a
// secret the loop holds, even one the command found elsewhere.
func TestTestOutputIsRedacted(t *testing.T) {
	secretFile := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(secretFile, []byte("ghp_leakedvalue123"), 0o600))
	t.Setenv("GITHUB_TOKEN", "ghp_leakedvalue123")
	hc := repoContext(t, [2]string{"test", "echo FAIL: token $(cat " + secretFile + "); exit 1"})
	r := verify(t, hc)
	assert.Equal(t, runtime.Block, r.Status)
	assert.NotContains(t, strings.Join(hooktest.Texts(r), "\n"), "ghp_leakedvalue123")
	assert.Contains(t, strings.Join(hooktest.Texts(r), "\n"), "FAIL: token [redacted]")
	ev, err := os.ReadFile(filepath.Join(hc.WorkItem.SpecDir, "evidence", "tests-implementation.md"))
	require.NoError(t, err)
	assert.NotContains(t, string(ev), "ghp_leakedvalue123")
}

// The run names the commit it ran at, and whether code outside the item's
// own spec folder was uncommitted.
func TestTheRunNamesItsCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	hc := repoContext(t, [2]string{"test", "echo ok"})
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", hc.Repo, "-c", "user.name=t", "-c", "user.email=t@example.test"}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	require.NoError(t, os.WriteFile(filepath.Join(hc.Repo, "main.go"), []byte("package main\n"), 0o644))
	git("add", "-A")
	git("commit", "-qm", "first")
	head := git("rev-parse", "HEAD")
	require.NoError(t, os.WriteFile(filepath.Join(hc.WorkItem.SpecDir, "tasks.md"), []byte("- [x] T1\n"), 0o644))

	run := receiptOf(t, verify(t, hc))
	assert.Equal(t, head, run.Data["commit"])
	assert.Equal(t, false, run.Data["dirty"], "the item's own spec folder is the loop's to rewrite")

	require.NoError(t, os.WriteFile(filepath.Join(hc.Repo, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644))
	run = receiptOf(t, verify(t, hc))
	assert.Equal(t, true, run.Data["dirty"])
	ev, err := os.ReadFile(filepath.Join(hc.WorkItem.SpecDir, "evidence", "tests-implementation.md"))
	require.NoError(t, err)
	assert.Contains(t, string(ev), head[:12]+" (with uncommitted changes)")
}

func receiptOf(t *testing.T, r runtime.Result) *runtime.Decision {
	t.Helper()
	d, ok := r.Data[runtime.ReceiptKey].(*runtime.Decision)
	require.True(t, ok, "%v", hooktest.Texts(r))
	return d
}
