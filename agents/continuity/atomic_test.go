package continuity

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUnwritableContinuityDirectory(t *testing.T) {
	dir := gitRepo(t, "")
	require.NoError(t, mkdir(filepath.Join(dir, ".handoff")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".handoff", "continuity"), []byte("not a dir"), 0o644))
	s := openSet(t, dir, &clock{now: t0})
	_, err := s.Init(InitOptions{Goal: "g"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), ".handoff/continuity")
	assert.Equal(t, "not a dir", readFile(t, filepath.Join(dir, ".handoff", "continuity")))
}

func TestFailedBriefWriteLosesNothing(t *testing.T) {
	s, _ := newLive(t)
	before := map[string]string{}
	for _, f := range []string{DeathPointFile, NotesFile, GraphFile} {
		before[f] = readFile(t, setFile(s, f))
	}
	require.NoError(t, os.WriteFile(s.HandoffsDir(), []byte("blocking file"), 0o644))
	_, err := s.Brief(BriefOptions{Out: "b.md"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), ".handoff/handoffs")
	for f, want := range before {
		assert.Equal(t, want, readFile(t, setFile(s, f)), f)
	}
}
