//go:build unix

package specdir

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

// Under check (a shared cache) Present and Read answer from one listing of
// each folder and one open per file; they must answer exactly as the file
// system does without one: files, folders, nested names, symlinks inside
// and out of the folder, a dangling one, a FIFO.
func TestTheListingAnswersAsTheFileSystemDoes(t *testing.T) {
	for _, cached := range []bool{false, true} {
		hc := hooktest.NewContext(t, nil, nil)
		dir := hc.WorkItem.SpecDir
		secret := filepath.Join(hc.Repo, "secret.md")
		require.NoError(t, os.WriteFile(secret, []byte("top secret"), 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "a.md"), []byte("alpha"), 0o644))
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "b.md"), []byte("beta"), 0o644))
		require.NoError(t, os.Symlink("a.md", filepath.Join(dir, "link.md")))
		require.NoError(t, os.Symlink("gone.md", filepath.Join(dir, "dangling.md")))
		require.NoError(t, os.Symlink(secret, filepath.Join(dir, "out.md")))
		require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644))
		if cached {
			hc.Cache = runtime.NewEvalCache()
			defer hc.Cache.Close()
		}
		d, err := Open(hc)
		require.NoError(t, err)
		defer d.Close()

		present := map[string]bool{"a.md": true, "sub": true, "sub/b.md": true, "link.md": true, "fifo.md": true,
			"absent.md": false, "sub/absent.md": false, "absent/x.md": false, "dangling.md": false, "out.md": false, "a.md/x": false}
		for name, want := range present {
			assert.Equal(t, want, d.Present(name), "cached=%t Present(%q)", cached, name)
		}
		texts := map[string]string{"a.md": "alpha", "sub/b.md": "beta", "link.md": "alpha"}
		for name, want := range texts {
			got, err := d.Read(name)
			require.NoError(t, err, "cached=%t Read(%q)", cached, name)
			assert.Equal(t, want, got)
		}
		_, err = d.Read("fifo.md")
		assert.ErrorContains(t, err, "fifo.md is not a regular file", "cached=%t: a FIFO is refused, never opened to block", cached)
		for _, name := range []string{"out.md", "dangling.md", "absent.md", "sub"} {
			text, err := d.Read(name)
			assert.Error(t, err, "cached=%t Read(%q)", cached, name)
			assert.Empty(t, text)
		}
	}
}

// One evaluation reads each folder once: a file written meanwhile is seen
// by the next evaluation, not by this one.
func TestAFolderIsListedOncePerEvaluation(t *testing.T) {
	hc := hooktest.NewContext(t, nil, nil)
	hc.Cache = runtime.NewEvalCache()
	d, err := Open(hc)
	require.NoError(t, err)
	assert.False(t, d.Present("late.md"))
	require.NoError(t, os.WriteFile(filepath.Join(hc.WorkItem.SpecDir, "late.md"), []byte("x"), 0o644))
	assert.False(t, d.Present("late.md"), "the evaluation answers from the listing it read")
	d.Close()
	hc.Cache.Close()

	hc.Cache = runtime.NewEvalCache()
	defer hc.Cache.Close()
	d, err = Open(hc)
	require.NoError(t, err)
	defer d.Close()
	assert.True(t, d.Present("late.md"))
	text, err := d.Read("late.md")
	require.NoError(t, err)
	assert.Equal(t, "x", text)
}

// An inner loop's folder that is a symlink out of the spec folder is never
// read, under check (a listing) or not: the loop's folder is opened
// through the spec folder's root, which refuses to leave it.
func TestAnInnerLoopFolderLinkedOutsideIsNotRead(t *testing.T) {
	for _, cached := range []bool{false, true} {
		hc := hooktest.NewContext(t, nil, nil)
		outside := filepath.Join(t.TempDir(), "elsewhere")
		require.NoError(t, os.MkdirAll(outside, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(outside, "notes.md"), []byte("top secret"), 0o644))
		require.NoError(t, os.MkdirAll(filepath.Join(hc.WorkItem.SpecDir, "pr-loops"), 0o755))
		require.NoError(t, os.Symlink(outside, filepath.Join(hc.WorkItem.SpecDir, "pr-loops", "pr-7")))
		hc.WorkItem.LoopDir = "pr-loops/pr-7"
		if cached {
			hc.Cache = runtime.NewEvalCache()
		}
		d, err := Open(hc)
		if err == nil {
			assert.False(t, d.Present("notes.md"), "cached=%t", cached)
			text, rerr := d.Read("notes.md")
			assert.Error(t, rerr, "cached=%t", cached)
			assert.NotContains(t, text, "secret")
			d.Close()
		}
		if hc.Cache != nil {
			hc.Cache.Close()
		}
	}
}
