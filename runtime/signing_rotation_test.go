package runtime

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pubOf(k ed25519.PrivateKey) ed25519.PublicKey { return k.Public().(ed25519.PublicKey) }

// writeKeyFile commits kf as root's signing.pub.
func writeKeyFile(t *testing.T, root string, kf KeyFile) {
	t.Helper()
	path := filepathOf(root)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(kf.Text()), 0o644))
}

func TestKeyFileRoundTripsItsKeysAndRotations(t *testing.T) {
	old, next := testKey("old"), testKey("new")
	kf := KeyFile{}.WithKey(pubOf(old)).WithKey(pubOf(next)).WithRotation(NewRotation(old, next))
	kf = kf.WithKey(pubOf(old)).WithRotation(NewRotation(old, next))
	require.Len(t, kf.Keys, 2, "a key is listed once")
	require.Len(t, kf.Rotations, 1, "a rotation is recorded once")
	back, err := ParseKeyFile(kf.Text())
	require.NoError(t, err)
	assert.Equal(t, kf.Keys, back.Keys)
	require.Len(t, back.Rotations, 1)
	assert.True(t, back.Rotations[0].Valid())
	pubs, err := ParsePublicKeys(EncodePublicKey(pubOf(old)))
	require.NoError(t, err)
	assert.Equal(t, []ed25519.PublicKey{pubOf(old)}, pubs, "a pin is key lines only")
}

func TestAForgedRotationIsRefusedWithItsLine(t *testing.T) {
	old, next, attacker := testKey("old"), testKey("new"), testKey("attacker")
	forged := NewRotation(attacker, next)
	forged.Old = pubOf(old) // claims the trusted key vouched for it
	half := NewRotation(old, next)
	half.NewSig = NewRotation(old, attacker).NewSig
	for name, r := range map[string]Rotation{"signed by another key": forged, "one signature swapped": half} {
		t.Run(name, func(t *testing.T) {
			text := EncodePublicKey(pubOf(old)) + "\n" + r.Line() + "\n"
			_, err := ParseKeyFile(text)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "line 2: the rotation from key "+KeyID(pubOf(old)))
			assert.Contains(t, err.Error(), "does not carry both keys' signatures")
		})
	}
	_, err := ParseKeyFile("rotation ed25519:abc\n")
	assert.ErrorContains(t, err, "line 1: a rotation line reads rotation ed25519:<old key>")
	_, err = ParseKeyFile("ssh-ed25519 AAAA\n")
	assert.ErrorContains(t, err, "line 1 is not a public key")
}

func TestAnchoredAtTrustsTheBaseAndWhatItsKeysRotatedTo(t *testing.T) {
	base, next, forged := testKey("base"), testKey("next"), testKey("forged")
	baseFile := KeyFile{}.WithKey(pubOf(base))
	tests := []struct {
		name    string
		tree    KeyFile
		trusted []ed25519.PublicKey
		warns   []string
	}{
		{"unchanged", baseFile, []ed25519.PublicKey{pubOf(base)}, nil},
		{"a key appended in the change", baseFile.WithKey(pubOf(forged)), []ed25519.PublicKey{pubOf(base)},
			[]string{"warning: .the-loop/signing.pub names key " + KeyID(pubOf(forged)) + ", which origin/main does not trust and no rotation signed by a trusted key vouches for: decisions it signed are ignored"}},
		{"a rotation the base key signed", baseFile.WithKey(pubOf(next)).WithRotation(NewRotation(base, next)), []ed25519.PublicKey{pubOf(base), pubOf(next)},
			[]string{"note: .the-loop/signing.pub adds key " + KeyID(pubOf(next)) + ", which a rotation both keys signed links to trusted key " + KeyID(pubOf(base)) + ": it is trusted"}},
		{"rotated and the old key revoked in one change", KeyFile{}.WithKey(pubOf(next)).WithRotation(NewRotation(base, next)), []ed25519.PublicKey{pubOf(next)},
			[]string{"warning: .the-loop/signing.pub no longer names key " + KeyID(pubOf(base)) + ", which origin/main trusts: decisions it signed are ignored here",
				"note: .the-loop/signing.pub adds key " + KeyID(pubOf(next))}},
		{"a rotation between two untrusted keys", baseFile.WithKey(pubOf(next)).WithKey(pubOf(forged)).WithRotation(NewRotation(forged, next)), []ed25519.PublicKey{pubOf(base)},
			[]string{"names key " + KeyID(pubOf(next)), "names key " + KeyID(pubOf(forged))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeKeyFile(t, root, tt.tree)
			s, warns := NewEd25519Signer(testKey("host")).AnchoredAt(root, "origin/main", &baseFile)
			assert.ElementsMatch(t, tt.trusted, s.PublicKeys())
			require.Len(t, warns, len(tt.warns), "%q", warns)
			for i, w := range tt.warns {
				assert.Contains(t, warns[i], w)
			}
		})
	}

	t.Run("no key file at the base", func(t *testing.T) {
		root := t.TempDir()
		writeKeyFile(t, root, baseFile)
		s, warns := NewSigner(nil).AnchoredAt(root, "abc123", nil)
		assert.Empty(t, s.PublicKeys())
		assert.Equal(t, []string{"warning: abc123 has no .the-loop/signing.pub, so no key is trusted and under --recompute no recorded decision is honoured (commit the public key to the base branch first: `the-loop keys init`)"}, warns)
	})
}

func TestADecisionSignedWithAnAppendedKeyIsIgnoredWhenAnchored(t *testing.T) {
	base, forged := testKey("base"), testKey("forged")
	root := t.TempDir()
	writeKeyFile(t, root, KeyFile{}.WithKey(pubOf(base)).WithKey(pubOf(forged)))
	d := sampleDecision()
	require.NoError(t, NewEd25519Signer(forged).Sign(d))

	committed, _ := NewSigner(nil).ForRepo(root)
	trust, _ := committed.Check(d)
	assert.Equal(t, Verified, trust, "without an anchor the committed file is believed: the hole the anchor closes")

	anchored, _ := NewSigner(nil).AnchoredAt(root, "HEAD~1", &KeyFile{Keys: []ed25519.PublicKey{pubOf(base)}})
	trust, why := anchored.Check(d)
	assert.Equal(t, Forged, trust)
	assert.Contains(t, why, "is signed by key "+KeyID(pubOf(forged))+", which is not a key this repository trusts")
}

func TestTheHostKeepsVerifyingWhatItsPredecessorSigned(t *testing.T) {
	old, next, forged := testKey("old"), testKey("next"), testKey("forged")
	byOld, byForged := sampleDecision(), sampleDecision()
	require.NoError(t, NewEd25519Signer(old).Sign(byOld))
	require.NoError(t, NewEd25519Signer(forged).Sign(byForged))

	root := t.TempDir()
	writeKeyFile(t, root, KeyFile{}.WithKey(pubOf(old)).WithKey(pubOf(next)).WithKey(pubOf(forged)).WithRotation(NewRotation(old, next)))
	host, warns := NewEd25519Signer(next).ForRepo(root)
	assert.Equal(t, Verified, host.Verify(byOld), "the rotation links the old key to the host's")
	assert.Equal(t, Forged, host.Verify(byForged), "a key a session appends never verifies on the host")
	require.Len(t, warns, 1)
	assert.True(t, strings.HasPrefix(warns[0], "warning: .the-loop/signing.pub names key(s) "), warns[0])
}
