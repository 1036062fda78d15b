package main

import (
	"crypto/ed25519"
	"crypto/sha256"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/runtimetest"
)

// TestFixtureDecisionsAreSigned keeps the fixture's records signed by the
// committed key. UPDATE_FIXTURE_SIGNATURES=1 re-signs them after an edit.
func TestFixtureDecisionsAreSigned(t *testing.T) {
	repo := fixtureRepo(t)
	priv := runtimetest.FixtureKey()
	pubPath := filepath.Join(repo, runtime.PublicKeyFile)
	files, err := filepath.Glob(filepath.Join(repo, "docs", "specs", "*", runtime.StateFile))
	require.NoError(t, err)
	inner, err := filepath.Glob(filepath.Join(repo, "docs", "specs", "*", "pr-loops", "*", runtime.StateFile))
	require.NoError(t, err)
	files = append(files, inner...)
	sort.Strings(files)
	require.NotEmpty(t, files)
	if os.Getenv("UPDATE_FIXTURE_SIGNATURES") != "" {
		require.NoError(t, os.WriteFile(pubPath, []byte("# the-loop decision signing key (Ed25519). Commit this file.\n"+
			runtime.EncodePublicKey(priv.Public().(ed25519.PublicKey))+"\n"), 0o644))
		for _, f := range files {
			specDir := filepath.Dir(f)
			if filepath.Base(filepath.Dir(specDir)) == "pr-loops" {
				specDir = filepath.Dir(filepath.Dir(specDir))
			}
			require.NoError(t, runtimetest.ResignRecord(f, specDir, priv))
		}
	}
	pubs, err := runtime.ReadPublicKeyFile(pubPath)
	require.NoError(t, err)
	verifier := runtime.NewVerifier(pubs...)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		st, err := runtime.ParseState(b, filepath.Base(filepath.Dir(f)))
		require.NoError(t, err)
		for _, d := range runtimetest.Decisions(st) {
			assert.NotEmpty(t, d.Repository, "%s %s: every decision names its repository (run UPDATE_FIXTURE_SIGNATURES=1 go test ./cmd/the-loop -run TestFixtureDecisionsAreSigned)", f, d.Node)
			trust, why := verifier.Check(d)
			assert.Equal(t, runtime.Verified, trust, "%s %s: %s (run UPDATE_FIXTURE_SIGNATURES=1 go test ./cmd/the-loop -run TestFixtureDecisionsAreSigned)", f, d.Node, why)
		}
	}
}

func testKeyFor(seed string) ed25519.PrivateKey {
	s := sha256.Sum256([]byte(seed))
	return ed25519.NewKeyFromSeed(s[:])
}
