package filestamp

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// settledTree is a folder of files whose times lie well in the past, as a
// checkout looks between edits.
func settledTree(t *testing.T) string {
	t.Helper()
	if !Supported {
		t.Skip("filestamp reads change times only on Linux")
	}
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "item", "pr-loops", "pr-1"), 0o755))
	for _, f := range []string{"item/design.md", "item/state.json", "item/pr-loops/pr-1/state.json", "config.yaml"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x: 1\n"), 0o644))
	}
	return dir
}

// record stamps the tree and the config file.
func record(t *testing.T, dir string) *Set {
	t.Helper()
	var s Set
	require.True(t, s.AddTree(filepath.Join(dir, "item"), 64))
	s.Add(filepath.Join(dir, "config.yaml"))
	s.Add(filepath.Join(dir, "absent.yaml"))
	return &s
}

func TestAnyChangeToWhatWasStampedIsSeen(t *testing.T) {
	changes := map[string]func(t *testing.T, dir string){
		"a file rewritten, same size": func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "item/design.md"), []byte("x: 2\n"), 0o644))
		},
		"a file rewritten and its modification time put back": func(t *testing.T, dir string) {
			p := filepath.Join(dir, "item/design.md")
			fi, err := os.Stat(p)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, []byte("x: 2\n"), 0o644))
			require.NoError(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
		},
		"a file replaced by a rename": func(t *testing.T, dir string) {
			tmp := filepath.Join(dir, "item/.design.tmp")
			require.NoError(t, os.WriteFile(tmp, []byte("x: 1\n"), 0o644))
			require.NoError(t, os.Rename(tmp, filepath.Join(dir, "item/design.md")))
		},
		"a file added in a nested folder": func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "item/pr-loops/pr-1/new.md"), nil, 0o644))
		},
		"a file removed": func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, "item/state.json")))
		},
		"a folder added": func(t *testing.T, dir string) {
			require.NoError(t, os.Mkdir(filepath.Join(dir, "item/pr-loops/pr-2"), 0o755))
		},
		"a mode changed": func(t *testing.T, dir string) {
			require.NoError(t, os.Chmod(filepath.Join(dir, "item/design.md"), 0o600))
		},
		"an absent file created": func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "absent.yaml"), nil, 0o644))
		},
		"a single file edited": func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("x: 1\ny: 2\n"), 0o644))
		},
		"the stamped folder replaced by a symbolic link": func(t *testing.T, dir string) {
			require.NoError(t, os.Rename(filepath.Join(dir, "item"), filepath.Join(dir, "elsewhere")))
			require.NoError(t, os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, "item")))
		},
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			dir := settledTree(t)
			s := record(t, dir)
			require.True(t, s.Unchanged(), "nothing changed yet")
			change(t, dir)
			assert.False(t, s.Unchanged())
		})
	}
}

func TestOnlyFilesOlderThanTheClocksGrainAreSettled(t *testing.T) {
	dir := settledTree(t)
	s := record(t, dir)
	now := time.Now()
	assert.False(t, s.SettledBefore(now.Add(-time.Minute)), "files written a moment ago could change again within the same tick unseen")
	past := now.Add(-time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(dir, "item/design.md"), past, past))
	s = record(t, dir)
	assert.False(t, s.SettledBefore(now.Add(-time.Minute)), "a change time cannot be set back: the file stays unsettled")
	assert.True(t, s.SettledBefore(now.Add(time.Minute)))
}

func TestATreeWithALinkOrTooManyEntriesIsNotStamped(t *testing.T) {
	dir := settledTree(t)
	require.NoError(t, os.Symlink("design.md", filepath.Join(dir, "item/link.md")))
	var s Set
	assert.False(t, s.AddTree(filepath.Join(dir, "item"), 64), "a link's target is not what was stamped")

	dir = settledTree(t)
	s = Set{}
	assert.False(t, s.AddTree(filepath.Join(dir, "item"), 3), "over the entry bound")

	s = Set{}
	assert.True(t, s.AddTree(filepath.Join(dir, "no-such-folder"), 3), "an absent folder is stamped as absent")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "no-such-folder"), 0o755))
	assert.False(t, s.Unchanged(), "its creation is seen")
}

// BenchmarkAddTree stamps a spec folder's worth of files; BenchmarkUnchanged
// checks them again: the cost of a check computed afresh, and of one
// answered from the memo.
func BenchmarkAddTree(b *testing.B) {
	dir := benchTree(b)
	for b.Loop() {
		var s Set
		if !s.AddTree(dir, 64) {
			b.Fatal("not stamped")
		}
	}
}

func BenchmarkUnchanged(b *testing.B) {
	dir := benchTree(b)
	var s Set
	if !s.AddTree(dir, 64) {
		b.Fatal("not stamped")
	}
	for b.Loop() {
		if !s.Unchanged() {
			b.Fatal("changed")
		}
	}
}

func benchTree(b *testing.B) string {
	dir := filepath.Join(b.TempDir(), "docs", "specs", "issue-2")
	require.NoError(b, os.MkdirAll(filepath.Join(dir, "evidence"), 0o755))
	for _, f := range []string{"requirements.md", "design.md", "tasks.md", "testing-plan.md", "work-item-state.json", "execution-log.md", "evidence/self-review.md", "evidence/documentation.md"} {
		require.NoError(b, os.WriteFile(filepath.Join(dir, f), []byte("# x\n"), 0o644))
	}
	return dir
}

// LeadsTo says what comparing filepath.EvalSymlinks with the real path
// says, for every pair of a tree's paths: folders and files, links to
// them, a link in a parent, a dangling link, a loop and absent names.
func TestLeadsToAgreesWithEvalSymlinks(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	in := func(p ...string) string { return filepath.Join(append([]string{base}, p...)...) }
	require.NoError(t, os.MkdirAll(in("real", "repo", "docs"), 0o755))
	require.NoError(t, os.WriteFile(in("real", "repo", "file"), nil, 0o644))
	for link, to := range map[string]string{
		"toRepo":     in("real", "repo"),
		"toReal":     in("real"),
		"relative":   "real/repo",
		"dangling":   in("absent"),
		"loop":       in("loop"),
		"toFile":     in("real", "repo", "file"),
		"real/up":    "..",
		"real/chain": in("toRepo"),
	} {
		require.NoError(t, os.Symlink(to, in(link)))
	}
	paths := []string{
		in("real"), in("real", "repo"), in("real", "repo", "docs"), in("real", "repo", "file"),
		in("toRepo"), in("toReal", "repo"), in("relative"), in("dangling"), in("loop"), in("toFile"),
		in("real", "up", "real", "repo"), in("real", "chain"), in("real", "chain", "docs"),
		in("absent"), in("real", "repo", "file", "below"), in("toRepo", "docs"),
	}
	for _, p := range paths {
		for _, real := range paths {
			resolved, err := filepath.EvalSymlinks(p)
			want := err == nil && resolved == real
			assert.Equal(t, want, LeadsTo(p, real), "%s → %s", p, real)
		}
	}
	assert.True(t, LeadsTo(in("real", "repo"), in("real", "repo")))
	assert.False(t, LeadsTo(in("toReal", "repo"), in("toReal", "repo")), "a link on the way")
}
