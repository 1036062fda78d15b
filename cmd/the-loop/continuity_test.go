package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/continuity"
)

// contRepo makes a real git repository with an origin remote.
func contRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "."}, {"remote", "add", "origin", "git@github.com:acme/widgets.git"}} {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	return dir
}

// contRun runs the CLI in dir with the given environment.
func contRun(t *testing.T, dir string, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Cwd: dir,
		Getenv: func(k string) string { return vars[k] }}
	code := Main(context.Background(), env, append([]string{"continuity"}, args...))
	return code, out.String(), errOut.String()
}

func TestContinuityCLIWorkflow(t *testing.T) {
	dir := contRepo(t)
	vars := map[string]string{"THE_LOOP_HARNESS": "cli-test"}

	code, out, errOut := contRun(t, dir, vars, "init", "--goal", "ship the importer", "--scope", "importer only")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "fresh: session ")
	assert.Contains(t, out, "death point: .handoff/continuity/death-point.md")
	assert.Contains(t, errOut, "added /.handoff/ to the repository-local exclude")

	code, out, errOut = contRun(t, dir, vars, "update", "--kind", "task", "--text", "write the parser", "--files", "importer/parse.go")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "recorded task t1 (open); revision 2")

	code, out, errOut = contRun(t, dir, vars, "update", "--kind", "blocker", "--text", "need samples", "--blocks", "t1", "--format", "json")
	require.Equal(t, 0, code, errOut)
	var upd continuity.UpdateResult
	require.NoError(t, json.Unmarshal([]byte(out), &upd))
	assert.Equal(t, "b1", upd.Node)
	assert.Equal(t, []string{"b1: need samples"}, upd.Blockers)

	code, out, errOut = contRun(t, dir, vars, "update", "--kind", "decision", "--text", "use synthetic samples", "--why", "customer is slow", "--resolves", "b1", "--next", "generate samples")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "next action: generate samples")

	code, out, errOut = contRun(t, dir, vars, "end", "--interrupted")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "marked interrupted")

	code, out, errOut = contRun(t, dir, vars, "status", "--format", "json")
	require.Equal(t, 0, code, errOut)
	var st continuity.StatusReport
	require.NoError(t, json.Unmarshal([]byte(out), &st))
	assert.Equal(t, "interrupted", st.State)
	assert.Equal(t, "github.com/acme/widgets", st.Repository)
	assert.Equal(t, "generate samples", st.NextAction)

	code, out, errOut = contRun(t, dir, vars, "resume")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "resumed: session ")
	assert.Contains(t, out, "resumed from: "+st.Session)

	code, out, errOut = contRun(t, dir, vars, "brief")
	require.Equal(t, 0, code, errOut)
	assert.LessOrEqual(t, len(out), continuity.BriefBudget)
	assert.True(t, strings.HasSuffix(out, continuity.ContinuationLine+"\n"))
	assert.Contains(t, out, "- harness: cli-test")
	assert.Contains(t, out, "## Where it stopped")
	assert.Contains(t, errOut, "to stdout; continuity status: active")

	code, out, errOut = contRun(t, dir, vars, "brief", "--out", "next.md", "--format", "json")
	require.Equal(t, 0, code, errOut)
	var b continuity.Brief
	require.NoError(t, json.Unmarshal([]byte(out), &b))
	assert.Equal(t, ".handoff/handoffs/next.md", b.Path)
	written, err := os.ReadFile(filepath.Join(dir, b.Path))
	require.NoError(t, err)
	assert.Equal(t, b.Text, string(written))

	code, out, errOut = contRun(t, dir, vars, "end", "--completed", "--result", "parser shipped")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "marked completed")

	code, out, errOut = contRun(t, dir, vars, "resume")
	assert.Equal(t, 1, code, "a completed set offers no goal to resume")
	assert.Contains(t, errOut, "init --goal")
	assert.Empty(t, out)

	status, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=all").CombinedOutput()
	require.NoError(t, err)
	assert.NotContains(t, string(status), ".handoff", "continuity files never show up for staging")
}

func TestContinuityCLIBrief(t *testing.T) {
	dir := contRepo(t)
	code, _, errOut := contRun(t, dir, nil, "init", "--goal", "g")
	require.Equal(t, 0, code, errOut)

	code, out, errOut := contRun(t, dir, nil, "brief", "--exclude", "vendor,acme/widgets")
	assert.Equal(t, 1, code)
	assert.Empty(t, out, "an excluded source emits no brief")
	assert.Contains(t, errOut, `matches exclude entry "acme/widgets"`)

	code, out, errOut = contRun(t, dir, nil, "brief", "--budget", "300")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "leaves no room for section")

	code, _, errOut = contRun(t, dir, nil, "brief", "--source", "missing")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `no continuity source has handle "missing"`)
}

func TestContinuityCLIPrompt(t *testing.T) {
	dir := contRepo(t)
	code, _, errOut := contRun(t, dir, nil, "init", "--goal", "ship the importer")
	require.Equal(t, 0, code, errOut)

	code, out, errOut := contRun(t, dir, nil, "prompt")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "needs --task TEXT")

	// No clipboard tool on PATH: the prompt is printed and the reason given.
	code, out, errOut = contRun(t, dir, map[string]string{"PATH": t.TempDir()}, "prompt", "--task", "Review the importer date handling",
		"--context", "Seen in /home/u/logs/run.txt", "--context", "Parser is cmd/importer/parse.go")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "I'd like to talk through, and maybe take on: Review the importer date handling\n"))
	assert.Contains(t, errOut, "clipboard copy unavailable")
	assert.Contains(t, errOut, "omitted: dropped a line")
	assert.Contains(t, errOut, "rewrote a path as `parse.go`")
	assert.NotContains(t, out, "/home/u")
	assert.Contains(t, out, "Parser is `parse.go`")

	// A clipboard tool on PATH receives the prompt through a pipe; stdout
	// carries only the terse confirmation.
	bin := t.TempDir()
	saved := filepath.Join(bin, "clip.txt")
	require.NoError(t, os.WriteFile(filepath.Join(bin, "xclip"), []byte("#!/bin/sh\ncat > '"+saved+"'\n"), 0o755))
	code, out, errOut = contRun(t, dir, map[string]string{"PATH": bin}, "prompt", "--task", "Review the importer date handling")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "copied to the clipboard (xclip): Review the importer date handling\n", out)
	copied, err := os.ReadFile(saved)
	require.NoError(t, err)
	assert.Contains(t, string(copied), "Review first, before changing anything:")
}

func TestContinuityCLIBadInput(t *testing.T) {
	dir := contRepo(t)
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{nil, 2, "continuity needs a verb"},
		{[]string{"launch"}, 2, `unknown continuity verb "launch"`},
		{[]string{"init"}, 2, "needs --goal TEXT"},
		{[]string{"init", "--goal", "g", "--format", "yaml"}, 2, `--format "yaml" is not one of text, json`},
		{[]string{"init", "--goal", "g", "stray"}, 2, `unexpected argument "stray"`},
		{[]string{"update", "--text", "x"}, 2, "needs --kind"},
		{[]string{"update", "--kind", "task"}, 2, "needs --text TEXT"},
		{[]string{"update", "--kind", "task", "--text", "x", "--status", "maybe"}, 2, `--status "maybe" is not one of open, done, blocked`},
		{[]string{"update", "--kind", "task", "--text", "x"}, 1, "no live continuity set"},
		{[]string{"end"}, 2, "exactly one of --interrupted or --completed"},
		{[]string{"end", "--interrupted", "--completed"}, 2, "exactly one of"},
		{[]string{"end", "--interrupted", "--result", "x"}, 2, "--result applies only with --completed"},
		{[]string{"status", "--repo", t.TempDir()}, 1, "is not inside a git repository"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, errOut := contRun(t, dir, nil, tt.args...)
			assert.Equal(t, tt.code, code)
			assert.Contains(t, errOut, tt.msg)
		})
	}
	code, out, _ := contRun(t, dir, nil, "status")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "status: none")
}

func TestContinuityCLIPromptTaskPaths(t *testing.T) {
	dir := contRepo(t)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "cmd", "the-loop"), 0o755))
	code, _, errOut := contRun(t, dir, nil, "init", "--goal", "ship the importer")
	require.Equal(t, 0, code, errOut)
	noClip := map[string]string{"PATH": t.TempDir()}
	tests := []struct {
		name    string
		args    []string
		code    int
		stdout  []string // each must appear on stdout
		stderr  []string // each must appear on stderr
		noPaths bool     // stdout must carry no path
	}{
		{"an unportable path in the task refuses the prompt",
			[]string{"--task", "fix the flaky test in cmd/the-loop/main.go and /home/u/x"}, 1, nil,
			[]string{`"/home/u/x" (absolute path)`, `"cmd/the-loop/main.go" (repo-relative path)`, "absolute path outside the repository",
				"rephrase the task without paths", "--allow-paths", "no prompt emitted"}, true},
		{"a task that is only a path is refused",
			[]string{"--task", "cmd/the-loop/main.go"}, 1, nil, []string{"nothing but paths", "--allow-paths"}, true},
		{"a repo path in the task is rewritten and the task kept",
			[]string{"--task", "fix the flaky test in cmd/the-loop/main.go"}, 0,
			[]string{"I'd like to talk through, and maybe take on: fix the flaky test in `main.go`\n", "\nTask:\n- fix the flaky test in `main.go`\n"},
			[]string{"rewrote a path as `main.go`", "clipboard copy unavailable"}, true},
		{"allowed paths are kept as written",
			[]string{"--task", "fix the flaky test in cmd/the-loop/main.go and /home/u/x", "--allow-paths"}, 0,
			[]string{"\nTask:\n- fix the flaky test in cmd/the-loop/main.go and /home/u/x\n"}, nil, false},
		{"a dropped context line is explained by its path kind",
			[]string{"--task", "Review the importer", "--context", "Compare cmd/the-loop/main.go with /home/u/x"}, 0,
			[]string{"\nTask:\n- Review the importer\n"},
			[]string{`omitted: dropped a line naming an absolute path outside the repository: "- Compare <repo-relative path> with <absolute path>"`}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := contRun(t, dir, noClip, append([]string{"prompt"}, tt.args...)...)
			require.Equal(t, tt.code, code, errOut)
			if tt.code != 0 {
				assert.Empty(t, out, "a refused prompt prints nothing")
			}
			for _, want := range tt.stdout {
				assert.Contains(t, out, want)
			}
			for _, want := range tt.stderr {
				assert.Contains(t, errOut, want)
			}
			if tt.noPaths {
				assert.NotContains(t, out, "/home/u")
				assert.NotContains(t, out, "cmd/the-loop")
			}
		})
	}
}

func TestContinuityCLIEndCompleted(t *testing.T) {
	tests := []struct {
		name string
		args []string
		last string
	}{
		{"without a result", []string{"end", "--completed"}, "goal completed"},
		{"with a result", []string{"end", "--completed", "--result", "parser shipped"}, "goal completed: parser shipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := contRepo(t)
			code, _, errOut := contRun(t, dir, nil, "init", "--goal", "ship the importer")
			require.Equal(t, 0, code, errOut)
			code, out, errOut := contRun(t, dir, nil, tt.args...)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, "marked completed")

			code, out, errOut = contRun(t, dir, nil, "status", "--format", "json")
			require.Equal(t, 0, code, errOut)
			var st continuity.StatusReport
			require.NoError(t, json.Unmarshal([]byte(out), &st))
			assert.Equal(t, "completed", st.State)
			assert.Equal(t, tt.last, st.LastCompleted)
		})
	}
}

func TestContinuityCLIStatusLastCompleted(t *testing.T) {
	dir := contRepo(t)
	code, _, errOut := contRun(t, dir, nil, "init", "--goal", "ship the importer")
	require.Equal(t, 0, code, errOut)
	steps := []struct {
		update []string
		want   []string // lines status must print
		never  []string // text status must not print
	}{
		{[]string{"--kind", "task", "--node", "t1", "--status", "open", "--text", "write tests"},
			[]string{"last completed: none\n", "open task: t1 [open]: write tests\n"}, []string{"(open): write tests"}},
		{[]string{"--kind", "decision", "--text", "use table tests"},
			[]string{"last completed: decision d1: use table tests\n", "open task: t1 [open]: write tests\n"}, nil},
		{[]string{"--kind", "task", "--node", "t1", "--status", "done"},
			[]string{"last completed: task t1 (done): write tests\n"}, []string{"open task: t1"}},
	}
	for _, st := range steps {
		code, _, errOut := contRun(t, dir, nil, append([]string{"update"}, st.update...)...)
		require.Equal(t, 0, code, errOut)
		code, out, errOut := contRun(t, dir, nil, "status")
		require.Equal(t, 0, code, errOut)
		for _, want := range st.want {
			assert.Contains(t, out, want, strings.Join(st.update, " "))
		}
		for _, bad := range st.never {
			assert.NotContains(t, out, bad, strings.Join(st.update, " "))
		}
	}
}
