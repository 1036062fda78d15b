package runtime

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/the-loop/the-loop/config"
)

// EnvSigningKey names the variable holding the legacy HMAC signing key.
const EnvSigningKey = "THE_LOOP_SIGNING_KEY"

// EnvPublicKey names the variable that pins the verification key(s): a
// public value ("ed25519:BASE64", several separated by spaces or commas)
// that overrides the repository's committed key, for CI.
const EnvPublicKey = "THE_LOOP_SIGNING_PUBLIC_KEY"

// PublicKeyFile is where a repository commits its verification key, relative
// to its root.
const PublicKeyFile = ".the-loop/signing.pub"

// Signature scheme prefixes.
const (
	schemeEd25519 = "ed25519:"
	schemeHMAC    = "hmac-sha256:"
)

// signingDomain separates decision signatures from any other use of a key.
const signingDomain = "the-loop decision v1\n"

// Signer signs and verifies recorded decisions. Decisions are signed with
// Ed25519 when a private key is loaded (the poller's host), else with the
// legacy HMAC key, else not at all. They verify with the Ed25519 public keys
// the signer trusts — pinned ones, else the host key's own, else the keys the
// repository commits — or, during the migration, with the HMAC key when it
// is present.
type Signer struct {
	priv ed25519.PrivateKey
	pubs []ed25519.PublicKey
	// pinned: pubs were given explicitly and no repository file adds to them.
	pinned bool
	hmac   []byte
}

// NewSigner returns a legacy HMAC signer over key (nil or empty: no key).
func NewSigner(key []byte) *Signer { return &Signer{hmac: append([]byte(nil), key...)} }

// NewEd25519Signer returns a signer holding priv: it signs with it and
// verifies with its public half only.
func NewEd25519Signer(priv ed25519.PrivateKey) *Signer {
	return &Signer{priv: priv, pubs: []ed25519.PublicKey{priv.Public().(ed25519.PublicKey)}}
}

// NewVerifier returns a signer that only verifies, with pubs (pinned).
func NewVerifier(pubs ...ed25519.PublicKey) *Signer {
	return &Signer{pubs: append([]ed25519.PublicKey(nil), pubs...), pinned: true}
}

// WithHMAC returns a copy of s that also signs (when it holds no Ed25519
// key) and verifies with the legacy HMAC key.
func (s *Signer) WithHMAC(key []byte) *Signer {
	c := s.clone()
	c.hmac = append([]byte(nil), key...)
	return c
}

func (s *Signer) clone() *Signer {
	if s == nil {
		return &Signer{}
	}
	c := *s
	c.pubs = append([]ed25519.PublicKey(nil), s.pubs...)
	return &c
}

// HasKey reports whether the signer holds any key to verify with.
func (s *Signer) HasKey() bool { return s != nil && (len(s.pubs) > 0 || len(s.hmac) > 0) }

// Pinned reports whether the keys to verify with were given explicitly
// (THE_LOOP_SIGNING_PUBLIC_KEY or signing.publicKey).
func (s *Signer) Pinned() bool { return s != nil && s.pinned }

// CanSign reports whether new decisions get a signature.
func (s *Signer) CanSign() bool { return s != nil && (s.priv != nil || len(s.hmac) > 0) }

// SignsWithEd25519 reports whether new decisions get an Ed25519 signature.
func (s *Signer) SignsWithEd25519() bool { return s != nil && s.priv != nil }

// PublicKeys returns the Ed25519 keys the signer verifies with.
func (s *Signer) PublicKeys() []ed25519.PublicKey {
	if s == nil {
		return nil
	}
	return append([]ed25519.PublicKey(nil), s.pubs...)
}

// canonical is the bytes a signature covers: d without its signature, as
// JSON whose numbers read back identically after storage.
func canonical(d *Decision) ([]byte, error) {
	c := *d
	c.Signature = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return nil, fmt.Errorf("canonical decision: %w", err)
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		return nil, fmt.Errorf("canonical decision: %w", err)
	}
	if b, err = json.Marshal(generic); err != nil {
		return nil, fmt.Errorf("canonical decision: %w", err)
	}
	return b, nil
}

func (s *Signer) mac(d *Decision) (string, error) {
	b, err := canonical(d)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, s.hmac)
	m.Write(b)
	return schemeHMAC + hex.EncodeToString(m.Sum(nil)), nil
}

// KeyID names a public key: the first 16 hex digits of its SHA-256.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

// Sign sets d.Signature: Ed25519 when a private key is held, else HMAC when
// that key is, else none.
func (s *Signer) Sign(d *Decision) error {
	switch {
	case s != nil && s.priv != nil:
		return s.signEd25519(d)
	case s.CanSign():
		sig, err := s.mac(d)
		if err != nil {
			return err
		}
		d.Signature = sig
		return nil
	}
	d.Signature = ""
	return nil
}

func (s *Signer) signEd25519(d *Decision) error {
	b, err := canonical(d)
	if err != nil {
		return err
	}
	sig := ed25519.Sign(s.priv, append([]byte(signingDomain), b...))
	d.Signature = schemeEd25519 + KeyID(s.priv.Public().(ed25519.PublicKey)) + ":" + base64.RawStdEncoding.EncodeToString(sig)
	return nil
}

// Trust is the verdict on a recorded decision.
type Trust int

// Trust verdicts.
const (
	// Verified: its signature verifies with a key the signer trusts.
	Verified Trust = iota
	// Unsigned: the signer holds no key at all, so nothing can be checked.
	// Outside --recompute it is honoured and reported; under --recompute
	// never.
	Unsigned
	// Forged: the signature is missing, malformed, or does not verify.
	Forged
	// Unverifiable: signed with a scheme or key the signer does not hold
	// (an HMAC signature without the HMAC key, an Ed25519 signature with no
	// public key). Never honoured.
	Unverifiable
)

// Verify judges d.
func (s *Signer) Verify(d *Decision) Trust {
	t, _ := s.Check(d)
	return t
}

// Check judges d and says why it is not verified ("" when it is).
func (s *Signer) Check(d *Decision) (Trust, string) {
	switch {
	case d == nil:
		return Forged, "is empty"
	case !s.HasKey():
		return Unsigned, "cannot be verified: no signing key is configured"
	case d.Signature == "":
		return Forged, "is not signed"
	case strings.HasPrefix(d.Signature, schemeEd25519):
		return s.checkEd25519(d)
	case strings.HasPrefix(d.Signature, schemeHMAC):
		if len(s.hmac) == 0 {
			return Unverifiable, "carries a legacy HMAC signature and the HMAC key is not configured (THE_LOOP_SIGNING_KEY or signing.keyFile)"
		}
		want, err := s.mac(d)
		if err != nil || !hmac.Equal([]byte(want), []byte(d.Signature)) {
			return Forged, "does not match its HMAC signature (edited, moved or forged)"
		}
		return Verified, ""
	}
	return Forged, "carries a signature of an unknown kind"
}

func (s *Signer) checkEd25519(d *Decision) (Trust, string) {
	if len(s.pubs) == 0 {
		return Unverifiable, "is signed with Ed25519 but no public key is available (commit " + PublicKeyFile + " or set " + EnvPublicKey + ")"
	}
	kid, b64, ok := strings.Cut(strings.TrimPrefix(d.Signature, schemeEd25519), ":")
	sig, err := base64.RawStdEncoding.DecodeString(b64)
	if !ok || err != nil || len(sig) != ed25519.SignatureSize {
		return Forged, "carries a malformed Ed25519 signature"
	}
	msg, err := canonical(d)
	if err != nil {
		return Forged, "cannot be encoded to check its signature"
	}
	msg = append([]byte(signingDomain), msg...)
	known := false
	for _, pub := range s.pubs {
		if KeyID(pub) != kid {
			continue
		}
		known = true
		if verifyEd25519(pub, msg, sig) {
			return Verified, ""
		}
	}
	if !known {
		return Forged, "is signed by key " + kid + ", which is not a key this repository trusts"
	}
	return Forged, "does not match its signature (edited, moved or forged)"
}

// verified remembers the signatures this process has verified: a key, a
// message and a signature that verified once verify again (Ed25519 is
// deterministic), so a long-running server checking the same decisions on
// every call pays the curve arithmetic once. Only successes are kept; a
// failure is checked afresh each time.
var verified = struct {
	sync.Mutex
	m map[[sha256.Size]byte]struct{}
}{m: map[[sha256.Size]byte]struct{}{}}

// maxVerified bounds the memo (about 64 bytes an entry); it starts over
// when full.
const maxVerified = 1 << 14

// verifyEd25519 is ed25519.Verify with the memo of successes.
func verifyEd25519(pub ed25519.PublicKey, msg, sig []byte) bool {
	h := sha256.New()
	h.Write(pub)
	h.Write(sig)
	h.Write(msg)
	var key [sha256.Size]byte
	h.Sum(key[:0])
	verified.Lock()
	_, ok := verified.m[key]
	verified.Unlock()
	if ok {
		return true
	}
	if !ed25519.Verify(pub, msg, sig) {
		return false
	}
	verified.Lock()
	if len(verified.m) >= maxVerified {
		clear(verified.m)
	}
	verified.m[key] = struct{}{}
	verified.Unlock()
	return true
}

// Honours reports whether d may be relied on, and why not. Under strict
// (check --recompute) only a verified decision is; otherwise a decision is
// also honoured, and reported, when no key at all is configured.
func (s *Signer) Honours(d *Decision, strict bool) (bool, string) {
	t, why := s.Check(d)
	switch {
	case t == Verified:
		return true, ""
	case t == Unsigned && !strict:
		return true, why
	case t == Unsigned:
		return false, "is not verified (no signing key or public key is configured), and --recompute honours only verified decisions"
	}
	return false, why
}

// SensitiveEnv names the variables of the loop's environment that hold
// secrets by its config — the tracker tokens and e-mail login, the Slack
// webhook, the MCP bearer token — beside the signing key and systemd's
// credentials directory. No child the loop starts (a session, a critic, a
// repository's command) gets them, and what a child prints is scrubbed of
// their values; envvar.LooksSecret catches more by name.
func SensitiveEnv(cfg *config.Config) []string {
	out := []string{EnvSigningKey, config.EnvCredentialsDirectory}
	if cfg == nil {
		return out
	}
	i := cfg.Integrations
	for _, n := range []string{i.GitHub.TokenEnv, i.Jira.TokenEnv, i.Jira.EmailEnv, i.Slack.WebhookURLEnv, cfg.MCP.HTTP.TokenEnv} {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}
