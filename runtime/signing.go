package runtime

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// EnvSigningKey names the variable holding the operator's signing key.
const EnvSigningKey = "THE_LOOP_SIGNING_KEY"

// Signer signs and verifies recorded decisions with HMAC-SHA256. A Signer
// without a key signs nothing and reports every decision as unsigned.
type Signer struct {
	key []byte
}

// NewSigner returns a signer over key (nil or empty: no key).
func NewSigner(key []byte) *Signer { return &Signer{key: append([]byte(nil), key...)} }

// LoadSigner reads the key from THE_LOOP_SIGNING_KEY, else keyFile.
func LoadSigner(keyFile string) (*Signer, error) {
	if k := os.Getenv(EnvSigningKey); k != "" {
		return NewSigner([]byte(k)), nil
	}
	if keyFile == "" {
		return NewSigner(nil), nil
	}
	b, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("read signing.keyFile %s: %w", keyFile, err)
	}
	k := strings.TrimSpace(string(b))
	if k == "" {
		return nil, fmt.Errorf("signing.keyFile %s is empty; put the key in it or unset signing.keyFile", keyFile)
	}
	return NewSigner([]byte(k)), nil
}

// HasKey reports whether a key is configured.
func (s *Signer) HasKey() bool { return s != nil && len(s.key) > 0 }

func (s *Signer) mac(d *Decision) (string, error) {
	c := *d
	c.Signature = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return "", fmt.Errorf("canonical decision: %w", err)
	}
	// Round-trip Data so numbers canonicalise identically before and after storage.
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		return "", fmt.Errorf("canonical decision: %w", err)
	}
	b, err = json.Marshal(generic)
	if err != nil {
		return "", fmt.Errorf("canonical decision: %w", err)
	}
	m := hmac.New(sha256.New, s.key)
	m.Write(b)
	return "hmac-sha256:" + hex.EncodeToString(m.Sum(nil)), nil
}

// Sign sets d.Signature (no-op without a key).
func (s *Signer) Sign(d *Decision) error {
	if !s.HasKey() {
		d.Signature = ""
		return nil
	}
	sig, err := s.mac(d)
	if err != nil {
		return err
	}
	d.Signature = sig
	return nil
}

// Trust is the verdict on a recorded decision.
type Trust int

// Trust verdicts.
const (
	// Verified: signed by this loop's key.
	Verified Trust = iota
	// Unsigned: no key is configured; honoured and reported as unsigned.
	Unsigned
	// Forged: a key is configured and the signature is missing or wrong.
	Forged
)

// Verify judges d.
func (s *Signer) Verify(d *Decision) Trust {
	if !s.HasKey() {
		return Unsigned
	}
	if d == nil || d.Signature == "" {
		return Forged
	}
	want, err := s.mac(d)
	if err != nil {
		return Forged
	}
	if hmac.Equal([]byte(want), []byte(d.Signature)) {
		return Verified
	}
	return Forged
}
