package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fullDisk mounts a tmpfs of size bytes and fills it; it skips, naming
// why, where this process may not mount one.
func fullDisk(t *testing.T, size int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a full disk is simulated with a small tmpfs, which only root may mount here")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): the full-disk test needs CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	f, err := os.Create(filepath.Join(dir, "ballast"))
	require.NoError(t, err)
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	require.NoError(t, f.Close())
	return dir
}

// Fault: the disk is full before the store is opened. The command says
// which disk, that it is full and what to do, and exits 1 — never "disk
// I/O error (4874)" alone.
func TestAFullDiskBeforeTheStoreOpensIsNamed(t *testing.T) {
	disk := fullDisk(t, 256<<10)
	repo := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "docs", "specs", "issue-1"), 0o755))
	_, stderr, code := runCLI(t, nil, "graph", "start", "issue-1", "--repo", repo, "--db", filepath.Join(disk, "the-loop.db"))
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "the disk holding "+disk+" is full (0 bytes free); free space there, or point --db or THE_LOOP_DB at a store on another disk")
}
