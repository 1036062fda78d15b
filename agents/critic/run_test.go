package critic

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/testbin"
)

const fakePkg = "github.com/the-loop/the-loop/agents/critic/fakecritic"

// rig is a runner whose view of the loop's environment is a fixed map.
type rig struct {
	t      *testing.T
	fake   string
	env    map[string]string
	runner *Runner
}

func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{t: t, fake: testbin.Build(t, fakePkg), env: map[string]string{
		"PATH": "/usr/local/bin:/usr/bin:/bin",
		"HOME": t.TempDir(),
	}}
	r.runner = &Runner{
		LookupEnv: func(n string) (string, bool) { v, ok := r.env[n]; return v, ok },
		Environ: func() []string {
			var out []string
			for k, v := range r.env {
				out = append(out, k+"="+v)
			}
			return out
		},
		// The fake critic exits at once on SIGTERM (143); a loaded machine may
		// take a while to run it, and SIGKILL after a short grace would read
		// as a critic that ignored the signal.
		Grace: 5 * time.Second,
	}
	return r
}

func (r *rig) critic(name string, args ...string) Critic {
	c := Critic{Name: name, Command: append([]string{r.fake}, args...)}
	return c
}

func (r *rig) prompt(text string) string {
	p := filepath.Join(r.t.TempDir(), "prompt.md")
	require.NoError(r.t, os.WriteFile(p, []byte(text), 0o600))
	return p
}

func (r *rig) run(c Critic, prompt string) Envelope {
	r.t.Helper()
	e, err := r.runner.Run(context.Background(), c, r.prompt(prompt), r.t.TempDir())
	require.NoError(r.t, err)
	return e
}

const twoFindings = "Review the change.\nfinding: the retry loop never backs off\nfinding: the error drops the path\n"

func TestRunReturnsTheCriticsFindings(t *testing.T) {
	r := newRig(t)
	tests := []struct {
		name    string
		args    []string
		stdin   bool
		showArg string
	}{
		{"prompt on standard input", nil, true, ""},
		{"prompt file placeholder", []string{"--prompt-file={prompt_file}"}, false, "--prompt-file="},
		{"prompt file as its own argument", []string{"--prompt-file", "{prompt_file}"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := r.prompt(twoFindings)
			wd := t.TempDir()
			e, err := r.runner.Run(context.Background(), r.critic("codex", tt.args...), p, wd)
			require.NoError(t, err)
			assert.True(t, e.Counts(), e.Unavailable)
			assert.Equal(t, "1. the retry loop never backs off\n2. the error drops the path\nfindings: 2\n", e.Output)
			assert.Equal(t, "codex", e.Critic)
			require.NotNil(t, e.Exit)
			assert.Equal(t, 0, e.Exit.Code)
			assert.False(t, e.Truncated)
			sum := sha256.Sum256([]byte(twoFindings))
			assert.Equal(t, hex.EncodeToString(sum[:]), e.PromptSHA256)
			assert.Regexp(t, `^cr-\d{8}T\d{6}Z-[0-9a-f]{12}$`, e.RunID)
			assert.Equal(t, wd, e.Workdir)
			assert.False(t, e.Started.IsZero())
			assert.False(t, e.Ended.Before(e.Started))
			if !tt.stdin {
				assert.Contains(t, strings.Join(e.Argv, " "), p, "the recorded argv names the prompt file")
			}
		})
	}
}

func TestRunPassesThePromptAsOneArgument(t *testing.T) {
	r := newRig(t)
	e := r.run(r.critic("cursor", "--mode", "env", "{prompt}"), "finding: one\n$(touch pwned); rm -rf *")
	require.True(t, e.Counts(), e.Unavailable)
	assert.Contains(t, e.Output, "arg: finding: one\n$(touch pwned); rm -rf *\n", "the prompt arrives verbatim as one argument")
	assert.Equal(t, []string{r.fake, "--mode", "env", "{prompt}"}, e.Argv, "the envelope shows the placeholder, not the prompt")
}

func TestRunNeverUsesAShell(t *testing.T) {
	r := newRig(t)
	wd := t.TempDir()
	marker := filepath.Join(wd, "pwned")
	args := []string{"--mode", "env", "$(touch " + marker + ")", "; touch " + marker, "`touch " + marker + "`", "*"}
	e, err := r.runner.Run(context.Background(), r.critic("codex", args...), r.prompt("finding: x"), wd)
	require.NoError(t, err)
	require.True(t, e.Counts(), e.Unavailable)
	for _, a := range args[2:] {
		assert.Contains(t, e.Output, "arg: "+a+"\n")
	}
	assert.NoFileExists(t, marker)
}

func TestRunCutsOffAHangingCriticAtItsTimeout(t *testing.T) {
	r := newRig(t)
	c := r.critic("codex", "--mode", "hang")
	c.TimeoutSeconds = 1
	e := r.run(c, twoFindings)
	assert.False(t, e.Counts())
	assert.Contains(t, e.Unavailable, "timed out after 1s and was stopped")
	assert.Contains(t, e.Unavailable, "critics[].timeoutSeconds")
	require.NotNil(t, e.Exit, "it did start")
	assert.Equal(t, "reviewing…\n", e.Output, "what it printed before the cut is kept")
}

func TestRunInterruptedIsUnavailable(t *testing.T) {
	r := newRig(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e, err := r.runner.Run(ctx, r.critic("codex", "--mode", "hang"), r.prompt(twoFindings), t.TempDir())
	require.NoError(t, err)
	assert.False(t, e.Counts())
	assert.Contains(t, e.Unavailable, "interrupted before it finished")
}

func TestRunFailedOrSilentCriticDoesNotCount(t *testing.T) {
	r := newRig(t)
	tests := []struct {
		name, mode, want string
		code             int
	}{
		{"exit non-zero", "exit-nonzero", "exited with exit 3, so no review happened; its last error line: fakecritic: model quota exhausted", 3},
		{"prints nothing", "silent", "printed nothing on standard output; a review round must print its findings (or say it found none)", 0},
		{"unknown mode is a failure too", "bogus", "exited with exit 64, so no review happened; its last error line: fakecritic: unknown mode bogus", 64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := r.run(r.critic("codex", "--mode", tt.mode), twoFindings)
			assert.False(t, e.Counts())
			assert.Equal(t, tt.want, e.Unavailable)
			require.NotNil(t, e.Exit)
			assert.Equal(t, tt.code, e.Exit.Code)
		})
	}
}

func TestRunBoundsHugeOutput(t *testing.T) {
	r := newRig(t)
	c := r.critic("codex", "--mode", "huge", "--bytes", "3000000")
	c.MaxOutputBytes = 64 << 10
	e := r.run(c, twoFindings)
	assert.True(t, e.Counts(), "a long review still counts: %s", e.Unavailable)
	assert.True(t, e.Truncated)
	assert.Len(t, e.Output, 64<<10)
	assert.True(t, strings.HasSuffix(e.Output, "END\n"), "the end of the output, where the verdict is, is kept")
}

func TestRunMissingExecutableIsUnavailableAndNeverStarted(t *testing.T) {
	r := newRig(t)
	tests := []struct {
		name string
		c    Critic
		want string
	}{
		{"bare name not on PATH", Critic{Name: "codex", Command: []string{"codex-not-installed-here", "exec"}}, `executable "codex-not-installed-here" not found on the critic's PATH`},
		{"absolute path missing", Critic{Name: "codex", Command: []string{filepath.Join(t.TempDir(), "codex")}}, "does not exist; install the critic"},
		{"absolute path not executable", Critic{Name: "codex", Command: []string{r.prompt("not a program")}}, "is not executable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := r.run(tt.c, twoFindings)
			assert.False(t, e.Counts())
			assert.Contains(t, e.Unavailable, tt.want)
			assert.Nil(t, e.Exit, "it never started")
			assert.Equal(t, e.Started, e.Ended)
			assert.NotEmpty(t, e.RunID, "an unavailable round is still an envelope the loop can record")
		})
	}
}

func TestRunFindsABareNameOnlyInAbsolutePATHEntries(t *testing.T) {
	r := newRig(t)
	// A copy of the critic inside the work item's tree, reachable only
	// through a relative PATH entry: it must never run.
	wd := t.TempDir()
	b, err := os.ReadFile(r.fake)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(wd, "fakecritic"), b, 0o755))
	r.env["PATH"] = ".:bin:/usr/bin"
	e, err := r.runner.Run(context.Background(), Critic{Name: "codex", Command: []string{"fakecritic"}}, r.prompt(twoFindings), wd)
	require.NoError(t, err)
	assert.False(t, e.Counts())
	assert.Contains(t, e.Unavailable, "not found on the critic's PATH")

	r.env["PATH"] = "/nonexistent:" + filepath.Dir(r.fake)
	e, err = r.runner.Run(context.Background(), Critic{Name: "codex", Command: []string{filepath.Base(r.fake)}}, r.prompt(twoFindings), wd)
	require.NoError(t, err)
	assert.True(t, e.Counts(), e.Unavailable)
}

func TestRunGivesTheCriticNoSecrets(t *testing.T) {
	r := newRig(t)
	r.env["GITHUB_TOKEN"] = "ghp_mustnotleak123"
	r.env["TRACKER_CRED"] = "tracker-mustnotleak"
	r.env["CODEX_HOME"] = "/srv/codex"
	r.env["UNLISTED_VAR"] = "unlisted"
	r.runner.Sensitive = []string{"TRACKER_CRED"}
	c := r.critic("codex", "--mode", "env")
	c.Env = []string{"CODEX_HOME"}
	// The prompt quotes a secret value; whatever the critic echoes back is
	// redacted before the envelope leaves the runner.
	e := r.run(c, "finding: the log prints ghp_mustnotleak123 and tracker-mustnotleak")
	require.True(t, e.Counts(), e.Unavailable)
	assert.Contains(t, e.Output, "env: CODEX_HOME=/srv/codex\n", "allow-listed variables pass")
	assert.Contains(t, e.Output, "env: PATH=/usr/local/bin:/usr/bin:/bin\n", "basics pass")
	assert.NotContains(t, e.Output, "GITHUB_TOKEN")
	assert.NotContains(t, e.Output, "TRACKER_CRED")
	assert.NotContains(t, e.Output, "UNLISTED_VAR")
	assert.NotContains(t, e.Output, "mustnotleak")
	assert.Contains(t, e.Output, "[redacted]")
	blob, err := json.Marshal(e)
	require.NoError(t, err)
	assert.NotContains(t, string(blob), "mustnotleak")
}

func TestRunRefusesASensitiveNameInItsAllowList(t *testing.T) {
	r := newRig(t)
	r.runner.Sensitive = []string{"TRACKER_CRED"}
	c := r.critic("codex")
	c.Env = []string{"TRACKER_CRED"}
	_, err := r.runner.Run(context.Background(), c, r.prompt(twoFindings), t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "holds a secret")
}

func TestRunRefusesBadInput(t *testing.T) {
	r := newRig(t)
	ok := r.critic("codex")
	dir := t.TempDir()
	notDir := r.prompt("x")
	huge := filepath.Join(dir, "huge.md")
	require.NoError(t, os.WriteFile(huge, []byte(strings.Repeat("a", MaxPromptBytes+1)), 0o600))
	blank := filepath.Join(dir, "blank.md")
	require.NoError(t, os.WriteFile(blank, []byte(" \n\t\n"), 0o600))
	long := filepath.Join(dir, "long.md")
	require.NoError(t, os.WriteFile(long, []byte(strings.Repeat("b", 200<<10)), 0o600))
	tests := []struct {
		name       string
		c          Critic
		prompt, wd string
		want       string
	}{
		{"invalid critic", Critic{Name: "x"}, r.prompt("x"), dir, "critic.command: is empty"},
		{"no prompt file", ok, "", dir, "pass --prompt-file"},
		{"missing prompt file", ok, filepath.Join(dir, "nope.md"), dir, "does not exist; write the review assignment"},
		{"prompt is a directory", ok, dir, dir, "is not a regular file"},
		{"empty prompt", ok, blank, dir, "is empty"},
		{"oversized prompt", ok, huge, dir, "larger than 1048576 bytes"},
		{"prompt too long for one argument", r.critic("cursor", "{prompt}"), long, dir, "too long for one argument"},
		{"no workdir", ok, r.prompt("x"), "", "no working directory given"},
		{"workdir is a file", ok, r.prompt("x"), notDir, "is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.runner.Run(context.Background(), tt.c, tt.prompt, tt.wd)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestEnvelopeJSONKeysAreStable(t *testing.T) {
	r := newRig(t)
	e := r.run(r.critic("codex"), twoFindings)
	blob, err := json.Marshal(e)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(blob, &m))
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	assert.Equal(t, []string{"argv", "critic", "ended", "exit", "output", "promptSha256", "runId", "started", "stderr", "truncated", "unavailable", "workdir"}, keys)
	assert.Equal(t, map[string]any{"code": float64(0)}, m["exit"])

	missing := r.run(Critic{Name: "gone", Command: []string{"not-installed-critic"}}, twoFindings)
	blob, err = json.Marshal(missing)
	require.NoError(t, err)
	assert.Contains(t, string(blob), `"exit":null`)
	assert.Contains(t, string(blob), `"unavailable":"executable \"not-installed-critic\" not found`)
}

func TestCutKeepsRunesWhole(t *testing.T) {
	assert.Equal(t, "short", cut("short", 10))
	assert.Equal(t, "ab…", cut("abcdef", 2))
	assert.Equal(t, "a…", cut("aé", 2), "never half a rune")
}
