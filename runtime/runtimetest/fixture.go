// Package runtimetest holds what tests across packages share about the
// fixture repository (testdata/repo): the key its recorded decisions are
// signed with, and how a test re-signs a record. Never import it from
// non-test code.
package runtimetest

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"

	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks"
	"github.com/the-loop/the-loop/runtime/hooks/artifacts"
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
	return ResignRecord(filepath.Join(specDir, runtime.StateFile), specDir, key)
}

// ResignRecord re-signs the portable record at path (an item's, or one of
// its pull request loops') the way the poller signs today: each decision
// bound to the record's work item, loop and repository (with the default
// ticket hosts), each approval at a gate that locks artifacts carrying the
// hashes of what it locked in specDir as they stand, then signed with key.
func ResignRecord(path, specDir string, key ed25519.PrivateKey) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	st, err := runtime.ParseState(b, filepath.Base(specDir))
	if err != nil {
		return err
	}
	g, err := compile(st.Loop)
	if err != nil {
		return err
	}
	rt := &runtime.Runtime{Graph: g, Origin: "", LoopDir: loopDirOf(path, specDir)}
	signer := runtime.NewEd25519Signer(key)
	for _, d := range Decisions(st) {
		d.WorkItem, d.Loop, d.Repository = st.WorkItem, st.Loop, rt.Home(st)
		if n, ok := g.Node(d.Node); ok && d.Kind == runtime.KindGate && d.Via == "comment" &&
			(d.Outcome == runtime.OutcomeApproved || d.Outcome == runtime.OutcomeApprovedWithComments) && d.Data["boundHashes"] == nil {
			if _, err := artifacts.BindApproval(g, n, specDir, d); err != nil {
				return fmt.Errorf("%s %s: %w", path, d.Node, err)
			}
		}
		if err := signer.Sign(d); err != nil {
			return err
		}
	}
	data, err := st.Marshal()
	if err != nil {
		return err
	}
	return writeRecord(path, data)
}

// writeRecord writes a fixture's record at path, creating its folder.
func writeRecord(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return store.WritePortable(filepath.Dir(path), path, data)
}

// loopDirOf is "" for an item's own record, else the inner loop's folder.
func loopDirOf(path, specDir string) string {
	rel, err := filepath.Rel(specDir, filepath.Dir(path))
	if err != nil || rel == "." {
		return ""
	}
	return filepath.ToSlash(rel)
}

// compile compiles the shipped loop name.
func compile(name string) (*runtime.Graph, error) {
	if name == "" {
		name = graphs.Default
	}
	src, err := graphs.Source(name)
	if err != nil {
		return nil, err
	}
	reg, err := hooks.Registry()
	if err != nil {
		return nil, err
	}
	return runtime.Compile(name, src, reg)
}

// WritePortable writes st as the portable record in specDir.
func WritePortable(specDir string, st *runtime.State) error {
	data, err := st.Marshal()
	if err != nil {
		return err
	}
	return writeRecord(filepath.Join(specDir, runtime.StateFile), data)
}
