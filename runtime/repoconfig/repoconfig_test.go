package repoconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/filestamp"
)

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
}

func TestOpen(t *testing.T) {
	tests := []struct {
		name, harness, wantSpec, wantErr string
	}{
		{name: "no harness config", wantSpec: "docs/specs"},
		{name: "spec dir from the harness config", harness: "workflow:\n  specDir: specs/\n", wantSpec: "specs"},
		{name: "spec dir escaping the repository", harness: "workflow:\n  specDir: ../elsewhere\n", wantErr: "leaves the repository"},
		{name: "absolute spec dir", harness: "workflow:\n  specDir: /etc\n", wantErr: "leaves the repository"},
		{name: "broken YAML", harness: "workflow: [\n", wantErr: "is not valid YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.harness != "" {
				writeFile(t, filepath.Join(dir, Path), tt.harness)
			}
			r, err := Open(dir)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantSpec, r.SpecRoot)
		})
	}
	_, err := Open(filepath.Join(t.TempDir(), "missing"))
	assert.ErrorIs(t, err, ErrUnreadable)
}

func TestWorkItemsAndRefs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, Path), "ticketing:\n  github:\n    owner: acme\n    repo: widgets\n")
	for _, d := range []string{"issue-2", "issue-10", ".hidden"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "docs/specs", d), 0o755))
	}
	writeFile(t, filepath.Join(dir, "docs/specs/index.md"), "# index\n")
	r, err := Open(dir)
	require.NoError(t, err)
	ids, err := r.WorkItems()
	require.NoError(t, err)
	assert.Equal(t, []string{"issue-10", "issue-2"}, ids, "folders only, sorted, hidden ones skipped")
	assert.Equal(t, "github:acme/widgets#10", r.DefaultRef("issue-10"))
	assert.Equal(t, "", r.DefaultRef("issue-010"))
	assert.Equal(t, "", r.DefaultRef("feature-x"))
}

func TestRepositoryGraphIsIgnoredWithAWarning(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".the-loop/graph.yaml"), "nodes: []\n")
	r, err := Open(dir)
	require.NoError(t, err)
	require.Len(t, r.Warnings, 1)
	assert.Contains(t, r.Warnings[0], "cannot be overridden by a repository")
}

func TestSymlinksNeverLeadOutOfTheRepository(t *testing.T) {
	outside := t.TempDir()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "docs", "specs", "issue-1"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "docs", "specs", "issue-9")))
	r, err := Open(dir)
	require.NoError(t, err)
	assert.ErrorContains(t, r.CheckItemDir("issue-9"), "is a symbolic link")
	assert.NoError(t, r.CheckItemDir("issue-1"))
	ids, err := r.WorkItems()
	require.NoError(t, err)
	assert.Equal(t, []string{"issue-1"}, ids)
	assert.Contains(t, strings.Join(r.Warnings, "\n"), "skipping docs/specs/issue-9")

	linked := t.TempDir()
	writeFile(t, filepath.Join(linked, Path), "workflow:\n  specDir: specs\n")
	require.NoError(t, os.Symlink(outside, filepath.Join(linked, "specs")))
	_, err = Open(linked)
	assert.ErrorContains(t, err, "outside the repository")
}

func TestTheRepositoryNamesItsHarness(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, Path), "sessions:\n  harness: cursor\ntooling:\n  anything: goes\n")
	r, err := Open(dir)
	require.NoError(t, err)
	assert.Equal(t, "cursor", r.Config.Sessions.Harness)

	none := t.TempDir()
	r, err = Open(none)
	require.NoError(t, err)
	assert.Equal(t, "", r.Config.Sessions.Harness, "no repository config leaves the choice to the operator")
}

// A long-running server opens the same checkout on every call and keeps
// what it read; any edit of the config is seen, even one that keeps its
// size and puts its modification time back, and a config written a moment
// ago is read again until it has settled.
func TestAnOpenedRepositorySeesEveryEditOfItsConfig(t *testing.T) {
	if !filestamp.Supported {
		t.Skip("change times are read on Linux only; elsewhere such an edit goes unseen")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, Path)
	writeFile(t, p, "workflow:\n  specDir: aaaaa\n")
	r, err := Open(dir)
	require.NoError(t, err)
	require.Equal(t, "aaaaa", r.SpecRoot)
	_, kept := repoCache.Load(r.Root)
	assert.False(t, kept, "a config written a moment ago is not kept")

	defer func(d time.Duration) { cacheSettle = d }(cacheSettle)
	cacheSettle = -time.Hour // what was just written counts as settled
	r, err = Open(dir)
	require.NoError(t, err)
	_, kept = repoCache.Load(r.Root)
	require.True(t, kept)

	fi, err := os.Stat(p)
	require.NoError(t, err)
	writeFile(t, p, "workflow:\n  specDir: bbbbb\n")
	require.NoError(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
	r, err = Open(dir)
	require.NoError(t, err)
	assert.Equal(t, "bbbbb", r.SpecRoot, "same size, same modification time: the change time tells")
}
