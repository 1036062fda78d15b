package runtime

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/the-loop/the-loop/config"
)

// maxKeyFile bounds a key file read.
const maxKeyFile = 64 << 10

// LoadSigner builds the signer the configuration names: the Ed25519 private
// key (signing.privateKeyFile), pinned public keys (THE_LOOP_SIGNING_PUBLIC_KEY,
// else signing.publicKey) and the legacy HMAC key (THE_LOOP_SIGNING_KEY, else
// signing.keyFile). getenv nil reads the process environment.
func LoadSigner(cfg config.Signing, getenv func(string) string) (*Signer, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	s := &Signer{}
	if cfg.PrivateKeyFile != "" {
		priv, err := ReadPrivateKey(cfg.PrivateKeyFile)
		if err != nil {
			return nil, err
		}
		s = NewEd25519Signer(priv)
	}
	pinned, source := getenv(EnvPublicKey), EnvPublicKey
	if strings.TrimSpace(pinned) == "" {
		pinned, source = cfg.PublicKey, "signing.publicKey"
	}
	if strings.TrimSpace(pinned) != "" {
		pubs, err := ParsePublicKeys(strings.NewReplacer(",", "\n", " ", "\n").Replace(pinned))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		s.pubs, s.pinned = pubs, true
	}
	hmacKey, err := loadHMACKey(cfg.KeyFile, getenv)
	if err != nil {
		return nil, err
	}
	s.hmac = hmacKey
	return s, nil
}

func loadHMACKey(keyFile string, getenv func(string) string) ([]byte, error) {
	if k := getenv(EnvSigningKey); k != "" {
		return []byte(k), nil
	}
	if keyFile == "" {
		return nil, nil
	}
	b, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("read signing.keyFile %s: %w", keyFile, err)
	}
	k := strings.TrimSpace(string(b))
	if k == "" {
		return nil, fmt.Errorf("signing.keyFile %s is empty; put the key in it or unset signing.keyFile", keyFile)
	}
	return []byte(k), nil
}

// ForRepo returns the signer to verify root's decisions with, and warnings.
// Pinned keys are used as they are. On the poller's host its own key
// verifies, with the keys a valid rotation links to it (what its
// predecessors signed): the repository file, which a session can edit,
// never adds a key on its own. Otherwise (CI, a developer's checkout) the
// keys the repository commits in .the-loop/signing.pub verify; a file that
// cannot be read verifies nothing.
func (s *Signer) ForRepo(root string) (*Signer, []string) {
	c := s.clone()
	committed, err := ReadKeyFile(filepathOf(root))
	var warns []string
	switch {
	case err != nil && !errors.Is(err, os.ErrNotExist):
		warns = append(warns, fmt.Sprintf("warning: %v; no decision verifies with it", err))
	case c.pinned || c.priv != nil:
		if c.priv != nil && !c.pinned {
			c.pubs, _ = vouched(c.pubs, committed.Keys, committed.Rotations)
		}
		if len(committed.Keys) > 0 && !sameKeys(committed.Keys, c.pubs) {
			warns = append(warns, fmt.Sprintf("warning: %s names key(s) %s, but decisions are verified with %s (%s); review any change to that file",
				PublicKeyFile, keyIDs(committed.Keys), keyIDs(c.pubs), c.keySource()))
		}
	default:
		c.pubs = committed.Keys
	}
	return c, warns
}

// filepathOf is root's committed key file.
func filepathOf(root string) string { return filepath.Join(root, filepath.FromSlash(PublicKeyFile)) }

func (s *Signer) keySource() string {
	if s.pinned {
		return "the pinned key"
	}
	return "this host's signing key"
}

func sameKeys(a, b []ed25519.PublicKey) bool {
	for _, k := range a {
		found := false
		for _, l := range b {
			found = found || k.Equal(l)
		}
		if !found {
			return false
		}
	}
	return true
}

func keyIDs(pubs []ed25519.PublicKey) string {
	ids := make([]string, len(pubs))
	for i, p := range pubs {
		ids[i] = KeyID(p)
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// EncodePublicKey renders pub as a key line: "ed25519:BASE64".
func EncodePublicKey(pub ed25519.PublicKey) string {
	return schemeEd25519 + base64.StdEncoding.EncodeToString(pub)
}

// ParsePublicKeys reads key lines ("ed25519:BASE64"); blank lines and lines
// starting with "#" are skipped.
func ParsePublicKeys(text string) ([]ed25519.PublicKey, error) {
	var out []ed25519.PublicKey
	for i, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		b64, ok := strings.CutPrefix(l, schemeEd25519)
		raw, err := base64.StdEncoding.DecodeString(b64)
		if !ok || err != nil || len(raw) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("line %d is not a public key; each key line reads ed25519:<base64 of 32 bytes>", i+1)
		}
		out = append(out, ed25519.PublicKey(raw))
	}
	return out, nil
}

// ReadPublicKeyFile reads the keys of a committed public key file (a
// regular file; its rotation records are checked and left out).
func ReadPublicKeyFile(path string) ([]ed25519.PublicKey, error) {
	kf, err := ReadKeyFile(path)
	return kf.Keys, err
}

func readSmallRegular(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxKeyFile {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxKeyFile)
	}
	return b, nil
}

// ReadPrivateKey reads an Ed25519 private key (PEM, PKCS #8) and refuses a
// file other users can read.
func ReadPrivateKey(path string) (ed25519.PrivateKey, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("signing.privateKeyFile: %w (run `the-loop keys init` on this host, or unset the key)", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("signing.privateKeyFile %s can be read by other users (mode %04o); run chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	b, err := readSmallRegular(path)
	if err != nil {
		return nil, fmt.Errorf("signing.privateKeyFile: %w", err)
	}
	block, _ := pem.Decode(b)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("signing.privateKeyFile %s is not a PEM \"PRIVATE KEY\" file (run `the-loop keys init` to write one)", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	priv, ok := k.(ed25519.PrivateKey)
	if err != nil || !ok {
		return nil, fmt.Errorf("signing.privateKeyFile %s does not hold an Ed25519 private key", path)
	}
	return priv, nil
}

// WritePrivateKey writes priv as PEM (PKCS #8) to path with mode 0600,
// creating its directory with mode 0700.
func WritePrivateKey(path string, priv ed25519.PrivateKey) error {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return fmt.Errorf("encode the private key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	return WriteFileAtomic(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
}
