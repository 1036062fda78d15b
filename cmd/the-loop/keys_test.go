package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/runtimetest"
)

// forgeRecord writes a hand-made record for issue-9 claiming completion,
// with every skippable phase skipped by an account that is not authorized.
func forgeRecord(t *testing.T, repo string, sign func(*runtime.Decision)) {
	t.Helper()
	st := runtime.NewState("issue-9")
	st.Loop, st.CurrentNode = "pdlc-work-item-loop", "complete"
	add := func(m map[string]*runtime.Decision, node, kind, outcome string) {
		d := &runtime.Decision{WorkItem: "issue-9", Loop: st.Loop, Node: node, Kind: kind, Outcome: outcome, Via: "selection", By: "@mallory", At: "2026-01-01T00:00:00Z"}
		if sign != nil {
			sign(d)
		}
		m[node] = d
	}
	add(st.Decisions, "phase-selection", runtime.KindSelection, "selected")
	for _, n := range []string{"brainstorming", "requirements-definition", "design", "test-planning", "tasks-breakdown", "implementation"} {
		add(st.Skips, n, runtime.KindSkip, "")
	}
	for _, n := range []string{"requirements-approval", "design-approval", "human-approval"} {
		add(st.Decisions, n, runtime.KindGate, "approved")
		st.Record(n).Outcome, st.Record(n).ExitedAt, st.Record(n).EnteredAt = "approved", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"
	}
	dir := filepath.Join(repo, "docs", "specs", "issue-9")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, runtimetest.WritePortable(dir, st))
}

func TestRecomputeFailsOnAForgedRecordWithAndWithoutKeys(t *testing.T) {
	attacker := runtime.NewEd25519Signer(testKeyFor("attacker"))
	cases := []struct {
		name string
		sign func(*runtime.Decision)
		env  map[string]string
		drop bool // no committed public key
	}{
		{"unsigned, committed public key only", nil, nil, false},
		{"unsigned, no key anywhere", nil, nil, true},
		{"unsigned, legacy hmac key in the environment", nil, map[string]string{runtime.EnvSigningKey: "k"}, false},
		{"signed by another key", func(d *runtime.Decision) { _ = attacker.Sign(d) }, nil, false},
		{"hmac-signed without the hmac key", func(d *runtime.Decision) { _ = runtime.NewSigner([]byte("k")).Sign(d) }, nil, false},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			repo := copyDir(t, fixtureRepo(t))
			forgeRecord(t, repo, tt.sign)
			if tt.drop {
				require.NoError(t, os.Remove(filepath.Join(repo, runtime.PublicKeyFile)))
			}
			for _, failOn := range []string{"unmet", "block"} {
				out, errOut, code := runCLI(t, tt.env, "check", "issue-9", "--recompute", "--fail-on", failOn, "--repo", repo)
				assert.Equal(t, 1, code, "--fail-on %s: %s %s", failOn, out, errOut)
				assert.True(t, strings.HasPrefix(out, "issue-9: DRIFT (at phase-selection)\n"), out)
				assert.Contains(t, out, "  DRIFT  the record stands at complete, but recomputation stops at phase-selection")
				assert.Contains(t, out, `  DRIFT  the record says requirements-approval exited "approved"`)
			}
			out, _, _ := runCLI(t, tt.env, "check", "issue-9", "--recompute", "--format", "json", "--repo", repo)
			var rep runtime.Report
			require.NoError(t, json.Unmarshal([]byte(out), &rep))
			assert.False(t, rep.OK)
			assert.NotEmpty(t, rep.Drift)
		})
	}
}

func TestSignedFixtureVerifiesKeylessWithThePublicKeyOnly(t *testing.T) {
	out, errOut, code := runCLI(t, nil, "check", "issue-4", "--recompute", "--fail-on", "block", "--repo", fixtureRepo(t))
	assert.Equal(t, 0, code, out+errOut)
	assert.Equal(t, "issue-4: ok (at complete)\n", out)
	assert.NotContains(t, errOut, "warning")
}

func TestKeysInit(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	key := filepath.Join(t.TempDir(), "host", "signing.key")
	out, errOut, code := runCLI(t, nil, "keys", "init", "--repo", repo, "--key-file", key)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "private key: "+key+" (mode 0600, created)")
	assert.Contains(t, out, "public key:  .the-loop/signing.pub")
	assert.Contains(t, out, "next: set signing.privateKeyFile: "+key)
	fi, err := os.Stat(key)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	pubs, err := runtime.ReadPublicKeyFile(filepath.Join(repo, runtime.PublicKeyFile))
	require.NoError(t, err)
	assert.Len(t, pubs, 2, "the fixture's key is kept beside the new one")
	b, _ := os.ReadFile(key)
	for _, p := range pubs {
		assert.NotContains(t, string(b), runtime.EncodePublicKey(p))
	}

	out, _, code = runCLI(t, nil, "keys", "init", "--repo", repo, "--key-file", key)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "(mode 0600, kept (already there))")
	pubs, _ = runtime.ReadPublicKeyFile(filepath.Join(repo, runtime.PublicKeyFile))
	assert.Len(t, pubs, 2, "running it again adds nothing")

	_, errOut, code = runCLI(t, nil, "keys", "init", "--repo", repo, "--key-file", filepath.Join(repo, "secret.key"))
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "the private key must stay outside the repository")
	assert.NoFileExists(t, filepath.Join(repo, "secret.key"))
}

func TestKeysResignMigratesHMACDecisions(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	host := t.TempDir()
	key := filepath.Join(host, "signing.key")
	cfg := filepath.Join(host, "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("signing:\n  privateKeyFile: "+key+"\n"), 0o600))
	env := map[string]string{"THE_LOOP_CONFIG": cfg, "THE_LOOP_DB": filepath.Join(host, "state.db"), runtime.EnvSigningKey: "legacy"}
	_, errOut, code := runCLI(t, env, "keys", "init", "--repo", repo, "--key-file", key)
	require.Equal(t, 0, code, errOut)
	forgeRecord(t, repo, func(d *runtime.Decision) { _ = runtime.NewSigner([]byte("legacy")).Sign(d) })

	out, errOut, code := runCLI(t, env, "keys", "resign", "issue-9", "--repo", repo)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "issue-9: 10 decision(s) re-signed with Ed25519, bound to github.com/acme/widgets, 0 left as they were\n", out)

	delete(env, runtime.EnvSigningKey)
	out, _, _ = runCLI(t, env, "check", "issue-9", "--recompute", "--format", "json", "--repo", repo)
	assert.Contains(t, out, "skipped by declaration — via selection, by @mallory", "the re-signed decisions verify without the HMAC key")
}
