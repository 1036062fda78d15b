package hooks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
)

// newTestContext builds a HookContext by hand over a fresh repository in
// t.TempDir() whose work item issue-1 has its spec folder
// docs/specs/issue-1 created. node may be nil.
func newTestContext(t *testing.T, node *runtime.Node, params map[string]any) *runtime.HookContext {
	t.Helper()
	repo := t.TempDir()
	spec := filepath.Join(repo, "docs", "specs", "issue-1")
	require.NoError(t, os.MkdirAll(spec, 0o755))
	if params == nil {
		params = map[string]any{}
	}
	return &runtime.HookContext{
		Context:          t.Context(),
		WorkItem:         runtime.WorkItem{Ref: "issue-1", ID: "issue-1", SpecDir: spec},
		Repo:             repo,
		RelSpecDir:       "docs/specs/issue-1",
		Node:             node,
		Boundary:         "exit",
		Params:           params,
		SkippedArtifacts: map[string]bool{},
	}
}

// writeArtifact writes name (slash path) into the spec folder.
func writeArtifact(t *testing.T, hc *runtime.HookContext, name, text string) string {
	t.Helper()
	p := filepath.Join(hc.WorkItem.SpecDir, filepath.FromSlash(name))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

// readArtifact returns the text of name in the spec folder.
func readArtifact(t *testing.T, hc *runtime.HookContext, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(hc.WorkItem.SpecDir, filepath.FromSlash(name)))
	require.NoError(t, err)
	return string(b)
}

// texts returns the rendered messages of a result.
func texts(r runtime.Result) []string {
	out := make([]string, len(r.Messages))
	for i, m := range r.Messages {
		out[i] = m.String()
	}
	return out
}

func TestParseSlotsKeepsAlternativesAndDropsEmptyEntries(t *testing.T) {
	got := parseSlots([]string{"requirements.md | bugfix.md", "", " | ", "design.md"})
	assert.Equal(t, []slot{
		{entry: "requirements.md | bugfix.md", names: []string{"requirements.md", "bugfix.md"}},
		{entry: "design.md", names: []string{"design.md"}},
	}, got)
}

func TestSpecDirMessagePaths(t *testing.T) {
	hc := newTestContext(t, nil, nil)
	d, err := openSpecDir(hc)
	require.NoError(t, err)
	defer d.Close()
	assert.Equal(t, "docs/specs/issue-1", d.rel(""))
	assert.Equal(t, "docs/specs/issue-1/design.md", d.rel("design.md"))
	assert.Equal(t, "/elsewhere/x.md", repoPath(hc.Repo, "/elsewhere/x.md"), "outside the repo the path stays absolute")
}

func TestSpecDirThatDoesNotExistHasNothingPresent(t *testing.T) {
	hc := newTestContext(t, nil, nil)
	hc.WorkItem.SpecDir = filepath.Join(hc.Repo, "docs", "specs", "issue-404")
	d, err := openSpecDir(hc)
	require.NoError(t, err)
	defer d.Close()
	assert.False(t, d.present("design.md"))
	_, err = d.read("design.md")
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestSpecDirWithoutAFolderIsAnError(t *testing.T) {
	hc := newTestContext(t, nil, nil)
	hc.WorkItem.SpecDir = ""
	_, err := openSpecDir(hc)
	assert.ErrorContains(t, err, "WorkItem.SpecDir is empty")
}

func TestSpecDirNeverReadsOutsideTheFolder(t *testing.T) {
	hc := newTestContext(t, nil, nil)
	secret := filepath.Join(hc.Repo, "secret.md")
	require.NoError(t, os.WriteFile(secret, []byte("top secret"), 0o600))
	require.NoError(t, os.Symlink(secret, filepath.Join(hc.WorkItem.SpecDir, "link.md")))
	d, err := openSpecDir(hc)
	require.NoError(t, err)
	defer d.Close()

	for _, name := range []string{"../../../secret.md", secret, "link.md"} {
		text, err := d.read(name)
		assert.Error(t, err, name)
		assert.Empty(t, text, name)
	}
	assert.False(t, d.present("../../../secret.md"))
	assert.Error(t, d.writeAtomic("../../../secret.md", []byte("x")))
	b, err := os.ReadFile(secret)
	require.NoError(t, err)
	assert.Equal(t, "top secret", string(b), "nothing outside the spec folder was written")
}

func TestRefuseUnsafeNames(t *testing.T) {
	hc := newTestContext(t, nil, nil)
	d, err := openSpecDir(hc)
	require.NoError(t, err)
	defer d.Close()
	msgs := d.refuseUnsafeNames(parseSlots([]string{"ok.md|../../etc/passwd", "/etc/passwd", "sub/fine.md"}))
	require.Len(t, msgs, 2)
	assert.Equal(t, `artifact name "../../etc/passwd" is not a file inside the spec folder — name it relative to docs/specs/issue-1, with no .. and no leading / (docs/specs/issue-1)`, msgs[0].String())
	assert.Contains(t, msgs[1].Text, `"/etc/passwd"`)
}

func TestWriteAtomicKeepsPermissionsAndLeavesNoTempFile(t *testing.T) {
	hc := newTestContext(t, nil, nil)
	p := writeArtifact(t, hc, "design.md", "old")
	require.NoError(t, os.Chmod(p, 0o600))
	d, err := openSpecDir(hc)
	require.NoError(t, err)
	defer d.Close()
	require.NoError(t, d.writeAtomic("design.md", []byte("new")))
	assert.Equal(t, "new", readArtifact(t, hc, "design.md"))
	info, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	entries, err := os.ReadDir(hc.WorkItem.SpecDir)
	require.NoError(t, err)
	assert.Len(t, entries, 1)
}

func TestTruthy(t *testing.T) {
	for v, want := range map[any]bool{true: true, false: false, "": false, "false": true, 0: false, 1: true, 0.0: false} {
		assert.Equal(t, want, truthy(v), "%#v", v)
	}
	assert.False(t, truthy(nil))
	assert.False(t, truthy([]any{}))
	assert.True(t, truthy([]any{"a"}))
}

func TestRegisteredHooks(t *testing.T) {
	for _, name := range []string{"validate-artifacts", "enforces-boundaries-from", "lint-artifacts",
		"verify-tests", "await-inner-loops", "log-entry", "lock-artifacts"} {
		_, ok := shippedRegistry(t).Lookup(name)
		assert.True(t, ok, name)
	}
}
