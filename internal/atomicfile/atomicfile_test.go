package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestWriteReplacesTheFileAndGivesItsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "key.pem")
	require.NoError(t, Write(path, []byte("one"), 0o644))
	require.NoError(t, Write(path, []byte("two"), 0o600))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "two", string(b))
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	assert.Equal(t, []string{"key.pem"}, names(t, dir), "no temp file is left behind")
}

func TestWriteInKeepsThePermissionsAndStaysInsideTheRoot(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "design.md"), []byte("old"), 0o600))
	outside := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-secret.md")
	require.NoError(t, os.WriteFile(outside, []byte("top secret"), 0o644))
	t.Cleanup(func() { _ = os.Remove(outside) })
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link.md")))
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()

	require.NoError(t, WriteIn(root, "design.md", []byte("new")))
	info, err := os.Stat(filepath.Join(dir, "design.md"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	require.NoError(t, WriteIn(root, "fresh.md", []byte("x")))
	info, err = os.Stat(filepath.Join(dir, "fresh.md"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm())

	assert.Error(t, WriteIn(root, "../"+filepath.Base(outside), []byte("x")))
	assert.Error(t, WriteIn(root, "link.md", []byte("x")), "a symlink out of the root is not followed")
	b, err := os.ReadFile(outside)
	require.NoError(t, err)
	assert.Equal(t, "top secret", string(b), "nothing outside the root was written")
	assert.ElementsMatch(t, []string{"design.md", "fresh.md", "link.md"}, names(t, dir))
}

// TestTempNamesAreTheOnesStartUpCleansUp: a write killed mid-way leaves
// ".NAME.tmp-" and letters and digits, which the poller removes at start.
func TestTempNamesAreTheOnesStartUpCleansUp(t *testing.T) {
	assert.Equal(t, filepath.Join("a", ".b.md.tmp-XYZ"), TempName(filepath.Join("a", "b.md"), "XYZ"))
	assert.Regexp(t, regexp.MustCompile(`^\.b\.md\.tmp-[A-Za-z0-9]+$`), filepath.Base(TempName("b.md", "Q2ZA7")))
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// The continuity set writes through Write: these are its checks.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.md")
	require.NoError(t, Write(path, []byte("one"), 0o644))
	require.NoError(t, Write(path, []byte("two"), 0o644))
	assert.Equal(t, "two", readText(t, path))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temp file is left behind")
}

func TestWriteAtomicFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "busy")
	require.NoError(t, os.MkdirAll(filepath.Join(target, "child"), 0o755))
	err := Write(target, []byte("new"), 0o644)
	require.Error(t, err)
	assert.Contains(t, err.Error(), target)
	assert.Contains(t, err.Error(), "rename into place")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "the failed temp file is removed")

	err = Write(filepath.Join(dir, "missing", "f.md"), []byte("x"), 0o644)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "create temp file")
}

func TestWriteNewWritesOnceAndNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	require.NoError(t, WriteNew(path, []byte("first"), 0o600))
	err := WriteNew(path, []byte("second"), 0o600)
	require.ErrorIs(t, err, fs.ErrExist)
	assert.Equal(t, "first", readText(t, path), "an existing file is never replaced")
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	assert.Equal(t, []string{"run.json"}, names(t, dir), "no temp file is left behind")
}
