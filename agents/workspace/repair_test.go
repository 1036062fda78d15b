package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fault: the item's tree is deleted under the poller. `git worktree add`
// alone refuses ("missing but already registered worktree"); Recreate
// prunes and re-adds it on the branch the registration names, with every
// commit the tree made.
func TestRecreateBringsBackADeletedTree(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	tr, err := r.m.Add(ctx, "issue-1", "the-loop/issue-1-export")
	require.NoError(t, err)
	writeFile(t, tr.Dir, "docs/specs/issue-1/design.md", "# Design\n")
	_, err = tr.CommitAndPush(ctx, Change{Paths: []string{"docs/specs/issue-1/design.md"}, Subject: "design", Gate: "design"})
	require.NoError(t, err)
	writeFile(t, tr.Dir, "docs/specs/issue-1/local.md", "committed, never pushed\n")
	gitT(t, r.env, tr.Dir, "add", "-A")
	gitT(t, r.env, tr.Dir, "commit", "--quiet", "-m", "local")
	require.NoError(t, os.RemoveAll(tr.Dir))

	again, err := r.m.Recreate(ctx, "issue-1", "the-loop/issue-1-renamed-title")
	require.NoError(t, err)
	assert.Equal(t, "the-loop/issue-1-export", again.Branch, "the registration's branch, not a guess from the title")
	assert.Equal(t, "committed, never pushed\n", readFile(t, again.Dir, "docs/specs/issue-1/local.md"))
	n, err := again.Unpushed(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the local commit is still to be pushed")
	_, err = again.Push(ctx)
	require.NoError(t, err)
	n, err = again.Unpushed(ctx)
	require.NoError(t, err)
	assert.Zero(t, n)
}

// After a prune (a restart, a human), the branch is found among the
// candidates, else as the item's one the-loop/<id>-… branch; several are
// never guessed between.
func TestRecreateFindsTheBranchWithoutARegistration(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	tr, err := r.m.Add(ctx, "issue-2", "the-loop/issue-2-old-title")
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(tr.Dir))
	gitT(t, r.env, r.source, "worktree", "prune")
	again, err := r.m.Recreate(ctx, "issue-2", "the-loop/issue-2-new-title")
	require.NoError(t, err)
	assert.Equal(t, "the-loop/issue-2-old-title", again.Branch)

	require.NoError(t, os.RemoveAll(again.Dir))
	gitT(t, r.env, r.source, "worktree", "prune")
	gitT(t, r.env, r.source, "branch", "the-loop/issue-2-other", "main")
	_, err = r.m.Recreate(ctx, "issue-2")
	require.ErrorIs(t, err, ErrNoBranch)
	assert.Contains(t, err.Error(), "has several (")
	again, err = r.m.Recreate(ctx, "issue-2", "the-loop/issue-2-other")
	require.NoError(t, err)
	assert.Equal(t, "the-loop/issue-2-other", again.Branch, "a named candidate decides")

	_, err = r.m.Recreate(ctx, "issue-3")
	require.ErrorIs(t, err, ErrNoBranch)
}

// A tree whose uncommitted files stop it from following its branch is set
// aside: the files are copied, named, never committed; the tree is removed
// and re-created from the branch.
func TestSetAsideKeepsTheDirtyFilesAndFreesTheTree(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	tr, err := r.m.Add(ctx, "issue-1", "the-loop/issue-1")
	require.NoError(t, err)
	writeFile(t, tr.Dir, "README.md", "edited by nobody's session\n")
	writeFile(t, tr.Dir, "notes/scratch.txt", "untracked\n")
	head := gitT(t, r.env, tr.Dir, "rev-parse", "HEAD")

	aside := filepath.Join(t.TempDir(), ".aside", "issue-1", "1")
	kept, err := r.m.SetAside(ctx, "issue-1", aside)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"README.md", "notes/scratch.txt"}, kept.Files)
	assert.Equal(t, "the-loop/issue-1", kept.Branch)
	assert.Equal(t, "edited by nobody's session\n", readFile(t, aside, "README.md"))
	assert.Equal(t, "untracked\n", readFile(t, aside, "notes/scratch.txt"))
	assert.NoDirExists(t, tr.Dir)

	again, err := r.m.Recreate(ctx, "issue-1")
	require.NoError(t, err)
	assert.Equal(t, "hello\n", readFile(t, again.Dir, "README.md"))
	assert.Equal(t, head, gitT(t, r.env, again.Dir, "rev-parse", "HEAD"), "the branch is untouched")
	assert.Empty(t, gitT(t, r.env, again.Dir, "status", "--porcelain"))
	assert.Empty(t, gitT(t, r.env, again.Dir, "log", "--all", "--format=%s", "--grep=scratch"), "nothing was committed")
}

// A directory that is no longer a work tree is kept whole.
func TestSetAsideMovesABrokenTreeWhole(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	tr, err := r.m.Add(ctx, "issue-1", "the-loop/issue-1")
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(tr.Dir, ".git")))
	_, err = r.m.Find(ctx, "issue-1")
	require.Error(t, err)
	aside := filepath.Join(t.TempDir(), "kept")
	kept, err := r.m.SetAside(ctx, "issue-1", aside)
	require.NoError(t, err)
	assert.Equal(t, []string{"tree"}, kept.Files)
	assert.FileExists(t, filepath.Join(aside, "tree", "README.md"))
	again, err := r.m.Recreate(ctx, "issue-1")
	require.NoError(t, err)
	found, err := r.m.Find(ctx, "issue-1")
	require.NoError(t, err)
	assert.Equal(t, again.Dir, found.Dir)
	assert.False(t, errors.Is(err, ErrNoBranch))
}
