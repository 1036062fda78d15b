package service

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/artifacts"
)

// KeysInitRequest makes (or reuses) the host's signing key pair.
type KeysInitRequest struct {
	Repo string `json:"repo"`
	// KeyFile is where the private key lives on this host.
	KeyFile string `json:"keyFile"`
	// Force replaces an existing private key with a new one.
	Force bool `json:"force"`
}

// KeysInitResult says what was written.
type KeysInitResult struct {
	KeyFile string `json:"keyFile"`
	// Created is false when an existing private key was reused.
	Created       bool   `json:"created"`
	PublicKeyFile string `json:"publicKeyFile"`
	PublicKey     string `json:"publicKey"`
	KeyID         string `json:"keyId"`
	// Configured is true when signing.privateKeyFile already names KeyFile.
	Configured bool     `json:"configured"`
	Warnings   []string `json:"-"`
}

// KeysInit writes the host's Ed25519 private key (mode 0600, never inside
// the repository), reusing one that exists unless Force, and adds its public
// half to the repository's .the-loop/signing.pub (keys already there are
// kept, so decisions they signed still verify).
func (s *Service) KeysInit(ctx context.Context, req KeysInitRequest) (KeysInitResult, error) {
	if err := ctx.Err(); err != nil {
		return KeysInitResult{}, err
	}
	repo, err := s.openRepo(req.Repo)
	if err != nil {
		return KeysInitResult{}, err
	}
	if req.KeyFile == "" {
		return KeysInitResult{}, invalid(errors.New("no private key path: give --key-file or set signing.privateKeyFile"))
	}
	keyFile, err := filepath.Abs(req.KeyFile)
	if err != nil {
		return KeysInitResult{}, fmt.Errorf("--key-file %s: %w", req.KeyFile, err)
	}
	if inside(repo.Root, keyFile) {
		return KeysInitResult{}, invalid(fmt.Errorf("the private key must stay outside the repository (%s is inside %s); use a path such as ~/.config/the-loop/signing.key", keyFile, repo.Root))
	}
	res := KeysInitResult{KeyFile: keyFile, PublicKeyFile: runtime.PublicKeyFile}
	if cfg := s.cfg.Signing.PrivateKeyFile; cfg != "" {
		abs, _ := filepath.Abs(cfg)
		res.Configured = abs == keyFile
	}
	priv, err := runtime.ReadPrivateKey(keyFile)
	switch {
	case err == nil && !req.Force:
	case err == nil || errors.Is(err, os.ErrNotExist):
		_, priv, err = ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return res, fmt.Errorf("generate the key: %w", err)
		}
		if err := runtime.WritePrivateKey(keyFile, priv); err != nil {
			return res, err
		}
		res.Created = true
	default:
		return res, err
	}
	pub := priv.Public().(ed25519.PublicKey)
	res.PublicKey, res.KeyID = runtime.EncodePublicKey(pub), runtime.KeyID(pub)
	return res, writePublicKey(filepath.Join(repo.Root, filepath.FromSlash(runtime.PublicKeyFile)), pub)
}

// writePublicKey adds pub to the committed key file, keeping its other keys
// and its rotations.
func writePublicKey(path string, pub ed25519.PublicKey) error {
	return updateKeyFile(path, func(kf runtime.KeyFile) runtime.KeyFile { return kf.WithKey(pub) })
}

// updateKeyFile rewrites the committed key file through edit (an absent
// file starts empty); one it cannot read is left as it is.
func updateKeyFile(path string, edit func(runtime.KeyFile) runtime.KeyFile) error {
	kf, err := runtime.ReadKeyFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w; fix or remove it, then run the command again", err)
	}
	return runtime.WriteFileAtomic(path, []byte(edit(kf).Text()), 0o644)
}

// KeysRotateRequest hands trust from the host's key to a new one.
type KeysRotateRequest struct {
	Repo string `json:"repo"`
	// KeyFile is where the new private key lives (made when absent,
	// reused when it holds one: the rotation of a second repository).
	KeyFile string `json:"keyFile"`
}

// KeysRotateResult says what the rotation wrote.
type KeysRotateResult struct {
	KeyFile       string   `json:"keyFile"`
	Created       bool     `json:"created"`
	OldKeyID      string   `json:"oldKeyId"`
	NewKeyID      string   `json:"newKeyId"`
	PublicKeyFile string   `json:"publicKeyFile"`
	Warnings      []string `json:"-"`
}

// KeysRotate makes (or reuses) the new private key at KeyFile (mode 0600,
// never inside the repository) and writes into the repository's
// .the-loop/signing.pub the new key and the rotation from the host's key to
// it, signed by both: check --trusted-keys-from trusts the new key because
// the key the base trusts signed for it, and the host that holds the new key
// keeps verifying what the old one signed.
func (s *Service) KeysRotate(ctx context.Context, req KeysRotateRequest) (KeysRotateResult, error) {
	if err := ctx.Err(); err != nil {
		return KeysRotateResult{}, err
	}
	repo, err := s.openRepo(req.Repo)
	if err != nil {
		return KeysRotateResult{}, err
	}
	signer := s.deps.Signer
	old := signer.HostKey()
	if old == nil {
		return KeysRotateResult{}, invalid(errors.New("no Ed25519 signing key is loaded to rotate from: set signing.privateKeyFile to this host's key (`the-loop keys init` makes one)"))
	}
	if req.KeyFile == "" {
		return KeysRotateResult{}, invalid(errors.New("no path for the new private key: give --key-file"))
	}
	keyFile, err := filepath.Abs(req.KeyFile)
	if err != nil {
		return KeysRotateResult{}, fmt.Errorf("--key-file %s: %w", req.KeyFile, err)
	}
	if inside(repo.Root, keyFile) {
		return KeysRotateResult{}, invalid(fmt.Errorf("the private key must stay outside the repository (%s is inside %s)", keyFile, repo.Root))
	}
	res := KeysRotateResult{KeyFile: keyFile, OldKeyID: runtime.KeyID(old), PublicKeyFile: runtime.PublicKeyFile}
	next, err := runtime.ReadPrivateKey(keyFile)
	switch {
	case err == nil:
	case errors.Is(err, os.ErrNotExist):
		if _, next, err = ed25519.GenerateKey(rand.Reader); err != nil {
			return res, fmt.Errorf("generate the key: %w", err)
		}
		res.Created = true
	default:
		return res, err
	}
	rot, err := signer.Rotate(next)
	if err != nil {
		return res, invalid(err)
	}
	if res.Created {
		if err := runtime.WritePrivateKey(keyFile, next); err != nil {
			return res, err
		}
	}
	res.NewKeyID = runtime.KeyID(rot.New)
	err = updateKeyFile(filepath.Join(repo.Root, filepath.FromSlash(runtime.PublicKeyFile)), func(kf runtime.KeyFile) runtime.KeyFile {
		return kf.WithKey(rot.Old).WithKey(rot.New).WithRotation(rot)
	})
	return res, err
}

// inside reports whether path is root or below it.
func inside(root, path string) bool {
	if real, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		path = filepath.Join(real, filepath.Base(path))
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// KeysResignRequest selects the items whose decisions are re-signed.
type KeysResignRequest struct {
	Repo     string `json:"repo"`
	WorkItem string `json:"workItem"`
	All      bool   `json:"all"`
}

// KeysResignResult counts, per item, what was re-signed and what was left.
type KeysResignResult struct {
	Items    []ResignedItem `json:"items"`
	Warnings []string       `json:"-"`
}

// ResignedItem is one item's re-signing (or one of its pull request
// loops', named by Loop).
type ResignedItem struct {
	WorkItem string `json:"workItem"`
	// Loop is the pull request loop's folder ("" for the item's own loop).
	Loop     string `json:"loop,omitempty"`
	Resigned int    `json:"resigned"`
	Left     int    `json:"left"`
	// Repository is where the item's ticket lives, which the re-signed
	// decisions name ("" when unknown).
	Repository string `json:"repository,omitempty"`
}

// KeysResign brings every recorded decision that verifies — with the
// legacy HMAC key, this host's key or a key it rotated from — to the form
// this host signs today and re-signs it with its Ed25519 key
// (Runtime.Resign): bound to its item's repository, and an approval at a
// gate that locks artifacts bound to those artifacts as they stand, when
// they carry the lock. It covers one item or every item, and their pull
// request loops.
func (s *Service) KeysResign(ctx context.Context, req KeysResignRequest) (KeysResignResult, error) {
	res := KeysResignResult{Items: []ResignedItem{}}
	if (req.WorkItem == "") == !req.All {
		return res, invalid(errors.New("give a work item id or --all"))
	}
	if !s.deps.Signer.SignsWithEd25519() {
		return res, invalid(errors.New("no Ed25519 signing key is loaded: run `the-loop keys init` and set signing.privateKeyFile"))
	}
	ids := []string{req.WorkItem}
	if req.All {
		repo, err := s.openRepo(req.Repo)
		if err != nil {
			return res, err
		}
		if ids, err = repo.WorkItems(); err != nil {
			return res, err
		}
	}
	for _, id := range ids {
		sess, err := s.open(ctx, req.Repo, id, "")
		if err != nil {
			return res, err
		}
		if sess.state.CurrentNode == "" && len(sess.state.Decisions) == 0 {
			continue
		}
		sessions := []*session{sess}
		for _, l := range sess.state.PullRequests {
			if l.InnerLoop == "" {
				continue
			}
			inner, err := s.openInner(ctx, req.Repo, id, *l)
			if err != nil {
				return res, err
			}
			sessions = append(sessions, inner)
		}
		for _, ss := range sessions {
			n, left, err := ss.rt.Resign(ctx, id, bindApproval(ss.rt))
			if err != nil {
				return res, err
			}
			res.Items = append(res.Items, ResignedItem{WorkItem: id, Loop: ss.rt.LoopDir, Resigned: n, Left: left, Repository: ss.rt.Home(ss.state)})
		}
	}
	return res, nil
}

// bindApproval binds an approval recorded at a gate that locks artifacts,
// and records no hash of them, to those artifacts as they stand
// (artifacts.BindApproval): they must carry the lock.
func bindApproval(rt *runtime.Runtime) func(*runtime.State, *runtime.Decision) (bool, error) {
	return func(st *runtime.State, d *runtime.Decision) (bool, error) {
		n, ok := rt.Graph.Node(d.Node)
		if !ok || d.Kind != runtime.KindGate || (d.Outcome != runtime.OutcomeApproved && d.Outcome != runtime.OutcomeApprovedWithComments) ||
			d.Data["boundHashes"] != nil || d.Data["lockedHashes"] != nil {
			return false, nil
		}
		names, err := artifacts.BindApproval(rt.Graph, n, rt.SpecDir(st.WorkItem), d)
		return len(names) > 0, err
	}
}

// KeysShowRequest names the repository whose committed keys are shown.
type KeysShowRequest struct {
	Repo string `json:"repo"`
}

// KeyInfo is one Ed25519 public key.
type KeyInfo struct {
	ID        string `json:"id"`
	PublicKey string `json:"publicKey"`
}

// RotationInfo is one rotation record: key From handed trust to key To.
type RotationInfo struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Host signing modes of KeysShowResult.
const (
	SigningEd25519 = "ed25519"
	SigningHMAC    = "hmac"
	SigningNone    = "none"
)

// KeysShowResult is how this host signs and which keys the repository
// trusts.
type KeysShowResult struct {
	// Signing is SigningEd25519, SigningHMAC (legacy) or SigningNone.
	Signing string `json:"signing"`
	// HostKeys are the public halves of the host's Ed25519 keys.
	HostKeys []KeyInfo `json:"hostKeys"`
	// Committed are the keys of the repository's .the-loop/signing.pub.
	Committed []KeyInfo `json:"committed"`
	// Rotations are the file's rotation records (each signed by both keys).
	Rotations []RotationInfo `json:"rotations"`
	// CommittedError says why that file could not be read ("" when it was).
	CommittedError string   `json:"committedError,omitempty"`
	Warnings       []string `json:"-"`
}

// KeysShow reports the host's signing key and the repository's committed
// public keys. It reads only: nothing is created or changed.
func (s *Service) KeysShow(ctx context.Context, req KeysShowRequest) (KeysShowResult, error) {
	res := KeysShowResult{Signing: SigningNone, HostKeys: []KeyInfo{}, Committed: []KeyInfo{}, Rotations: []RotationInfo{}}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	dir := s.repoDir(req.Repo)
	if err := s.allowedRoot(dir); err != nil {
		return res, err
	}
	signer := s.deps.Signer
	switch {
	case signer.SignsWithEd25519():
		res.Signing = SigningEd25519
		for _, k := range signer.PublicKeys() {
			res.HostKeys = append(res.HostKeys, KeyInfo{ID: runtime.KeyID(k), PublicKey: runtime.EncodePublicKey(k)})
		}
	case signer.CanSign():
		res.Signing = SigningHMAC
	}
	kf, err := runtime.ReadKeyFile(filepath.Join(dir, filepath.FromSlash(runtime.PublicKeyFile)))
	if err != nil {
		res.CommittedError = err.Error()
		return res, nil
	}
	for _, r := range kf.Rotations {
		res.Rotations = append(res.Rotations, RotationInfo{From: runtime.KeyID(r.Old), To: runtime.KeyID(r.New)})
	}
	for _, k := range kf.Keys {
		res.Committed = append(res.Committed, KeyInfo{ID: runtime.KeyID(k), PublicKey: runtime.EncodePublicKey(k)})
	}
	_, res.Warnings = signer.ForRepo(dir)
	return res, nil
}
