package specdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

func TestParseSlotsKeepsAlternativesAndDropsEmptyEntries(t *testing.T) {
	got := ParseSlots([]string{"requirements.md | bugfix.md", "", " | ", "design.md"})
	assert.Equal(t, []Slot{
		{Entry: "requirements.md | bugfix.md", Names: []string{"requirements.md", "bugfix.md"}},
		{Entry: "design.md", Names: []string{"design.md"}},
	}, got)
}

func TestSpecDirMessagePaths(t *testing.T) {
	hc := hooktest.NewContext(t, nil, nil)
	d, err := Open(hc)
	require.NoError(t, err)
	defer d.Close()
	assert.Equal(t, "docs/specs/issue-1", d.Rel(""))
	assert.Equal(t, "docs/specs/issue-1/design.md", d.Rel("design.md"))
	assert.Equal(t, "/elsewhere/x.md", repoPath(hc.Repo, "/elsewhere/x.md"), "outside the repo the path stays absolute")
}

func TestSpecDirThatDoesNotExistHasNothingPresent(t *testing.T) {
	hc := hooktest.NewContext(t, nil, nil)
	hc.WorkItem.SpecDir = filepath.Join(hc.Repo, "docs", "specs", "issue-404")
	d, err := Open(hc)
	require.NoError(t, err)
	defer d.Close()
	assert.False(t, d.Present("design.md"))
	_, err = d.Read("design.md")
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestSpecDirWithoutAFolderIsAnError(t *testing.T) {
	hc := hooktest.NewContext(t, nil, nil)
	hc.WorkItem.SpecDir = ""
	_, err := Open(hc)
	assert.ErrorContains(t, err, "WorkItem.SpecDir is empty")
}

func TestSpecDirNeverReadsOutsideTheFolder(t *testing.T) {
	hc := hooktest.NewContext(t, nil, nil)
	secret := filepath.Join(hc.Repo, "secret.md")
	require.NoError(t, os.WriteFile(secret, []byte("top secret"), 0o600))
	require.NoError(t, os.Symlink(secret, filepath.Join(hc.WorkItem.SpecDir, "link.md")))
	d, err := Open(hc)
	require.NoError(t, err)
	defer d.Close()

	for _, name := range []string{"../../../secret.md", secret, "link.md"} {
		text, err := d.Read(name)
		assert.Error(t, err, name)
		assert.Empty(t, text, name)
	}
	assert.False(t, d.Present("../../../secret.md"))
	assert.Error(t, d.WriteAtomic("../../../secret.md", []byte("x")))
	b, err := os.ReadFile(secret)
	require.NoError(t, err)
	assert.Equal(t, "top secret", string(b), "nothing outside the spec folder was written")
}

func TestRefuseUnsafeNames(t *testing.T) {
	hc := hooktest.NewContext(t, nil, nil)
	d, err := Open(hc)
	require.NoError(t, err)
	defer d.Close()
	msgs := d.RefuseUnsafeNames(ParseSlots([]string{"ok.md|../../etc/passwd", "/etc/passwd", "sub/fine.md"}))
	require.Len(t, msgs, 2)
	assert.Equal(t, `artifact name "../../etc/passwd" is not a file inside the spec folder — name it relative to docs/specs/issue-1, with no .. and no leading / (docs/specs/issue-1)`, msgs[0].String())
	assert.Contains(t, msgs[1].Text, `"/etc/passwd"`)
}

func TestWriteAtomicKeepsPermissionsAndLeavesNoTempFile(t *testing.T) {
	hc := hooktest.NewContext(t, nil, nil)
	p := hooktest.WriteArtifact(t, hc, "design.md", "old")
	require.NoError(t, os.Chmod(p, 0o600))
	d, err := Open(hc)
	require.NoError(t, err)
	defer d.Close()
	require.NoError(t, d.WriteAtomic("design.md", []byte("new")))
	assert.Equal(t, "new", hooktest.ReadArtifact(t, hc, "design.md"))
	info, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	entries, err := os.ReadDir(hc.WorkItem.SpecDir)
	require.NoError(t, err)
	assert.Len(t, entries, 1)
}

// A body answers a phrase regardless of ASCII case, the same answer again
// when asked again.
func TestBodyTextContainsFold(t *testing.T) {
	b := &BodyText{text: "The TRUST boundary\nAbuse Case, ÉTÉ"}
	for _, tc := range []struct {
		phrase string
		want   bool
	}{{"trust boundary", true}, {"abuse case", true}, {"boundary\nabuse", true}, {"TRUST", false}, {"misuse", false},
		{"trust boundary", true}, {"misuse", false}, {"Été", false}, {"ÉtÉ", true}} {
		assert.Equal(t, tc.want, b.ContainsFold([]byte(tc.phrase)), tc.phrase)
	}
	assert.Len(t, b.found, 7, "each phrase is searched once")
}

// Under check (a shared evaluation cache), a name the folder's listing
// shows absent is answered without asking the file system, with the error
// the file system gives without the listing; present names read alike.
func TestReadFromTheListingAnswersAsTheFileSystem(t *testing.T) {
	hc := hooktest.NewContext(t, nil, nil)
	hooktest.WriteArtifact(t, hc, "design.md", "the design")
	hooktest.WriteArtifact(t, hc, "evidence/self-review.md", "rounds")
	require.NoError(t, os.MkdirAll(filepath.Join(hc.WorkItem.SpecDir, "empty"), 0o755))
	read := func(cache *runtime.EvalCache, name string) (string, string) {
		hc.Cache = cache
		d, err := Open(hc)
		require.NoError(t, err)
		defer d.Close()
		text, err := d.Read(name)
		if err != nil {
			return text, err.Error()
		}
		return text, ""
	}
	for _, name := range []string{"design.md", "absent.md", "evidence/self-review.md", "evidence/absent.md", "nothing/here.md", "empty/absent.md", "design.md/x"} {
		cache := runtime.NewEvalCache()
		text, msg := read(cache, name)
		cache.Close()
		wantText, wantMsg := read(nil, name)
		assert.Equal(t, wantText, text, name)
		assert.Equal(t, wantMsg, msg, name)
		if strings.Contains(name, "absent") || strings.HasPrefix(name, "nothing") {
			assert.NotEmpty(t, msg, name)
		}
	}
}

// Under check the hooks of an item share one Dir: closing it, as each hook
// does when it is done, leaves it open for the next.
func TestHooksOfAnItemShareOneDirUnderCheck(t *testing.T) {
	hc := hooktest.NewContext(t, nil, nil)
	hooktest.WriteArtifact(t, hc, "design.md", "the design")
	hc.Cache = runtime.NewEvalCache()
	defer hc.Cache.Close()
	first, err := Open(hc)
	require.NoError(t, err)
	first.Close()
	second, err := Open(hc)
	require.NoError(t, err)
	defer second.Close()
	assert.Same(t, first, second)
	text, err := second.Read("design.md")
	require.NoError(t, err)
	assert.Equal(t, "the design", text, "a Dir closed by one hook still reads for the next")

	hc.Cache = nil // writing: each Open is its own
	own, err := Open(hc)
	require.NoError(t, err)
	defer own.Close()
	assert.NotSame(t, second, own)
}
