// Package runtimetest holds what tests across packages share about the
// fixture repository (testdata/repo): the key its recorded decisions are
// signed with. Never import it from non-test code.
package runtimetest

import (
	"crypto/ed25519"
	"crypto/sha256"
	"os"
	"path/filepath"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

// FixtureKey signs the fixture repository's recorded decisions; its public
// half is committed as testdata/repo/.the-loop/signing.pub.
func FixtureKey() ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("the-loop fixture repository signing key"))
	return ed25519.NewKeyFromSeed(seed[:])
}

// Decisions lists every recorded decision of st in a stable order.
func Decisions(st *runtime.State) []*runtime.Decision { return st.AllDecisions() }

// ResignFixtureState re-binds every decision of the portable record in
// specDir to that record's work item and loop and signs it with FixtureKey:
// what a test that copies a fixture item to a new id must do, since a
// decision moved to another item no longer verifies.
func ResignFixtureState(specDir string) error { return ResignState(specDir, FixtureKey()) }

// ResignState re-binds every decision of the portable record in specDir to
// that record's work item and loop and signs it with key: a test that
// plays a poller holding another key (a rotated one, a forger's).
func ResignState(specDir string, key ed25519.PrivateKey) error {
	path := filepath.Join(specDir, runtime.StateFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	st, err := runtime.ParseState(b, filepath.Base(specDir))
	if err != nil {
		return err
	}
	signer := runtime.NewEd25519Signer(key)
	for _, d := range Decisions(st) {
		d.WorkItem, d.Loop = st.WorkItem, st.Loop
		if err := signer.Sign(d); err != nil {
			return err
		}
	}
	return WritePortable(specDir, st)
}

// WritePortable writes st as the portable record in specDir.
func WritePortable(specDir string, st *runtime.State) error {
	data, err := st.Marshal()
	if err != nil {
		return err
	}
	return store.WritePortable(filepath.Join(specDir, runtime.StateFile), data)
}
