package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheLoopsGitRunsNothingASessionWrote: a session in a tree rewrites
// the tree's .git to a repository of its own (hooks, a file-system
// monitor, an ssh command, an external diff, a filter), points its
// administrative directory's commondir there, adds a config.worktree and
// a .gitattributes naming that filter. The loop's next sync, commit and
// push run none of it, and publish to the real remote's branch.
func TestTheLoopsGitRunsNothingASessionWrote(t *testing.T) {
	r := newRig(t)
	const branch = "the-loop/issue-1"
	tree, err := r.m.Add(ctx, "issue-1", branch)
	require.NoError(t, err)
	r.publish(t, tree)

	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "evil.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho \"$0 $*\" >> "+marker+"\ncat\n"), 0o755))
	evil := filepath.Join(tree.Dir, ".evil")
	gitT(t, r.env, tree.Dir, "init", "--quiet", "--bare", evil)
	cfg := "[core]\n\tfsmonitor = " + script + "\n\thooksPath = " + filepath.Join(evil, "hooks") + "\n\tsshCommand = " + script +
		"\n[diff]\n\texternal = " + script + "\n[filter \"evil\"]\n\tclean = " + script + "\n\tsmudge = " + script +
		"\n[include]\n\tpath = " + filepath.Join(evil, "more") + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(evil, "config"), []byte("[core]\n\trepositoryformatversion = 0\n\tbare = false\n"+cfg), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(evil, "hooks"), 0o755))
	for _, h := range []string{"pre-commit", "post-commit", "pre-push", "post-merge", "reference-transaction", "post-checkout"} {
		require.NoError(t, os.WriteFile(filepath.Join(evil, "hooks", h), []byte("#!/bin/sh\necho hook >> "+marker+"\n"), 0o755))
	}
	admin := filepath.Join(r.root, ".repos", "issue-1", "worktrees", "issue-1")
	require.NoError(t, os.WriteFile(filepath.Join(tree.Dir, ".git"), []byte("gitdir: "+evil+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(admin, "commondir"), []byte(evil+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(admin, "config.worktree"), []byte(cfg), 0o644))
	writeFile(t, tree.Dir, ".gitattributes", "* filter=evil diff=evil\n")
	// Hooks in the tree's repository itself (a confined session cannot
	// write there; the loop's git runs none even so).
	repo := filepath.Join(r.root, ".repos", "issue-1")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "hooks"), 0o755))
	for _, h := range []string{"pre-commit", "post-commit", "pre-push", "reference-transaction", "post-checkout", "post-merge"} {
		require.NoError(t, os.WriteFile(filepath.Join(repo, "hooks", h), []byte("#!/bin/sh\necho hook >> "+marker+"\n"), 0o755))
	}

	// A git command the loop runs while the session rewrites them (after
	// the loop restored what the session changed, before git starts) reads
	// none of it: the loop's git is pinned to the tree's repository.
	want := gitT(t, r.env, r.source, "rev-parse", "refs/remotes/origin/"+branch)
	head, err := tree.head(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, head, "the pinned git reads the tree's own repository")
	_, err = tree.git(ctx, nil, "status", "--porcelain")
	require.NoError(t, err)
	_, err = tree.git(ctx, nil, "diff", "HEAD")
	require.NoError(t, err)
	assert.NoFileExists(t, marker, "nothing the session wrote ran as the loop's pinned git")

	// The session points the repository's alternates at its own
	// repository too: the loop's next operation restores them first.
	alternates := filepath.Join(repo, "objects", "info", "alternates")
	require.NoError(t, os.WriteFile(alternates, []byte(filepath.Join(evil, "objects")+"\n"), 0o644))

	// The remote moved on (a human pushed), so the loop syncs, merges and
	// pushes: every kind of git command it runs in a tree.
	r.agentPush(t, branch, "src/human.go", "package human\n")
	writeFile(t, tree.Dir, "docs/specs/issue-1/requirements.md", "locked\n")
	res, err := tree.CommitAndPush(ctx, Change{Paths: []string{"docs/specs/issue-1/requirements.md"}, Subject: "Lock", Gate: "requirements-approval"})
	require.NoError(t, err)
	assert.True(t, res.Pushed)
	assert.True(t, res.Merged)
	_, err = tree.Sync(ctx)
	require.NoError(t, err)
	_, err = tree.Push(ctx)
	require.NoError(t, err)

	assert.NoFileExists(t, marker, "nothing the session wrote ran as the loop")
	assert.Equal(t, "locked", r.remoteFile(t, branch, "docs/specs/issue-1/requirements.md"), "the push reached the real remote's branch")
	assert.Equal(t, "package human", r.remoteFile(t, branch, "src/human.go"))
	refs := gitT(t, r.env, evil, "for-each-ref")
	assert.Empty(t, refs, "the session's repository received nothing")
	assert.Equal(t, filepath.Join(r.source, ".git", "objects")+"\n", readFile(t, repo, "objects/info/alternates"), "the alternates are the loop's again")
	assert.Equal(t, "gitdir: "+admin+"\n", readFile(t, tree.Dir, ".git"), "the tree's .git is the loop's again")
	assert.Equal(t, "../..\n", readFile(t, admin, "commondir"))
}

// TestASessionCannotMoveAnotherItemsBranch: a session in issue-1's tree
// sets issue-2's branch (and main) to a commit of its own with plain git,
// as it may. It lands in issue-1's repository only: issue-2's tree, the
// source and the remote keep their branches when the loop next publishes
// either item, and none of issue-1's writable git folders holds a ref of
// another item or of the source.
func TestASessionCannotMoveAnotherItemsBranch(t *testing.T) {
	r := newRig(t)
	one, err := r.m.Add(ctx, "issue-1", "the-loop/issue-1")
	require.NoError(t, err)
	two, err := r.m.Add(ctx, "issue-2", "the-loop/issue-2")
	require.NoError(t, err)
	writeFile(t, two.Dir, "docs/specs/issue-2/design.md", "# Design of issue 2\n")
	gitT(t, r.env, two.Dir, "add", "-A")
	gitT(t, r.env, two.Dir, "commit", "--quiet", "-m", "design 2")
	r.publish(t, two)
	good := r.remoteHead(t, "the-loop/issue-2")
	main := r.remoteHead(t, "main")

	writeFile(t, one.Dir, "evil.md", "hostile\n")
	gitT(t, r.env, one.Dir, "add", "-A")
	gitT(t, r.env, one.Dir, "commit", "--quiet", "-m", "hostile")
	hostile := gitT(t, r.env, one.Dir, "rev-parse", "HEAD")
	for _, ref := range []string{"refs/heads/the-loop/issue-2", "refs/heads/main", "refs/remotes/origin/the-loop/issue-2", "refs/remotes/origin/main"} {
		gitT(t, r.env, one.Dir, "update-ref", ref, hostile)
	}

	writeFile(t, two.Dir, "docs/specs/issue-2/design.md", "locked\n")
	res, err := two.CommitAndPush(ctx, Change{Paths: []string{"docs/specs/issue-2/design.md"}, Subject: "Lock", Gate: "design-approval"})
	require.NoError(t, err)
	assert.True(t, res.Pushed)
	r.publish(t, one)

	assert.Equal(t, res.Commit, r.remoteHead(t, "the-loop/issue-2"), "issue-2's branch moved only by its own gate")
	assert.Equal(t, good, gitT(t, r.env, r.remote, "rev-parse", res.Commit+"^"))
	assert.Equal(t, main, r.remoteHead(t, "main"))
	assert.Equal(t, main, gitT(t, r.env, r.source, "rev-parse", "refs/heads/main"))
	assert.Equal(t, hostile, r.remoteHead(t, "the-loop/issue-1"), "issue-1's own branch is what its session committed")
	w, _ := one.GitDirs()
	for _, d := range w {
		assert.True(t, strings.HasPrefix(d, filepath.Join(r.root, ".repos", "issue-1")+string(filepath.Separator)), "%s is issue-1's alone", d)
	}
}

// TestTheLoopNoticesASessionSwitchedBranch: a session that checks out
// another branch in its tree is told to switch back; the loop commits
// nothing on the wrong branch.
func TestTheLoopNoticesASessionSwitchedBranch(t *testing.T) {
	r := newRig(t)
	tree, err := r.m.Add(ctx, "issue-1", "the-loop/issue-1")
	require.NoError(t, err)
	gitT(t, r.env, tree.Dir, "checkout", "--quiet", "-b", "elsewhere")
	_, err = tree.Sync(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `has "elsewhere" checked out, not the-loop/issue-1; switch it back`)
	writeFile(t, tree.Dir, "docs/specs/issue-1/requirements.md", "locked\n")
	_, err = tree.CommitAndPush(ctx, Change{Paths: []string{"docs/specs/issue-1/requirements.md"}, Subject: "Lock", Gate: "requirements-approval"})
	require.Error(t, err)
	gitT(t, r.env, tree.Dir, "checkout", "--quiet", "the-loop/issue-1")
	_, err = tree.Sync(ctx)
	require.NoError(t, err)
}

// TestATreeOfTheOldKindMovesToARepositoryOfItsOwn: a tree made when trees
// were worktrees of the source — its branch in the source's refs, an
// unpushed commit, an uncommitted file — is moved to a repository of its
// own when the loop finds it: the branch, the commit and the file are
// kept, the source forgets the tree, and the loop publishes from there.
func TestATreeOfTheOldKindMovesToARepositoryOfItsOwn(t *testing.T) {
	r := newRig(t)
	const branch = "the-loop/issue-5"
	dir := filepath.Join(r.root, "issue-5")
	require.NoError(t, os.MkdirAll(r.root, 0o755))
	gitT(t, r.env, r.source, "worktree", "add", "--quiet", "-b", branch, dir, "origin/main")
	writeFile(t, dir, "docs/specs/issue-5/design.md", "# Design\n")
	gitT(t, r.env, dir, "add", "-A")
	gitT(t, r.env, dir, "commit", "--quiet", "-m", "design")
	head := gitT(t, r.env, dir, "rev-parse", "HEAD")
	writeFile(t, dir, "notes.md", "uncommitted\n")

	tree, err := r.m.Find(ctx, "issue-5")
	require.NoError(t, err)
	require.NotNil(t, tree)
	assert.Equal(t, branch, tree.Branch)
	assert.Equal(t, head, gitT(t, r.env, dir, "rev-parse", "HEAD"))
	assert.Equal(t, "?? notes.md", gitT(t, r.env, dir, "status", "--porcelain"))
	assert.Equal(t, "gitdir: "+filepath.Join(r.root, ".repos", "issue-5", "worktrees", "issue-5"), strings.TrimSpace(readFile(t, dir, ".git")))
	assert.NotContains(t, gitT(t, r.env, r.source, "worktree", "list"), dir, "the source forgets the tree")
	w, _ := tree.GitDirs()
	assert.Contains(t, w, filepath.Join(r.root, ".repos", "issue-5", "refs"))

	r.publish(t, tree)
	assert.Equal(t, head, r.remoteHead(t, branch))
}
