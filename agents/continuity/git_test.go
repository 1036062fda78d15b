package continuity

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEnsureIgnoredAddsLocalExclude(t *testing.T) {
	dir := gitRepo(t, "")
	s := openSet(t, dir, &clock{now: t0})

	proof, err := s.EnsureIgnored()
	require.NoError(t, err)
	assert.True(t, proof.Added)
	assert.Contains(t, proof.Rule, ".git/info/exclude")
	assert.Contains(t, readFile(t, filepath.Join(dir, ".git", "info", "exclude")), "/.handoff/\n")

	again, err := s.EnsureIgnored()
	require.NoError(t, err)
	assert.False(t, again.Added, "a proven rule is not added twice")
}

func TestEnsureIgnoredKeepsExistingRule(t *testing.T) {
	dir := gitRepo(t, "")
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(".handoff/\n"), 0o644))
	s := openSet(t, dir, &clock{now: t0})
	proof, err := s.EnsureIgnored()
	require.NoError(t, err)
	assert.False(t, proof.Added)
	assert.Contains(t, proof.Rule, ".gitignore")
}

func TestEnsureIgnoredRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		check string
	}{
		{
			name: "negated in .gitignore",
			setup: func(t *testing.T, dir string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("!.handoff/\n!.handoff/**\n"), 0o644))
			},
			check: "after adding /.handoff/ to .git/info/exclude",
		},
		{
			name: "tracked file",
			setup: func(t *testing.T, dir string) {
				require.NoError(t, mkdir(filepath.Join(dir, ".handoff")))
				require.NoError(t, os.WriteFile(filepath.Join(dir, ".handoff", "old.md"), []byte("x"), 0o644))
				runGit(t, dir, "add", "-f", ".handoff/old.md")
			},
			check: "no tracked files under .handoff/",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := gitRepo(t, "")
			tt.setup(t, dir)
			s := openSet(t, dir, &clock{now: t0})
			_, err := s.Init(InitOptions{Goal: "g"})
			var ie *IgnoreError
			require.True(t, errors.As(err, &ie), "got %v", err)
			assert.Contains(t, ie.Check, tt.check)
			assert.Contains(t, err.Error(), "refusing to write")
			_, statErr := os.Stat(s.Dir())
			assert.True(t, os.IsNotExist(statErr), "nothing is written when the proof fails")
		})
	}
}

func TestContinuityFilesAreNeverStaged(t *testing.T) {
	s, _ := newLive(t)
	_, err := s.Update(Entry{Kind: KindTask, Text: "write the importer"})
	require.NoError(t, err)
	_, err = s.Brief(BriefOptions{Out: "brief.md"})
	require.NoError(t, err)
	runGit(t, s.Root, "add", "-A")
	assert.Empty(t, runGit(t, s.Root, "ls-files", "--", ".handoff"))
	assert.Empty(t, runGit(t, s.Root, "status", "--porcelain", "--", ".handoff"))
}
