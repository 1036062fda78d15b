package gitsafe

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEnvironDropsWhatRedirectsGitAndAddsThePins(t *testing.T) {
	r := Repo{WorkTree: "/t/issue-1", GitDir: "/t/.repos/issue-1", Index: "/t/.repos/issue-1/worktrees/issue-1/index"}
	env := []string{"PATH=/bin", "GIT_DIR=/evil", "GIT_COMMON_DIR=/evil", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.fsmonitor",
		"GIT_CONFIG_VALUE_0=/evil.sh", "GIT_CONFIG_PARAMETERS='core.hooksPath'='/evil'", "GIT_EXEC_PATH=/evil", "GIT_ALTERNATE_OBJECT_DIRECTORIES=/evil",
		"GIT_TERMINAL_PROMPT=0"}
	assert.Equal(t, []string{"PATH=/bin", "GIT_TERMINAL_PROMPT=0", "GIT_DIR=/t/.repos/issue-1", "GIT_WORK_TREE=/t/issue-1",
		"GIT_INDEX_FILE=/t/.repos/issue-1/worktrees/issue-1/index"}, r.Environ(env))
	assert.Equal(t, []string{"PATH=/bin", "GIT_TERMINAL_PROMPT=0"}, Repo{WorkTree: "/src"}.Environ(env), "a plain checkout gets no pins")
}

func TestOpenPinsOnlyATreeItsMarkerNames(t *testing.T) {
	root := t.TempDir()
	tree := filepath.Join(root, "issue-1")
	require.NoError(t, os.MkdirAll(tree, 0o755))
	assert.False(t, Open(tree).Pinned(), "no repository beside it")

	repo := RepoOf(tree)
	require.NoError(t, os.MkdirAll(repo, 0o755))
	require.NoError(t, WriteMarker(repo, Marker{Tree: filepath.Join(root, "issue-2"), Source: "/src", Remote: "origin"}))
	assert.False(t, Open(tree).Pinned(), "a marker naming another tree")

	require.NoError(t, WriteMarker(repo, Marker{Tree: tree, Source: "/src", Remote: "origin"}))
	r := Open(tree)
	require.True(t, r.Pinned())
	assert.Equal(t, repo, r.GitDir)
	assert.Equal(t, filepath.Join(repo, "worktrees", "issue-1", "index"), r.Index)
	assert.Equal(t, "/src", r.Source)
	assert.Equal(t, []string{"-C", tree, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "gc.auto=0",
		"-c", "maintenance.auto=false", "-c", "submodule.recurse=false", "status"}, r.Args("status"))
}
