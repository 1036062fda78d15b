package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestThePortableRecordIsReadByItsNamesInOrder(t *testing.T) {
	dir := t.TempDir()
	data, path, err := ReadPortable(dir, "current.json", "legacy.json")
	require.NoError(t, err)
	assert.Nil(t, data, "no record yet")
	assert.Empty(t, path)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "legacy.json"), []byte("old"), 0o644))
	data, path, err = ReadPortable(dir, "current.json", "legacy.json")
	require.NoError(t, err)
	assert.Equal(t, "old", string(data), "the legacy name is read when the current one is absent")
	assert.Equal(t, filepath.Join(dir, "legacy.json"), path)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "current.json"), []byte("new"), 0o644))
	data, _, err = ReadPortable(dir, "current.json", "legacy.json")
	require.NoError(t, err)
	assert.Equal(t, "new", string(data), "the current name wins")
}

func TestAPortableRecordThatIsNoFileIsRefused(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "current.json"), 0o755))
	_, path, err := ReadPortable(dir, "current.json")
	require.ErrorIs(t, err, ErrNotRegular)
	assert.Equal(t, filepath.Join(dir, "current.json"), path)
}

func TestThePortableRecordIsReplacedWholeAndOnlyWhenItChanges(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "docs", "specs", "issue-1", "current.json")
	require.NoError(t, WritePortable(root, path, []byte("v1")), "the folders are created")
	before, err := os.Stat(path)
	require.NoError(t, err)

	require.NoError(t, WritePortable(root, path, []byte("v1")))
	same, err := os.Stat(path)
	require.NoError(t, err)
	assert.True(t, os.SameFile(before, same), "an identical record is left alone")

	require.NoError(t, WritePortable(root, path, []byte("v2")))
	after, err := os.Stat(path)
	require.NoError(t, err)
	assert.False(t, os.SameFile(before, after), "a changed record is replaced, never rewritten in place")
	got, _ := os.ReadFile(path)
	assert.Equal(t, "v2", string(got))
	entries, _ := os.ReadDir(filepath.Dir(path))
	assert.Len(t, entries, 1, "no temporary file is left behind")
}

// A repository deleted while its record is written stays deleted: the
// write fails instead of making the repository's folder again (an item's
// working tree removed under the poller is then found missing, whole,
// and re-created from its branch).
func TestAPortableRecordNeverMakesItsRepositoryAgain(t *testing.T) {
	root := filepath.Join(t.TempDir(), "trees", "issue-1")
	path := filepath.Join(root, "docs", "specs", "issue-1", "current.json")
	err := WritePortable(root, path, []byte("v1"))
	require.Error(t, err)
	assert.NoDirExists(t, root)

	err = WritePortable(root, filepath.Join(root, "..", "elsewhere.json"), []byte("v1"))
	require.ErrorContains(t, err, "not inside the repository")
}
