package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// smallDisk mounts a tmpfs of size bytes (read-only with ro) on a fresh
// directory and unmounts it at cleanup. It skips, naming why, where this
// process may not mount one.
func smallDisk(t *testing.T, size int, ro bool) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a full or read-only disk is simulated with a small tmpfs, which only root may mount here")
	}
	dir := t.TempDir()
	var flags uintptr
	if ro {
		flags = syscall.MS_RDONLY
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", flags, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): the full-disk tests need CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// fill writes zeroes to dir until it has about left bytes free.
func fill(t *testing.T, dir string, left int) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "ballast"))
	require.NoError(t, err)
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		var st syscall.Statfs_t
		require.NoError(t, syscall.Statfs(dir, &st))
		if int(st.Bavail)*int(st.Bsize) <= left {
			return
		}
		if _, err := f.Write(chunk); err != nil {
			return
		}
	}
}

// Fault: the disk filled before the store was opened. SQLite says only
// "disk I/O error (4874)" (its -shm file cannot grow) or "database or disk
// is full"; the store names the disk, its free space and the fix.
func TestAFullDiskBeforeOpenIsNamed(t *testing.T) {
	for _, left := range []int{0, 24 << 10} {
		t.Run(fmt.Sprintf("%d bytes left", left), func(t *testing.T) {
			dir := smallDisk(t, 256<<10, false)
			fill(t, dir, left)
			_, err := Open(context.Background(), filepath.Join(dir, "the-loop.db"))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "the disk holding "+dir+" is full (")
			assert.Contains(t, err.Error(), "free space there, or point --db or THE_LOOP_DB at a store on another disk")
			var se *Error
			assert.True(t, errors.As(err, &se), "a *store.Error: %v", err)
		})
	}
}

// Fault: the disk fills while the store is open; the write that fails says
// so, and the store is readable again once space is freed.
func TestAFullDiskWhileOpenIsNamed(t *testing.T) {
	dir := smallDisk(t, 1<<20, false)
	s, err := Open(context.Background(), filepath.Join(dir, "the-loop.db"))
	require.NoError(t, err)
	defer s.Close()
	fill(t, dir, 0)
	big := strings.Repeat("x", 64<<10)
	var werr error
	for i := 0; i < 64 && werr == nil; i++ {
		werr = s.AppendEvents(context.Background(), "/r", "issue-1", []Event{{Name: "filler", Data: []byte(`"` + big + `"`)}})
	}
	require.Error(t, werr)
	assert.Contains(t, werr.Error(), "the disk holding "+dir+" is full (")
	require.NoError(t, os.Remove(filepath.Join(dir, "ballast")))
	require.NoError(t, s.AppendEvents(context.Background(), "/r", "issue-1", []Event{{Name: "after"}}), "writes go on once space is freed")
}

// Fault: the store's disk is mounted read-only.
func TestAReadOnlyDiskIsNamed(t *testing.T) {
	dir := smallDisk(t, 256<<10, true)
	_, err := Open(context.Background(), filepath.Join(dir, "the-loop.db"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the file system holding "+dir+" is mounted read-only; remount it read-write, or point --db or THE_LOOP_DB at a store on a writable disk")
}
