package main

import (
	"crypto/ed25519"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/runtimetest"
)

// gitIn runs git in dir with a fixed identity and returns its output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// baseRepo is the fixture repository as a git repository with one commit
// (the base branch), and that commit.
func baseRepo(t *testing.T) (string, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH: --trusted-keys-from reads the base with git")
	}
	repo := copyDir(t, fixtureRepo(t))
	gitIn(t, repo, "init", "-q", "-b", "main")
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", "base")
	return repo, gitIn(t, repo, "rev-parse", "HEAD")
}

// appendKey lists pub in repo's signing.pub as a bare key line, the way a
// change that slips a key in does.
func appendKey(t *testing.T, repo string, pub ed25519.PublicKey) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(repo, runtime.PublicKeyFile), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(runtime.EncodePublicKey(pub) + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// A change that appends a key to signing.pub and signs approvals with it
// passes a check that believes the working tree's key file, and fails one
// anchored at the base: the key was never trusted there.
func TestAKeyAppendedInTheChangeIsNotTrustedFromTheBase(t *testing.T) {
	repo, base := baseRepo(t)
	forger := testKeyFor("forger")
	appendKey(t, repo, forger.Public().(ed25519.PublicKey))
	require.NoError(t, runtimetest.ResignState(filepath.Join(repo, "docs", "specs", "issue-4"), forger))
	gitIn(t, repo, "commit", "-q", "-am", "forged approvals")

	out, errOut, code := runCLI(t, nil, "check", "issue-4", "--recompute", "--fail-on", "block", "--repo", repo)
	require.Equal(t, 0, code, "believing the tree's key file, the forged approvals verify: %s%s", out, errOut)

	out, errOut, code = runCLI(t, nil, "check", "issue-4", "--recompute", "--fail-on", "block", "--repo", repo, "--trusted-keys-from", base)
	assert.Equal(t, 1, code, out+errOut)
	assert.Contains(t, out, "issue-4: DRIFT")
	assert.Contains(t, out, "is signed by key "+runtime.KeyID(forger.Public().(ed25519.PublicKey))+", which is not a key this repository trusts — ignored")
	assert.Contains(t, errOut, "warning: .the-loop/signing.pub names key "+runtime.KeyID(forger.Public().(ed25519.PublicKey))+", which "+base+" does not trust and no rotation signed by a trusted key vouches for")
}

// keys rotate hands trust from the host's key to a new one: the check
// anchored at the base trusts the new key because the old one signed for it.
func TestARotatedKeyIsTrustedFromTheBase(t *testing.T) {
	repo, base := baseRepo(t)
	host := t.TempDir()
	oldKey := filepath.Join(host, "signing.key")
	require.NoError(t, runtime.WritePrivateKey(oldKey, runtimetest.FixtureKey()))
	cfg := filepath.Join(host, "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("signing:\n  privateKeyFile: "+oldKey+"\n"), 0o600))
	env := map[string]string{"THE_LOOP_CONFIG": cfg}
	newKey := filepath.Join(host, "next.key")

	out, errOut, code := runCLI(t, env, "keys", "rotate", "--repo", repo, "--key-file", newKey)
	require.Equal(t, 0, code, errOut)
	next, err := runtime.ReadPrivateKey(newKey)
	require.NoError(t, err)
	oldID, newID := runtime.KeyID(runtimetest.FixtureKey().Public().(ed25519.PublicKey)), runtime.KeyID(next.Public().(ed25519.PublicKey))
	assert.Contains(t, out, "rotated: key "+oldID+" → key "+newID+"; .the-loop/signing.pub lists both, with the rotation both keys signed — commit it\n")
	assert.Contains(t, out, "new private key: "+newKey+" (mode 0600, created)")
	assert.Contains(t, out, "then set signing.privateKeyFile: "+newKey)

	out, _, code = runCLI(t, env, "keys", "rotate", "--repo", repo, "--key-file", newKey)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "(mode 0600, kept (already there))", "a second repository reuses the new key")
	kf, err := runtime.ReadKeyFile(filepath.Join(repo, runtime.PublicKeyFile))
	require.NoError(t, err)
	assert.Len(t, kf.Keys, 2)
	assert.Len(t, kf.Rotations, 1, "running it again records the rotation once")
	out, _, _ = runCLI(t, env, "keys", "show", "--repo", repo)
	assert.Contains(t, out, ".the-loop/signing.pub records the rotation from key "+oldID+" to key "+newID+", signed by both\n")

	// The poller now signs with the new key.
	require.NoError(t, runtimetest.ResignState(filepath.Join(repo, "docs", "specs", "issue-4"), next))
	gitIn(t, repo, "commit", "-q", "-am", "rotate the signing key")
	out, errOut, code = runCLI(t, nil, "check", "issue-4", "--recompute", "--fail-on", "block", "--repo", repo, "--trusted-keys-from", base)
	assert.Equal(t, 0, code, out+errOut)
	assert.Equal(t, "issue-4: ok (at complete)\n", out)
	assert.Contains(t, errOut, "note: .the-loop/signing.pub adds key "+newID+", which a rotation both keys signed links to trusted key "+oldID+": it is trusted")

	_, errOut, code = runCLI(t, map[string]string{"THE_LOOP_CONFIG": cfg}, "keys", "rotate", "--repo", repo, "--key-file", oldKey)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "the one this host signs with already: give --key-file a new path")
}

func TestTrustedKeysFromRefusesWhatItCannotRead(t *testing.T) {
	repo, _ := baseRepo(t)
	_, errOut, code := runCLI(t, nil, "check", "issue-4", "--recompute", "--repo", repo, "--trusted-keys-from", "origin/nope")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "error: --trusted-keys-from origin/nope: git finds no such commit in "+repo+"; fetch it first, e.g. `git fetch --depth=1 origin origin/nope`")

	_, errOut, code = runCLI(t, nil, "check", "issue-4", "--recompute", "--repo", copyDir(t, fixtureRepo(t)), "--trusted-keys-from", "main")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "is not in a git repository")

	pin := map[string]string{runtime.EnvPublicKey: runtime.EncodePublicKey(runtimetest.FixtureKey().Public().(ed25519.PublicKey))}
	_, errOut, code = runCLI(t, pin, "check", "issue-4", "--recompute", "--repo", repo, "--trusted-keys-from", "main")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "both name the keys to trust; give one")

	gitIn(t, repo, "rm", "-q", runtime.PublicKeyFile)
	gitIn(t, repo, "commit", "-q", "-m", "no key")
	require.NoError(t, os.WriteFile(filepath.Join(repo, runtime.PublicKeyFile), []byte(runtime.EncodePublicKey(runtimetest.FixtureKey().Public().(ed25519.PublicKey))+"\n"), 0o644))
	out, errOut, code := runCLI(t, nil, "check", "issue-4", "--recompute", "--repo", repo, "--trusted-keys-from", "HEAD")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, errOut, "warning: HEAD has no .the-loop/signing.pub, so no key is trusted")
}
