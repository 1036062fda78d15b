package main

import (
	"crypto/ed25519"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/sessionenv"
	"github.com/the-loop/the-loop/internal/testbin"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/runtimetest"
)

// Operator acts record, signed, the OS account and host that ran them
// beside the free-text --actor, in the state, the event log and (with an
// integration) the audit comment.
func TestOperatorActsRecordTheAccountAndHostThatRanThem(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	host := t.TempDir()
	key := filepath.Join(host, "signing.key")
	require.NoError(t, runtime.WritePrivateKey(key, runtimetest.FixtureKey()))
	cfg := filepath.Join(host, "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("signing:\n  privateKeyFile: "+key+"\n"), 0o600))
	env := map[string]string{"THE_LOOP_CONFIG": cfg, "THE_LOOP_DB": filepath.Join(host, "state.db")}
	run := func(args ...string) (string, string, int) { return runCLI(t, env, append(args, "--repo", repo)...) }
	me := runtime.CurrentOS()

	_, errOut, code := run("graph", "skip", "issue-2", "--node", "design", "--reason", "docs only", "--actor", "@alice")
	require.Equal(t, exitOK, code, errOut)
	_, errOut, code = run("graph", "force", "issue-2", "--to", "test-planning", "--reason", "agreed offline", "--actor", "@alice")
	require.Equal(t, exitOK, code, errOut)
	_, errOut, code = run("graph", "repos", "issue-2", "--repository", "acme/widgets", "--repository", "acme/infra", "--actor", "@alice")
	require.Equal(t, exitOK, code, errOut)

	out, _, _ := run("graph", "events", "issue-2", "--format", "json")
	var evs []runtime.EventRecord
	require.NoError(t, json.Unmarshal([]byte(out), &evs))
	seen := map[string]bool{}
	for _, e := range evs {
		switch e.Name {
		case "graph.forced", "graph.skips_declared", "graph.repos_declared":
			seen[e.Name] = true
			assert.Equal(t, me.User, e.Data["osUser"], e.Name)
			assert.Equal(t, me.Host, e.Data["host"], e.Name)
			assert.Equal(t, "@alice", firstOf(e.Data, "actor", "by"), e.Name)
		}
	}
	assert.Len(t, seen, 3, "every operator act is in the log: %v", seen)

	b, err := os.ReadFile(filepath.Join(repo, "docs", "specs", "issue-2", runtime.StateFile))
	require.NoError(t, err)
	st, err := runtime.ParseState(b, "issue-2")
	require.NoError(t, err)
	verifier := runtime.NewVerifier(runtimetest.FixtureKey().Public().(ed25519.PublicKey))
	for _, d := range []*runtime.Decision{st.Forced[0], st.Skips["design"], st.Repos} {
		assert.Equal(t, me.User, d.Data["osUser"], d.Kind)
		assert.Equal(t, me.Host, d.Data["host"], d.Kind)
		assert.Equal(t, runtime.Verified, verifier.Verify(d), "%s: the account and host are signed with the act", d.Kind)
		d.Data["osUser"] = "someone-else"
		assert.Equal(t, runtime.Forged, verifier.Verify(d), "%s: an edited account breaks the signature", d.Kind)
	}
}

func firstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return nil
}

// Inside a session the loop launched, force, skip and a repository
// declaration are refused before anything is opened; reading the
// declaration is not an act.
func TestOperatorActsAreRefusedInsideASession(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	env := map[string]string{sessionenv.ID: "s-6118d5a2e2124bc1", "THE_LOOP_DB": filepath.Join(t.TempDir(), "state.db")}
	run := func(args ...string) (string, string, int) { return runCLI(t, env, append(args, "--repo", repo)...) }
	for _, tt := range []struct {
		act  string
		args []string
	}{
		{"graph force", []string{"graph", "force", "issue-2", "--to", "complete", "--reason", "r", "--actor", "@alice"}},
		{"graph skip", []string{"graph", "skip", "issue-2", "--node", "design", "--reason", "r"}},
		{"graph repos", []string{"graph", "repos", "issue-2", "--repository", "acme/other"}},
		{"graph repos", []string{"graph", "repos", "issue-2", "--clear"}},
	} {
		_, errOut, code := run(tt.args...)
		assert.Equal(t, exitUnmet, code, "%v", tt.args)
		assert.Equal(t, "error: "+tt.act+" is an operator act and is refused inside an agent session (THE_LOOP_SESSION=s-6118d5a2e2124bc1): run it from an operator's shell on the poller's host, not from a session the loop launched\n", errOut)
	}
	assert.NoFileExists(t, env["THE_LOOP_DB"], "nothing was opened")
	out, errOut, code := run("graph", "repos", "issue-2")
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "no repository is declared")
}

// The real binary, started by a shell that carries the session's marker,
// is refused although it unset the variable in its own environment: the
// marker is found in its parent's.
func TestAnOperatorActThatUnsetsTheMarkerIsStillRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc on this system: only the process's own environment is read")
	}
	bin := testbin.Build(t, "github.com/the-loop/the-loop/cmd/the-loop")
	repo := copyDir(t, fixtureRepo(t))
	cmd := exec.Command("sh", "-c", `env -u `+sessionenv.ID+` "$0" graph force issue-2 --to complete --reason r --repo "$1"; exit $?`, bin, repo)
	cmd.Env = append(os.Environ(), sessionenv.ID+"=s-hostile", "THE_LOOP_DB="+filepath.Join(t.TempDir(), "state.db"), "THE_LOOP_CONFIG=")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", out)
	assert.Equal(t, exitUnmet, exit.ExitCode())
	assert.True(t, strings.Contains(string(out), "graph force is an operator act and is refused inside an agent session (THE_LOOP_SESSION=s-hostile)"), "%s", out)
}
