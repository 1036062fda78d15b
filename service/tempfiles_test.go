package service

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fault 11 (temp files): what a write killed mid-way leaves in a spec folder
// is removed at start-up; a write that may still be in progress is not.
func TestCleanTempFilesRemovesOnlyOrphans(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "docs", "specs", "issue-1")
	old := time.Now().Add(-2 * TempGrace)
	files := map[string]bool{ // name -> removed
		".work-item-state.json.tmp-1234567": true,
		".design.md.tmp-AbCdEf0123":         true,
		".design.md.tmp-fresh1":             false,
		"design.md":                         false,
		".gitkeep":                          false,
		"notes.tmp-123":                     false,
		".x.tmp-has space":                  false,
	}
	for name, orphan := range files {
		p := filepath.Join(spec, name)
		writeFile(t, p, "x")
		if orphan || name != ".design.md.tmp-fresh1" {
			require.NoError(t, os.Chtimes(p, old, old))
		}
	}
	outside := filepath.Join(dir, ".elsewhere.tmp-123")
	writeFile(t, outside, "x")
	require.NoError(t, os.Chtimes(outside, old, old))

	removed, err := benchService(t).CleanTempFiles(dir)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"docs/specs/issue-1/.work-item-state.json.tmp-1234567", "docs/specs/issue-1/.design.md.tmp-AbCdEf0123"}, removed)
	for name, orphan := range files {
		_, err := os.Stat(filepath.Join(spec, name))
		assert.Equal(t, orphan, os.IsNotExist(err), name)
	}
	assert.FileExists(t, outside, "only the spec folders are cleaned")

	empty, err := benchService(t).CleanTempFiles(t.TempDir())
	require.NoError(t, err, "a repository without spec folders has nothing to clean")
	assert.Empty(t, empty)
}
