package testrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	code := m.Run()
	Clean()
	os.Exit(code)
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=T", "-c", "user.email=t@example.invalid"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1"}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// TestEachSeedIsARepositoryOfItsOwn: two seeds of the same files are made
// once and copied; each remote's main holds the files, each clone's origin
// is its own remote, and a push to one leaves the other as it was.
func TestEachSeedIsARepositoryOfItsOwn(t *testing.T) {
	files := map[string]string{"README.md": "hello\n", "docs/a.md": "# A\n"}
	a, b := t.TempDir(), t.TempDir()
	remoteA, sourceA := Seed(t, a, files)
	remoteB, sourceB := Seed(t, b, files)
	assert.Len(t, made, 1, "one template for one set of files")
	assert.Equal(t, filepath.Join(a, "remote.git"), remoteA)
	assert.Equal(t, filepath.Join(b, "source"), sourceB)
	for _, p := range []struct{ remote, source string }{{remoteA, sourceA}, {remoteB, sourceB}} {
		assert.Equal(t, "refs/heads/main", git(t, p.remote, "symbolic-ref", "HEAD"))
		assert.Equal(t, "# A", git(t, p.remote, "show", "main:docs/a.md"))
		assert.Equal(t, p.remote, git(t, p.source, "remote", "get-url", "origin"))
		assert.Equal(t, "", git(t, p.source, "status", "--porcelain"), "the copied clone is clean")
	}
	before := git(t, remoteB, "rev-parse", "main")
	require.NoError(t, os.WriteFile(filepath.Join(sourceA, "new.md"), []byte("new\n"), 0o644))
	git(t, sourceA, "add", "-A")
	git(t, sourceA, "commit", "--quiet", "-m", "new")
	git(t, sourceA, "push", "--quiet", "origin", "HEAD:refs/heads/main")
	assert.Equal(t, git(t, sourceA, "rev-parse", "HEAD"), git(t, remoteA, "rev-parse", "main"))
	assert.Equal(t, before, git(t, remoteB, "rev-parse", "main"), "the other copy's remote did not move")
}

// TestOtherFilesAreAnotherTemplate: a seed of other files holds those.
func TestOtherFilesAreAnotherTemplate(t *testing.T) {
	remote, _ := Seed(t, t.TempDir(), map[string]string{"OTHER.md": "other\n"})
	assert.Equal(t, "OTHER.md", git(t, remote, "ls-tree", "--name-only", "main"))
}
