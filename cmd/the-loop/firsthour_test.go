package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runIn runs Main standing in cwd, with an isolated environment.
func runIn(t *testing.T, cwd string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	db := filepath.Join(t.TempDir(), "none.db")
	e := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Cwd: cwd, Getenv: func(k string) string {
		if k == "THE_LOOP_DB" {
			return db
		}
		return ""
	}}
	code = Main(context.Background(), e, args)
	return out.String(), errb.String(), code
}

// CI never goes green on nothing: `check --all` from a subdirectory,
// outside a repository, or with a wrong spec folder exits 2 naming the
// root it looked in and the spec folder it expected.
func TestCheckAllOnNothingExits2(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	wrong := copyDir(t, fixtureRepo(t))
	require.NoError(t, os.WriteFile(filepath.Join(wrong, ".the-loop", "harness-config.yaml"), []byte("workflow:\n  specDir: doc/spec\n"), 0o644))
	outside := t.TempDir()
	real := func(p string) string { r, err := filepath.EvalSymlinks(p); require.NoError(t, err); return r }
	tests := []struct {
		name string
		cwd  string
		args []string
		says []string
	}{
		{"from a subdirectory", filepath.Join(repo, "docs"), []string{"check", "--all"},
			[]string{"error: no work items to check: the spec folder docs/specs", "in the repository root " + real(filepath.Join(repo, "docs")), "pass --repo " + real(repo)}},
		{"outside a repository", outside, []string{"check", "--all", "--recompute", "--fail-on", "block"},
			[]string{"does not exist in the repository root " + real(outside), "run from the repository root or pass --repo DIR"}},
		{"a wrong spec folder", wrong, []string{"check", "--all", "--format", "json"},
			[]string{"the spec folder doc/spec (workflow.specDir in .the-loop/harness-config.yaml) does not exist in the repository root " + real(wrong)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runIn(t, tt.cwd, tt.args...)
			assert.Equal(t, exitUsage, code, errOut)
			for _, s := range tt.says {
				assert.Contains(t, errOut, s)
			}
			assert.NotContains(t, out, "0/0 work items satisfied")
			assert.Equal(t, 1, strings.Count(errOut, "no work items to check"), "the error is printed once")
		})
	}
}

// A misspelled id is refused with the nearest known ones (exit 2); it is
// never reported as a new item waiting at phase selection.
func TestMisspelledIDsAreRefused(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"check", []string{"check", "isue-2"}, `unknown work item "isue-2"`},
		{"graph status", []string{"graph", "status", "nosuch"}, `the nearest known ones are`},
		{"graph advance", []string{"graph", "advance", "issue-22"}, `did you mean "issue-2"?`},
		{"graph events", []string{"graph", "events", "Issue-2"}, `did you mean "issue-2"?`},
		{"an id with a space", []string{"check", "issue 2"}, `work item id "issue 2" is not a plain folder name: an id is a spec folder name`},
		{"graph start with a space", []string{"graph", "start", "a b"}, `is not a plain folder name`},
		{"sessions list with a space", []string{"sessions", "list", "--work-item", "a b"}, `work item id "a b" is not a plain folder name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runIn(t, repo, tt.args...)
			assert.Equal(t, exitUsage, code, errOut)
			assert.Contains(t, errOut, tt.says)
			assert.NotContains(t, out, "phase-selection")
			assert.NotContains(t, out, "NOT ENTERED YET")
		})
	}
	entries, err := os.ReadDir(filepath.Join(repo, "docs", "specs"))
	require.NoError(t, err)
	for _, e := range entries {
		assert.Regexp(t, `^issue-[1-6]$`, e.Name(), "no folder was created for a refused id")
	}
}

// A claim and then an advance on a missing piece no longer escalate the
// item: the advance finds nothing changed and spends no attempt.
func TestClaimThenAdvanceDoesNotEscalate(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	db := filepath.Join(t.TempDir(), "state.db")
	env := map[string]string{"THE_LOOP_DB": db}
	_, _, code := runCLI(t, env, "graph", "complete", "issue-2", "--repo", repo)
	require.Equal(t, exitUnmet, code, "the claim blocks")
	for range 3 {
		out, errOut, code := runCLI(t, env, "graph", "advance", "issue-2", "--repo", repo)
		assert.Equal(t, exitUnmet, code, errOut)
		assert.Contains(t, out, "issue-2: requirements-definition → block")
		assert.Contains(t, out, "nothing changed since the last evaluation (the same artifacts, decisions and comments, the same findings): no attempt spent")
		assert.NotContains(t, out, "escalated")
	}
	out, _, _ := runCLI(t, env, "graph", "status", "issue-2", "--repo", repo, "--format", "json")
	assert.Contains(t, out, `"currentNode": "requirements-definition"`)
	assert.NotContains(t, out, `"escalation"`)
}

// graph skip exits 1 when any named node is rejected, and a declared skip
// is withdrawn by the same operator act with --withdraw: the node is walked
// again, the withdrawal is in the event log, and what the walk passed
// cannot be withdrawn.
func TestSkipRejectionsAndWithdrawal(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	host := t.TempDir()
	keyFile, cfgFile := filepath.Join(host, "signing.key"), filepath.Join(host, "config.yaml")
	require.NoError(t, os.WriteFile(cfgFile, []byte("signing:\n  privateKeyFile: "+keyFile+"\n"), 0o600))
	env := map[string]string{"THE_LOOP_DB": filepath.Join(t.TempDir(), "state.db"), "THE_LOOP_CONFIG": cfgFile}
	run := func(args ...string) (string, string, int) { return runCLI(t, env, append(args, "--repo", repo)...) }
	_, _, code := run("keys", "init", "--key-file", keyFile)
	require.Equal(t, exitOK, code)
	_, _, code = run("graph", "start", "issue-1")
	require.Equal(t, exitOK, code)

	out, _, code := run("graph", "skip", "issue-1", "--node", "design", "--node", "test-planning", "--reason", "a one-line fix")
	require.Equal(t, exitOK, code, out)
	out, errOut, code := run("graph", "skip", "issue-1", "--node", "design", "--node", "nonsense", "--reason", "again")
	assert.Equal(t, exitUnmet, code, "a partial rejection exits 1")
	assert.Contains(t, out, "declared: design will be skipped")
	assert.Contains(t, out, "rejected: nonsense — not a skippable node or shipped skip set")
	assert.Contains(t, errOut, "graph skip: 1 name was rejected (listed above); the others stand")
	_, errOut, code = run("graph", "skip", "issue-1", "--node", "nonsense", "--node", "phase-selection", "--reason", "again")
	assert.Equal(t, exitUnmet, code)
	assert.Contains(t, errOut, "graph skip: 2 names were rejected (listed above); nothing changed")

	_, errOut, code = run("graph", "skip", "issue-1", "--withdraw", "--node", "design")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "an unexplained withdrawal is refused")
	out, errOut, code = run("graph", "skip", "issue-1", "--withdraw", "--node", "design", "--node", "self-review", "--reason", "the change grew")
	assert.Equal(t, exitUnmet, code, "self-review had no declared skip")
	assert.Contains(t, out, "withdrawn: design will be walked")
	assert.Contains(t, out, "rejected: self-review — no skip is declared for it")
	assert.Contains(t, errOut, "graph skip: 1 name was rejected (listed above); the others stand")

	out, _, _ = run("check", "issue-1", "--format", "json")
	var rep struct {
		Nodes []struct{ Node, Status string } `json:"nodes"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	status := map[string]string{}
	for _, n := range rep.Nodes {
		status[n.Node] = n.Status
	}
	assert.Equal(t, "block", status["design"], "the withdrawn skip: design is walked again")
	assert.Equal(t, "skip", status["test-planning"], "the other declared skip stands")
	out, _, _ = run("graph", "events", "issue-1", "--format", "json")
	assert.Contains(t, out, `"graph.skip_withdrawn"`)
	assert.Contains(t, out, `"reason": "the change grew"`)

	_, _, code = run("graph", "skip", "issue-1", "--withdraw", "--node", "phase-selection", "--reason", "x")
	assert.Equal(t, exitUnmet, code)
}

// An escalated item is resumed by an operator act: force the pointer back
// to the node it escalated from. The escalation is cleared, the node's
// attempts start again, and the force is audited.
func TestEscalatedItemIsResumedByAnOperatorForce(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	env := map[string]string{"THE_LOOP_DB": filepath.Join(t.TempDir(), "state.db")}
	run := func(args ...string) (string, string, int) { return runCLI(t, env, append(args, "--repo", repo)...) }
	run("graph", "complete", "issue-2")
	out, _, code := run("graph", "complete", "issue-2")
	require.Equal(t, exitUnmet, code)
	require.Contains(t, out, `"status": "escalated"`, "the same failing claim twice escalates")
	out, _, _ = run("graph", "status", "issue-2")
	assert.Contains(t, out, "ESCALATED from requirements-definition")
	assert.Contains(t, out, "resumes the walk (an operator act)")

	out, errOut, code := run("graph", "force", "issue-2", "--to", "requirements-definition", "--reason", "security section written")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "forced issue-2: escalated → requirements-definition")
	out, _, _ = run("graph", "status", "issue-2", "--format", "json")
	assert.Contains(t, out, `"currentNode": "requirements-definition"`)
	assert.NotContains(t, out, `"escalation"`)
	out, _, code = run("graph", "complete", "issue-2")
	assert.Equal(t, exitUnmet, code)
	assert.Contains(t, out, `"status": "block"`, "a fresh attempt, not an immediate escalation")
	out, _, _ = run("graph", "events", "issue-2", "--format", "json")
	assert.Contains(t, out, `"graph.forced"`)
}

// Asked-for help is output: stdout, exit 0, nothing on stderr.
func TestHelpGoesToStdout(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"help"}, {"graph", "--help"}, {"graph", "help"}, {"handoff", "-h"},
		{"check", "-h"}, {"check", "--help"}, {"graph", "status", "-h"}, {"poll", "--help"},
		{"sessions", "-h"}, {"sessions", "help"}, {"sessions", "list", "-h"}, {"sessions", "stop", "--help"}, {"run", "-h"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out, errOut, code := runCLI(t, nil, args...)
			assert.Equal(t, exitOK, code)
			assert.Contains(t, out, "usage: the-loop ")
			assert.Empty(t, errOut)
		})
	}
	out, _, _ := runCLI(t, nil, "check", "-h")
	assert.Contains(t, out, "-log-format", "every command takes --log-format")
}

// "Did you mean" for commands, sub-verbs, flags, flag values, loops, nodes
// and skip tokens; each error printed once, without a usage dump.
func TestDidYouMean(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	tests := []struct {
		args []string
		says string
	}{
		{[]string{"chek"}, `unknown command "chek"; did you mean "check"?`},
		{[]string{"graph", "stats"}, `unknown graph action "stats"; did you mean "status"?`},
		{[]string{"handoff", "shwo"}, `did you mean "show"?`},
		{[]string{"continuity", "updte"}, `did you mean "update"?`},
		{[]string{"check", "--al"}, "unknown flag --al for the-loop check; did you mean --all?"},
		{[]string{"graph", "status", "issue-2", "--fromat", "json"}, "did you mean --format?"},
		{[]string{"check", "issue-1", "--format", "jsno"}, `--format "jsno" is not one of table, json, github; did you mean "json"?`},
		{[]string{"check", "--all", "--log-format", "jsn"}, `--log-format "jsn": not one of text, json; did you mean "json"?`},
		{[]string{"graph", "show", "--loop", "pdlc-work-item"}, `did you mean "pdlc-work-item-loop"?`},
		{[]string{"graph", "start", "issue-9", "--loop", "pdlc-reveiw-loop"}, `did you mean "pdlc-review-loop"?`},
		{[]string{"graph", "force", "issue-2", "--to", "desing", "--reason", "x"}, `unknown node "desing"; did you mean "design"?`},
		{[]string{"sessions", "lisst"}, `unknown sessions verb "lisst"; did you mean "list"?`},
		{[]string{"sesions", "list"}, `unknown command "sesions"; did you mean "sessions"?`},
		{[]string{"sessions", "list", "--stat", "running"}, "unknown flag --stat for the-loop sessions list; did you mean --state?"},
		{[]string{"sessions", "list", "--state", "runing"}, `state "runing" is not one of running, exited, stopped, timed_out, over_budget, lost; did you mean "running"?`},
		{[]string{"sessions", "logs", "s-1", "--line", "5"}, "unknown flag --line for the-loop sessions logs; did you mean --lines?"},
		{[]string{"run", "issue-2", "--fromat", "json"}, "did you mean --format?"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := runIn(t, repo, tt.args...)
			assert.Equal(t, exitUsage, code, errOut)
			assert.Contains(t, errOut, tt.says)
			assert.Equal(t, 1, strings.Count(errOut, tt.says), "the error is printed once: %s", errOut)
			assert.Equal(t, 1, strings.Count(strings.TrimRight(errOut, "\n"), "\n")+1, "one line: %s", errOut)
			assert.NotContains(t, errOut, "usage: the-loop", "no usage dump on an error")
			assert.Empty(t, out)
		})
	}
	out, _, code := runIn(t, repo, "graph", "skip", "issue-2", "--node", "desing", "--reason", "x")
	assert.Equal(t, exitUnmet, code)
	assert.Contains(t, out, `rejected: desing — not a skippable node or shipped skip set; did you mean "design"?`)
}

// The poller refuses at start — exit 2, naming the key and its line — a
// source without a usable checkout, and polls nothing.
func TestPollRefusesASourceWithoutAUsableCheckoutAtStart(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	badConfig := copyDir(t, fixtureRepo(t))
	require.NoError(t, os.WriteFile(filepath.Join(badConfig, ".the-loop", "harness-config.yaml"), []byte("workflow: [\n"), 0o644))
	tests := []struct {
		name, source, says string
	}{
		{"no checkout", "{system: github, repos: [octo/widgets]}", "line 9: polling.sources[0].checkout: the github source octo/widgets names no checkout"},
		{"a missing checkout", "{system: github, repos: [octo/widgets], checkout: /no/such/clone}", "line 9: polling.sources[0].checkout: /no/such/clone cannot be used"},
		{"a file", "{system: github, repos: [octo/widgets], checkout: " + file + "}", "line 9: polling.sources[0].checkout: " + file + " is not a directory"},
		{"an unreadable repository config", "{system: github, repos: [octo/widgets], checkout: " + badConfig + "}", "line 9: polling.sources[0].checkout: " + badConfig + " is not a usable repository"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newHandoffCLI(t)
			require.NoError(t, os.WriteFile(f.config, []byte(fmt.Sprintf("integrations:\n  github:\n    baseUrl: %s\n    tokenEnv: TEST_GH_TOKEN\n"+
				"routing:\n  authorizedUsers: [dev]\npolling:\n  sources:\n    - %s\n", f.gh.URL(), tt.source)), 0o600))
			before := f.gh.RequestCount()
			code, _, stderr := f.run("poll", "--once", "--db", filepath.Join(t.TempDir(), "state.db"))
			assert.Equal(t, exitUsage, code, stderr)
			assert.Contains(t, stderr, "error: poll: config "+f.config+" "+tt.says)
			assert.Equal(t, before, f.gh.RequestCount(), "no cycle ran")
		})
	}
}

// The poller says at start that an empty authorized list arms nothing —
// once, and not when the list is set.
func TestPollWarnsAtStartAboutAnEmptyAuthorizedList(t *testing.T) {
	f := newHandoffCLI(t)
	code, _, stderr := f.run("poll", "--once", "--db", filepath.Join(t.TempDir(), "state.db"))
	require.Equal(t, exitOK, code, stderr)
	assert.NotContains(t, stderr, "routing.authorizedUsers")

	cfg, err := os.ReadFile(f.config)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(f.config, []byte(strings.Replace(string(cfg), "authorizedUsers: [dev, alice]", "authorizedUsers: []", 1)), 0o600))
	code, _, stderr = f.run("poll", "--once", "--db", filepath.Join(t.TempDir(), "state.db"))
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, 1, strings.Count(stderr, "routing.authorizedUsers is empty: the poller reads no comment as a command and arms nothing"), stderr)
	assert.Contains(t, stderr, "config "+f.config+" line ")
}

// A refused check --all --format json prints no half JSON document.
func TestARefusedJSONCheckPrintsNothing(t *testing.T) {
	out, errOut, code := runIn(t, t.TempDir(), "check", "--all", "--format", "json")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "no work items to check")
	out, _, _ = runIn(t, fixtureRepo(t), "check", "--all", "--format", "json")
	var reports []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &reports))
	assert.Len(t, reports, 6)
}

// `the-loop run` follows the id rule: a typo is refused with the nearest
// known ids, an id that is no folder name is refused, and an item that is
// not armed yet says so — none launches a session or creates a folder.
func TestRunRefusesUnknownIDs(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	marker := filepath.Join(t.TempDir(), "launched")
	require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`harnesses:
  fake:
    adapter: command
    argv: [/bin/sh, -c, 'touch %s', sh, "{prompt_file}"]
`, marker)), 0o600))
	env := map[string]string{"THE_LOOP_CONFIG": cfg, "THE_LOOP_DB": filepath.Join(t.TempDir(), "state.db")}
	tests := []struct {
		name string
		args []string
		code int
		says string
	}{
		{"a typo", []string{"run", "isue-2"}, exitUsage, `unknown work item "isue-2" in ` + repo},
		{"a typo, did you mean", []string{"run", "issue-22"}, exitUsage, `did you mean "issue-2"?`},
		{"not a folder name", []string{"run", "a b"}, exitUsage, `work item id "a b" is not a plain folder name`},
		{"a typo under json logs", []string{"run", "isue-2", "--log-format", "json"}, exitUsage, `"level":"ERROR","msg":"unknown work item \"isue-2\"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, env, append(tt.args, "--repo", repo)...)
			assert.Equal(t, tt.code, code, errOut)
			assert.Contains(t, errOut, tt.says)
			assert.Equal(t, 1, strings.Count(strings.TrimRight(errOut, "\n"), "\n")+1, "one line: %s", errOut)
			assert.Empty(t, out)
		})
	}
	entries, err := os.ReadDir(filepath.Join(repo, "docs", "specs"))
	require.NoError(t, err)
	for _, e := range entries {
		assert.Regexp(t, `^issue-[1-6]$`, e.Name(), "no folder was created for a refused id")
	}
	assert.NoFileExists(t, marker, "no session was launched")
}
