package runtime

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
)

// rotationDomain separates a key rotation's signatures from any other use
// of a key.
const rotationDomain = "the-loop key rotation v1\n"

// rotationWord starts a rotation record's line in signing.pub.
const rotationWord = "rotation"

// Rotation is a record of signing.pub saying that key Old was replaced by
// key New, signed by both: Old vouches for New, so a verifier that trusts
// Old (CI, anchored at the base branch) may trust New; New names Old as its
// predecessor, so the host that now holds New keeps verifying what Old
// signed. Neither half can be written without both private keys.
type Rotation struct {
	Old, New       ed25519.PublicKey
	OldSig, NewSig []byte
}

// rotationMessage is what both signatures of a rotation cover.
func rotationMessage(old, new ed25519.PublicKey) []byte {
	return []byte(rotationDomain + EncodePublicKey(old) + "\n" + EncodePublicKey(new) + "\n")
}

// NewRotation signs the rotation from old to new with both private keys.
func NewRotation(old, new ed25519.PrivateKey) Rotation {
	op, np := old.Public().(ed25519.PublicKey), new.Public().(ed25519.PublicKey)
	msg := rotationMessage(op, np)
	return Rotation{Old: op, New: np, OldSig: ed25519.Sign(old, msg), NewSig: ed25519.Sign(new, msg)}
}

// Valid reports whether both signatures verify.
func (r Rotation) Valid() bool {
	if len(r.Old) != ed25519.PublicKeySize || len(r.New) != ed25519.PublicKeySize ||
		len(r.OldSig) != ed25519.SignatureSize || len(r.NewSig) != ed25519.SignatureSize {
		return false
	}
	msg := rotationMessage(r.Old, r.New)
	return ed25519.Verify(r.Old, msg, r.OldSig) && ed25519.Verify(r.New, msg, r.NewSig)
}

// Line renders r as its signing.pub line.
func (r Rotation) Line() string {
	return strings.Join([]string{rotationWord, EncodePublicKey(r.Old), EncodePublicKey(r.New),
		base64.StdEncoding.EncodeToString(r.OldSig), base64.StdEncoding.EncodeToString(r.NewSig)}, " ")
}

// KeyFile is a parsed signing.pub: its key lines and its rotation records.
type KeyFile struct {
	Keys      []ed25519.PublicKey
	Rotations []Rotation
}

// keyFileHeader opens every signing.pub the loop writes.
const keyFileHeader = "# the-loop decision signing keys (Ed25519 public keys). Commit this file; review every change to it.\n" +
	"# `the-loop check --recompute` verifies recorded decisions with these keys; no secret is needed.\n" +
	"# A rotation line (written by `the-loop keys rotate`) is signed by the old key and the new one.\n"

// ParseKeyFile reads signing.pub: blank lines and "#" lines are skipped;
// every other line is a key ("ed25519:BASE64") or a rotation record
// ("rotation ed25519:OLD ed25519:NEW SIGNATURE-BY-OLD SIGNATURE-BY-NEW").
// A rotation whose signatures do not verify is an error naming its line:
// the file is not what `the-loop keys rotate` wrote.
func ParseKeyFile(text string) (KeyFile, error) {
	var kf KeyFile
	for i, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, rotationWord+" "):
			r, err := parseRotation(strings.Fields(l)[1:])
			if err != nil {
				return KeyFile{}, fmt.Errorf("line %d: %w", i+1, err)
			}
			kf.Rotations = append(kf.Rotations, r)
		default:
			k, ok := parseKeyLine(l)
			if !ok {
				return KeyFile{}, fmt.Errorf("line %d is not a public key; each key line reads ed25519:<base64 of 32 bytes>", i+1)
			}
			kf.Keys = append(kf.Keys, k)
		}
	}
	return kf, nil
}

func parseKeyLine(l string) (ed25519.PublicKey, bool) {
	b64, ok := strings.CutPrefix(l, schemeEd25519)
	raw, err := base64.StdEncoding.DecodeString(b64)
	if !ok || err != nil || len(raw) != ed25519.PublicKeySize {
		return nil, false
	}
	return ed25519.PublicKey(raw), true
}

func parseRotation(f []string) (Rotation, error) {
	const form = "a rotation line reads rotation ed25519:<old key> ed25519:<new key> <signature by the old key> <signature by the new key>"
	if len(f) != 4 {
		return Rotation{}, errors.New(form)
	}
	old, ok1 := parseKeyLine(f[0])
	new, ok2 := parseKeyLine(f[1])
	oldSig, err1 := base64.StdEncoding.DecodeString(f[2])
	newSig, err2 := base64.StdEncoding.DecodeString(f[3])
	if !ok1 || !ok2 || err1 != nil || err2 != nil {
		return Rotation{}, errors.New(form)
	}
	r := Rotation{Old: old, New: new, OldSig: oldSig, NewSig: newSig}
	if !r.Valid() {
		return Rotation{}, fmt.Errorf("the rotation from key %s to key %s does not carry both keys' signatures (edited or forged); run `the-loop keys rotate` on the poller's host to write it", KeyID(old), KeyID(new))
	}
	return r, nil
}

// Text renders kf as the loop writes signing.pub: the header, the keys,
// then the rotations.
func (kf KeyFile) Text() string {
	var b strings.Builder
	b.WriteString(keyFileHeader)
	for _, k := range kf.Keys {
		b.WriteString(EncodePublicKey(k) + "\n")
	}
	for _, r := range kf.Rotations {
		b.WriteString(r.Line() + "\n")
	}
	return b.String()
}

// WithKey returns kf with pub added unless it is listed already.
func (kf KeyFile) WithKey(pub ed25519.PublicKey) KeyFile {
	if hasKey(kf.Keys, pub) {
		return kf
	}
	kf.Keys = append(append([]ed25519.PublicKey(nil), kf.Keys...), pub)
	return kf
}

// WithRotation returns kf with r added unless the same pair is recorded.
func (kf KeyFile) WithRotation(r Rotation) KeyFile {
	for _, have := range kf.Rotations {
		if have.Old.Equal(r.Old) && have.New.Equal(r.New) {
			return kf
		}
	}
	kf.Rotations = append(append([]Rotation(nil), kf.Rotations...), r)
	return kf
}

// ReadKeyFile reads a committed signing.pub (a regular file).
func ReadKeyFile(path string) (KeyFile, error) {
	b, err := readSmallRegular(path)
	if err != nil {
		return KeyFile{}, err
	}
	kf, err := ParseKeyFile(string(b))
	if err != nil {
		return KeyFile{}, fmt.Errorf("%s: %w", path, err)
	}
	return kf, nil
}

// vouched returns anchor and every key of listed that a chain of valid
// rotations links to a key already trusted, in either direction: the old
// key of a trusted new one (its history), the new key of a trusted old one
// (its successor). A key the file no longer lists is never added: removing
// a key line revokes it.
func vouched(anchor, listed []ed25519.PublicKey, rots []Rotation) (trusted []ed25519.PublicKey, by map[string]string) {
	trusted = append([]ed25519.PublicKey(nil), anchor...)
	by = map[string]string{}
	for changed := true; changed; {
		changed = false
		for _, r := range rots {
			for _, pair := range [][2]ed25519.PublicKey{{r.Old, r.New}, {r.New, r.Old}} {
				from, to := pair[0], pair[1]
				if hasKey(trusted, from) && !hasKey(trusted, to) && hasKey(listed, to) && r.Valid() {
					trusted = append(trusted, to)
					by[KeyID(to)] = KeyID(from)
					changed = true
				}
			}
		}
	}
	return trusted, by
}

func hasKey(keys []ed25519.PublicKey, k ed25519.PublicKey) bool {
	for _, have := range keys {
		if have.Equal(k) {
			return true
		}
	}
	return false
}

// AnchoredAt returns the signer that verifies root's decisions with the
// keys a trusted base already trusts: base is .the-loop/signing.pub at the
// git ref ref (nil when the ref has none). Trusted are the base's keys the
// working tree still lists, and every key the tree lists that a valid
// rotation links to one of them; a key the change adds without such a
// rotation, or drops, is named in a warning. Pinned keys and this host's
// own are replaced: the base is the anchor.
func (s *Signer) AnchoredAt(root, ref string, base *KeyFile) (*Signer, []string) {
	c := s.clone()
	c.pinned = true
	c.pubs = nil
	var warns []string
	if base == nil {
		return c, []string{fmt.Sprintf("warning: %s has no %s, so no key is trusted and under --recompute no recorded decision is honoured (commit the public key to the base branch first: `the-loop keys init`)", ref, PublicKeyFile)}
	}
	tree, err := ReadKeyFile(filepathOf(root))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return c, []string{fmt.Sprintf("warning: the working tree has no %s, so no key %s trusts is trusted here: under --recompute no recorded decision is honoured", PublicKeyFile, ref)}
	case err != nil:
		return c, []string{fmt.Sprintf("warning: %v; no decision verifies with it", err)}
	}
	for _, k := range base.Keys {
		if !hasKey(tree.Keys, k) {
			warns = append(warns, fmt.Sprintf("warning: %s no longer names key %s, which %s trusts: decisions it signed are ignored here", PublicKeyFile, KeyID(k), ref))
		}
	}
	// Trust spreads from every key the base trusts (a rotation and the
	// revocation of the old key may come in one change), but only to keys
	// the working tree still lists.
	spread, by := vouched(base.Keys, tree.Keys, append(append([]Rotation(nil), base.Rotations...), tree.Rotations...))
	var trusted []ed25519.PublicKey
	for _, k := range tree.Keys {
		switch {
		case hasKey(base.Keys, k):
			trusted = append(trusted, k)
		case hasKey(spread, k):
			trusted = append(trusted, k)
			warns = append(warns, fmt.Sprintf("note: %s adds key %s, which a rotation both keys signed links to trusted key %s: it is trusted", PublicKeyFile, KeyID(k), by[KeyID(k)]))
		default:
			warns = append(warns, fmt.Sprintf("warning: %s names key %s, which %s does not trust and no rotation signed by a trusted key vouches for: decisions it signed are ignored (review this change to %s; `the-loop keys rotate` writes a rotation the check accepts)",
				PublicKeyFile, KeyID(k), ref, PublicKeyFile))
		}
	}
	c.pubs = trusted
	return c, warns
}

// Rotate signs the rotation from the key s holds to next with both keys:
// the one signing act that hands trust from this host's key to its
// successor. s must hold an Ed25519 private key other than next.
func (s *Signer) Rotate(next ed25519.PrivateKey) (Rotation, error) {
	if !s.SignsWithEd25519() {
		return Rotation{}, errors.New("no Ed25519 signing key is loaded to rotate from: set signing.privateKeyFile to this host's key (`the-loop keys init` makes one)")
	}
	if s.priv.Equal(next) {
		return Rotation{}, fmt.Errorf("the new key is key %s, the one this host signs with already: give --key-file a new path", KeyID(pubOfKey(next)))
	}
	return NewRotation(s.priv, next), nil
}

// HostKey returns the public half of the key s signs with (nil without one).
func (s *Signer) HostKey() ed25519.PublicKey {
	if !s.SignsWithEd25519() {
		return nil
	}
	return pubOfKey(s.priv)
}

func pubOfKey(k ed25519.PrivateKey) ed25519.PublicKey { return k.Public().(ed25519.PublicKey) }
