package work

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
)

func requireSh(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("sh is not available")
	}
}

func runVerify(t *testing.T, params map[string]any, readOnly bool) (runtime.Result, *runtime.HookContext) {
	t.Helper()
	hc := hooktest.NewContext(t, &runtime.Node{ID: "implementation"}, params)
	hc.ReadOnly = readOnly
	r, err := VerifyTests(hc)
	require.NoError(t, err)
	return r, hc
}

// A repository that declares no command waits at the node, naming the key
// to set: nothing proves the work, so it never passes.
func TestVerifyTestsWaitsWithoutADeclaredCommand(t *testing.T) {
	for _, cmd := range []any{nil, "", "   ", []any{}} {
		for _, readOnly := range []bool{false, true} {
			r, _ := runVerify(t, map[string]any{"command": cmd}, readOnly)
			assert.Equal(t, runtime.Wait, r.Status)
			assert.Equal(t, []string{NoCommands}, hooktest.Texts(r))
			assert.Contains(t, NoCommands, "commands.test")
		}
	}
}

func TestVerifyTestsRunsARealCommand(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	r, hc := runVerify(t, map[string]any{"command": []any{goBin, "version"}}, false)
	assert.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
	assert.Equal(t, []string{goBin + " version"}, r.Data["commands"])
	d, ok := r.Data[runtime.ReceiptKey].(*runtime.Decision)
	require.True(t, ok, "the run is handed to the runtime to record")
	assert.Equal(t, runtime.TestsPassed, d.Outcome)
	out, err := os.ReadFile(filepath.Join(hc.WorkItem.SpecDir, "evidence", "tests-implementation.md"))
	require.NoError(t, err)
	assert.Contains(t, string(out), "go version go1.", "the output is written as evidence")
}

func TestVerifyTestsReportsTheExitCodeAndTheOutputTail(t *testing.T) {
	requireSh(t)
	script := `for i in $(seq 1 25); do echo "line $i"; done; echo; echo "only on stderr" >&2; exit 3`
	r, _ := runVerify(t, map[string]any{"command": []any{"sh", "-c", script}}, false)
	assert.Equal(t, runtime.Block, r.Status)
	assert.True(t, r.Retriable)
	require.Len(t, r.Messages, 21)
	assert.Equal(t, "the node's test command failed: sh -c '"+script+"' ended with exit 3", r.Messages[0].Text)
	assert.Equal(t, "line 7", r.Messages[1].Text, "no line says what failed: the last lines are reported")
	assert.Equal(t, "only on stderr", r.Messages[20].Text)
	assert.Equal(t, runtime.SevInfo, r.Messages[20].Severity)
}

func TestVerifyTestsFallsBackToStderr(t *testing.T) {
	requireSh(t)
	r, _ := runVerify(t, map[string]any{"command": `sh -c 'echo "boom" >&2; exit 1'`}, false)
	assert.Equal(t, []string{`the node's test command failed: sh -c 'echo "boom" >&2; exit 1' ended with exit 1`, "boom"}, hooktest.Texts(r))
}

func TestVerifyTestsRunsInTheRepositoryRoot(t *testing.T) {
	requireSh(t)
	hc := hooktest.NewContext(t, &runtime.Node{ID: "implementation"}, map[string]any{"command": "sh -c 'test -d docs/specs/issue-1'"})
	r, err := VerifyTests(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
}

func TestVerifyTestsCommandNotFoundIsFinal(t *testing.T) {
	r, _ := runVerify(t, map[string]any{"command": "the-loop-no-such-binary --all"}, false)
	assert.Equal(t, runtime.Block, r.Status)
	assert.False(t, r.Retriable)
	assert.Equal(t, []string{"the node's test command: program not found: the-loop-no-such-binary"}, hooktest.Texts(r))

	r, _ = runVerify(t, map[string]any{"command": []any{"./missing-script.sh"}}, false)
	assert.Equal(t, []string{"the node's test command: program not found: ./missing-script.sh"}, hooktest.Texts(r))
}

func TestVerifyTestsTimesOut(t *testing.T) {
	requireSh(t)
	r, _ := runVerify(t, map[string]any{"command": "sh -c 'sleep 30'", "timeoutSeconds": 1}, false)
	assert.Equal(t, runtime.Block, r.Status)
	assert.True(t, r.Retriable)
	assert.Equal(t, []string{"the node's test command timed out after 1s and was stopped: sh -c 'sleep 30'"}, hooktest.Texts(r))
}

func TestVerifyTestsNeverRunsUnderCheck(t *testing.T) {
	requireSh(t)
	hc := hooktest.NewContext(t, &runtime.Node{ID: "implementation"}, nil)
	marker := filepath.Join(hc.Repo, "ran")
	hc.Params = map[string]any{"command": []any{"sh", "-c", "touch " + marker}}
	hc.ReadOnly = true
	r, err := VerifyTests(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Block, r.Status, "no run is recorded: check cannot say the commands pass")
	assert.Contains(t, hooktest.Texts(r)[0], "no run of the repository's commands is recorded for implementation")
	_, statErr := os.Stat(marker)
	assert.ErrorIs(t, statErr, os.ErrNotExist, "the command must not have run")

	hc.ReadOnly = false
	r, err = VerifyTests(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status)
	_, statErr = os.Stat(marker)
	assert.NoError(t, statErr, "the same command does run outside check")
}

func TestVerifyTestsRejectsBadParams(t *testing.T) {
	tests := []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"command": `go test "./...`}, "unterminated double quote"},
		{map[string]any{"command": `go test './...`}, "unterminated single quote"},
		{map[string]any{"command": []any{"go", 3}}, "list element 1 must be a string"},
		{map[string]any{"command": 42}, "command must be a string or a list"},
		{map[string]any{"command": "go test", "timeoutSeconds": 0}, "timeoutSeconds must be a positive"},
		{map[string]any{"command": "go test", "timeoutSeconds": "soon"}, "timeoutSeconds must be a whole number"},
	}
	for _, tt := range tests {
		hc := hooktest.NewContext(t, &runtime.Node{ID: "implementation"}, tt.params)
		_, err := VerifyTests(hc)
		assert.ErrorContains(t, err, tt.want)
	}
}

func TestSplitShellWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"go test ./...", []string{"go", "test", "./..."}},
		{"  spaced   out  ", []string{"spaced", "out"}},
		{`sh -c 'exit 3'`, []string{"sh", "-c", "exit 3"}},
		{`echo "a \"b\" \$HOME \n"`, []string{"echo", `a "b" $HOME \n`}},
		{`a\ b c`, []string{"a b", "c"}},
		{`x'y'"z"`, []string{"xyz"}},
		{`empty '' ""`, []string{"empty", "", ""}},
		{"a | b && c", []string{"a", "|", "b", "&&", "c"}},
		{"", nil},
	}
	for _, tt := range tests {
		got, err := splitShellWords(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}

func TestTestCommandsNeverSeeSecrets(t *testing.T) {
	cfg := config.Default()
	cfg.Integrations.GitHub.TokenEnv = "MY_GH"
	got, err := testEnv([]string{"PATH=/bin", "MY_GH=ghp_secret", "THE_LOOP_SIGNING_KEY=k", "HOME=/root", "SLACK_WEBHOOK_URL=https://hooks",
		"CREDENTIALS_DIRECTORY=/run/credentials/the-loop.service"}, cfg)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"PATH=/bin", "HOME=/root"}, got)
}

// TestATestCommandNeverSeesTheCredentialsDirectory runs a real command that
// prints its environment: systemd's CREDENTIALS_DIRECTORY, the tokens and
// the variables the config names never reach it; the rest of the parent's
// environment does.
func TestATestCommandNeverSeesTheCredentialsDirectory(t *testing.T) {
	requireSh(t)
	t.Setenv("CREDENTIALS_DIRECTORY", t.TempDir())
	t.Setenv("GITHUB_TOKEN", "ghp_must_not_leak")
	t.Setenv("MY_JIRA_LOGIN", "op@example.com")
	t.Setenv("THE_LOOP_TEST_MARK", "inherited")
	hc := hooktest.NewContext(t, &runtime.Node{ID: "implementation"}, map[string]any{
		"command": []any{"sh", "-c", `env | grep -E '^(THE_LOOP_TEST_MARK|CREDENTIALS_DIRECTORY|GITHUB_TOKEN|MY_JIRA_LOGIN)='; exit 1`}})
	hc.Config = config.Default()
	hc.Config.Integrations.Jira.EmailEnv = "MY_JIRA_LOGIN"
	r, err := VerifyTests(hc)
	require.NoError(t, err)
	out := strings.Join(hooktest.Texts(r)[1:], "\n")
	assert.Equal(t, "THE_LOOP_TEST_MARK=inherited", out, "the parent's ordinary variables are passed, and nothing else matched")
	for _, secret := range []string{"CREDENTIALS_DIRECTORY", "GITHUB_TOKEN", "ghp_must_not_leak", "MY_JIRA_LOGIN", "op@example.com"} {
		assert.NotContains(t, out, secret)
	}
}
