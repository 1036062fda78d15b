package runtime

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/config"
)

func testKey(seed string) ed25519.PrivateKey {
	s := sha256.Sum256([]byte(seed))
	return ed25519.NewKeyFromSeed(s[:])
}

func sampleDecision() *Decision {
	return &Decision{WorkItem: "issue-1", Loop: "walk", Node: "approve", Kind: KindGate, Outcome: "approved", Via: "comment",
		By: "@owner", At: "2026-01-01T00:00:00Z", Data: map[string]any{"evidence": []any{map[string]any{"sha256": "sha256:ab", "id": "7"}}, "n": 3}}
}

func TestEd25519SignatureVerifiesWithThePublicKeyOnly(t *testing.T) {
	priv := testKey("host")
	d := sampleDecision()
	require.NoError(t, NewEd25519Signer(priv).Sign(d))
	assert.True(t, strings.HasPrefix(d.Signature, "ed25519:"+KeyID(priv.Public().(ed25519.PublicKey))+":"))

	keyless := NewVerifier(priv.Public().(ed25519.PublicKey))
	assert.False(t, keyless.CanSign(), "a verifier holds no secret")
	trust, why := keyless.Check(d)
	assert.Equal(t, Verified, trust, why)

	// Stored and read back (numbers become float64): still verifies.
	st := NewState("issue-1")
	st.Decisions["approve"] = d
	b, err := st.Marshal()
	require.NoError(t, err)
	back, err := ParseState(b, "issue-1")
	require.NoError(t, err)
	assert.Equal(t, Verified, keyless.Verify(back.Decisions["approve"]))
}

func TestUnverifiableDecisionsAreNeverHonouredUnderRecompute(t *testing.T) {
	priv, other := testKey("host"), testKey("attacker")
	pub := priv.Public().(ed25519.PublicKey)
	signed := func(mut func(*Decision), by ed25519.PrivateKey) *Decision {
		d := sampleDecision()
		require.NoError(t, NewEd25519Signer(by).Sign(d))
		if mut != nil {
			mut(d)
		}
		return d
	}
	hmacSigned := sampleDecision()
	require.NoError(t, NewSigner([]byte("legacy")).Sign(hmacSigned))
	tests := []struct {
		name string
		d    *Decision
		want Trust
		why  string
	}{
		{"unsigned", sampleDecision(), Forged, "is not signed"},
		{"wrong key", signed(nil, other), Forged, "which is not a key this repository trusts"},
		{"edited outcome", signed(func(d *Decision) { d.Outcome = "approved-with-comments" }, priv), Forged, "does not match its signature"},
		{"edited evidence", signed(func(d *Decision) { d.Data["n"] = 4 }, priv), Forged, "does not match its signature"},
		{"moved to another node", signed(func(d *Decision) { d.Node = "build" }, priv), Forged, "does not match its signature"},
		{"moved to another item", signed(func(d *Decision) { d.WorkItem = "issue-2" }, priv), Forged, "does not match its signature"},
		{"malformed", signed(func(d *Decision) { d.Signature = "ed25519:zz:!!" }, priv), Forged, "malformed"},
		{"unknown scheme", signed(func(d *Decision) { d.Signature = "rsa:abc" }, priv), Forged, "unknown kind"},
		{"hmac without the hmac key", hmacSigned, Unverifiable, "HMAC key is not configured"},
	}
	v := NewVerifier(pub)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trust, why := v.Check(tt.d)
			assert.Equal(t, tt.want, trust)
			assert.Contains(t, why, tt.why)
			ok, _ := v.Honours(tt.d, true)
			assert.False(t, ok, "never honoured under --recompute")
			ok, _ = v.Honours(tt.d, false)
			assert.False(t, ok, "nor while walking: a key is configured")
		})
	}
	ok, _ := NewVerifier().Honours(signed(nil, priv), true)
	assert.False(t, ok, "no key at all: nothing is honoured under --recompute")
}

func TestHMACDecisionsKeepVerifyingDuringTheMigration(t *testing.T) {
	d := sampleDecision()
	require.NoError(t, NewSigner([]byte("legacy")).Sign(d))
	both := NewEd25519Signer(testKey("host")).WithHMAC([]byte("legacy"))
	assert.Equal(t, Verified, both.Verify(d), "the HMAC key still verifies old decisions")
	fresh := sampleDecision()
	require.NoError(t, both.Sign(fresh))
	assert.True(t, strings.HasPrefix(fresh.Signature, "ed25519:"), "new decisions are signed with Ed25519")
	assert.Equal(t, Unverifiable, NewEd25519Signer(testKey("host")).Verify(d), "without the HMAC key an HMAC decision is unverifiable")
}

func TestLoadSignerAndRepositoryKeys(t *testing.T) {
	dir := t.TempDir()
	priv := testKey("host")
	keyPath := filepath.Join(dir, "host", "signing.key")
	require.NoError(t, WritePrivateKey(keyPath, priv))
	fi, err := os.Stat(keyPath)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	s, err := LoadSigner(config.Signing{PrivateKeyFile: keyPath}, env(nil))
	require.NoError(t, err)
	assert.True(t, s.SignsWithEd25519())

	require.NoError(t, os.Chmod(keyPath, 0o644))
	_, err = LoadSigner(config.Signing{PrivateKeyFile: keyPath}, env(nil))
	assert.ErrorContains(t, err, "can be read by other users (mode 0644); run chmod 600")
	require.NoError(t, os.Chmod(keyPath, 0o600))

	repo := t.TempDir()
	attacker := testKey("session")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".the-loop"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, PublicKeyFile), []byte("# key\n"+EncodePublicKey(attacker.Public().(ed25519.PublicKey))+"\n"), 0o644))
	forged := sampleDecision()
	require.NoError(t, NewEd25519Signer(attacker).Sign(forged))

	host, warns := s.ForRepo(repo)
	assert.Equal(t, Forged, host.Verify(forged), "on the host, a key added to the repository file never verifies")
	require.Len(t, warns, 1)
	assert.Contains(t, warns[0], "review any change to that file")

	keyless, err := LoadSigner(config.Signing{}, env(nil))
	require.NoError(t, err)
	ci, warns := keyless.ForRepo(repo)
	assert.Empty(t, warns)
	assert.Equal(t, Verified, ci.Verify(forged), "without a pin, CI trusts the committed file")

	pinned, err := LoadSigner(config.Signing{}, env(map[string]string{EnvPublicKey: EncodePublicKey(priv.Public().(ed25519.PublicKey))}))
	require.NoError(t, err)
	pci, warns := pinned.ForRepo(repo)
	assert.Equal(t, Forged, pci.Verify(forged), "a pinned key overrides the committed file")
	assert.NotEmpty(t, warns)

	_, err = LoadSigner(config.Signing{PublicKey: "ed25519:nope"}, env(nil))
	assert.ErrorContains(t, err, "signing.publicKey: line 1 is not a public key")

	require.NoError(t, os.WriteFile(filepath.Join(repo, PublicKeyFile), []byte("garbage\n"), 0o644))
	_, warns = keyless.ForRepo(repo)
	require.Len(t, warns, 1)
	assert.Contains(t, warns[0], "no decision verifies with it")
}

// A recorded walk signed on the host verifies in an environment that holds
// only the public key, and a hand-edited copy does not.
func TestSignedWalkVerifiesKeylessWithThePublicKey(t *testing.T) {
	h := newRig(t, nil)
	priv := testKey("host")
	h.rt.Signer = NewEd25519Signer(priv)
	h.advance(h.say("select"))
	h.write("spec.md", "# spec\n")
	h.advance(nil)
	h.advance(h.say("approve"))
	h.rt.Signer = NewVerifier(priv.Public().(ed25519.PublicKey))
	rep := h.status(true)
	assert.True(t, rep.OK, "%+v", rep.Nodes)
	assert.Empty(t, rep.Drift)

	st := h.state()
	st.Decisions["approve"].By = "@mallory"
	h.mem.Put("issue-1", st)
	forged := h.rt.Status(context.Background(), "issue-1", st, true)
	assert.False(t, forged.OK)
	assert.Equal(t, "wait", node(forged, "approve").Status)
}

func TestOperatorActsWithoutASigningKeySaySo(t *testing.T) {
	h := newRig(t, nil)
	h.advance(h.say("select"))
	res, err := h.rt.Force(context.Background(), "issue-1", "complete", "demo", "@ops")
	require.NoError(t, err)
	assert.Contains(t, strings.Join(res.Cautions, "\n"), "this host holds no signing key: the force is recorded unsigned")

	signed := newRig(t, nil)
	signed.rt.Signer = NewEd25519Signer(testKey("host"))
	signed.advance(signed.say("select"))
	res, err = signed.rt.Force(context.Background(), "issue-1", "complete", "demo", "@ops")
	require.NoError(t, err)
	assert.NotContains(t, strings.Join(res.Cautions, "\n"), "no signing key")
}

// One list names the secrets of the loop's environment, for every child
// it starts: the signing key and credentials directory always, and every
// variable the config points a credential at.
func TestSensitiveEnvNamesEveryConfiguredSecret(t *testing.T) {
	assert.Equal(t, []string{EnvSigningKey, config.EnvCredentialsDirectory}, SensitiveEnv(nil))
	cfg := config.Default()
	cfg.Integrations.GitHub.TokenEnv, cfg.Integrations.Jira.TokenEnv, cfg.Integrations.Jira.EmailEnv = "GH", "JT", "JE"
	cfg.Integrations.Slack.WebhookURLEnv, cfg.MCP.HTTP.TokenEnv = "SW", "MT"
	assert.Equal(t, []string{EnvSigningKey, config.EnvCredentialsDirectory, "GH", "JT", "JE", "SW", "MT"}, SensitiveEnv(cfg))
}

// A signature that verified once verifies again from the memo; nothing
// else rides on it: another key, another message, another signature, each
// fails as before, however often the good one was verified.
func TestTheVerifiedMemoKeepsOnlyExactSuccesses(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	otherPub, _, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	msg := []byte("the-loop decision: requirements-approval approved")
	sig := ed25519.Sign(priv, msg)
	for i := 0; i < 3; i++ {
		assert.True(t, verifyEd25519(pub, msg, sig))
		assert.False(t, verifyEd25519(otherPub, msg, sig), "another key")
		assert.False(t, verifyEd25519(pub, []byte(string(msg)+"!"), sig), "another message")
		bad := append([]byte{}, sig...)
		bad[0] ^= 1
		assert.False(t, verifyEd25519(pub, msg, bad), "another signature")
	}
}
