package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var ctx = context.Background()

func TestAddCreatesTheBranchFromTheRemoteDefault(t *testing.T) {
	r := newRig(t)
	tree, err := r.m.Add(ctx, "issue-7", "the-loop/issue-7-add-login")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(r.root, "issue-7"), tree.Dir)
	assert.Equal(t, "hello\n", readFile(t, tree.Dir, "README.md"))
	assert.Equal(t, "the-loop/issue-7-add-login", gitT(t, r.env, tree.Dir, "symbolic-ref", "--short", "HEAD"))
	// An agent working in the tree commits; the loop pushes.
	writeFile(t, tree.Dir, "docs/specs/issue-7/design.md", "# Design\n")
	gitT(t, r.env, tree.Dir, "add", "-A")
	gitT(t, r.env, tree.Dir, "commit", "--quiet", "-m", "design")
	res, err := tree.Push(ctx)
	require.NoError(t, err)
	assert.True(t, res.Pushed)
	assert.Equal(t, "# Design", r.remoteFile(t, "the-loop/issue-7-add-login", "docs/specs/issue-7/design.md"),
		"the loop publishes what the agent committed")
	assert.Equal(t, gitT(t, r.env, tree.Dir, "rev-parse", "HEAD"), gitT(t, r.env, r.source, "rev-parse", "refs/heads/the-loop/issue-7-add-login"),
		"the branch is published from the source")
	assert.Equal(t, gitT(t, r.env, tree.Dir, "rev-parse", "HEAD"), gitT(t, r.env, tree.Dir, "rev-parse", "origin/the-loop/issue-7-add-login"),
		"the agent sees what the remote holds")
	cmd := exec.Command("git", "-C", tree.Dir, "push")
	cmd.Env = r.env
	out, err := cmd.CombinedOutput()
	assert.Error(t, err, "the tree's repository has no remote: an agent never pushes")
	assert.Contains(t, string(out), "No configured push destination")
}

func TestAddChecksOutABranchAlreadyPushed(t *testing.T) {
	r := newRig(t)
	// A handoff pushed its spec branch before the item was armed.
	r.agentPushNewBranch(t, "spec/handoff-9", "docs/specs/issue-9/brainstorm.md", "# Brainstorm\n")
	tree, err := r.m.Add(ctx, "issue-9", "spec/handoff-9")
	require.NoError(t, err)
	assert.Equal(t, "# Brainstorm\n", readFile(t, tree.Dir, "docs/specs/issue-9/brainstorm.md"))
}

func (r *rig) agentPushNewBranch(t *testing.T, branch, path, content string) {
	dir := filepath.Join(t.TempDir(), "agent")
	gitT(t, r.env, filepath.Dir(dir), "clone", "--quiet", r.remote, dir)
	gitT(t, r.env, dir, "checkout", "--quiet", "-b", branch)
	writeFile(t, dir, path, content)
	gitT(t, r.env, dir, "add", "-A")
	gitT(t, r.env, dir, "commit", "--quiet", "-m", "spec")
	gitT(t, r.env, dir, "push", "--quiet", "origin", "HEAD:refs/heads/"+branch)
}

func TestAddIsIdempotentAndRefusesStrangers(t *testing.T) {
	r := newRig(t)
	first, err := r.m.Add(ctx, "issue-7", "the-loop/issue-7")
	require.NoError(t, err)
	again, err := r.m.Add(ctx, "issue-7", "the-loop/issue-7")
	require.NoError(t, err)
	assert.Equal(t, first.Dir, again.Dir)

	_, err = r.m.Add(ctx, "issue-7", "the-loop/issue-7-other")
	assert.ErrorContains(t, err, "not the-loop/issue-7-other")

	require.NoError(t, os.MkdirAll(filepath.Join(r.root, "issue-8"), 0o755))
	_, err = r.m.Add(ctx, "issue-8", "the-loop/issue-8")
	assert.ErrorContains(t, err, "move it aside")

	_, err = r.m.Add(ctx, "../escape", "the-loop/x")
	assert.ErrorContains(t, err, "work item id")
	_, err = r.m.Add(ctx, "issue-10", "bad..branch")
	assert.ErrorContains(t, err, "not valid for git")
}

func TestFindReturnsAnExistingTreeWithItsBranch(t *testing.T) {
	r := newRig(t)
	none, err := r.m.Find(ctx, "issue-7")
	require.NoError(t, err)
	assert.Nil(t, none, "no tree yet")
	added, err := r.m.Add(ctx, "issue-7", "the-loop/issue-7-login")
	require.NoError(t, err)
	found, err := r.m.Find(ctx, "issue-7")
	require.NoError(t, err)
	require.NotNil(t, found)
	assert.Equal(t, added.Dir, found.Dir)
	assert.Equal(t, "the-loop/issue-7-login", found.Branch)

	require.NoError(t, os.MkdirAll(filepath.Join(r.root, "issue-8"), 0o755))
	_, err = r.m.Find(ctx, "issue-8")
	assert.ErrorContains(t, err, "move it aside", "a stranger directory is never taken over")
}

func TestNewRefusesWhatIsNotACheckout(t *testing.T) {
	env := testEnv(t)
	_, err := New(ctx, Options{Source: t.TempDir(), Root: t.TempDir(), Env: env})
	assert.ErrorContains(t, err, "not a git checkout")
	noRemote := t.TempDir()
	gitT(t, env, noRemote, "init", "--quiet")
	_, err = New(ctx, Options{Source: noRemote, Root: t.TempDir(), Env: env})
	assert.ErrorContains(t, err, `no remote "origin"`)
	_, err = New(ctx, Options{Source: "relative", Root: t.TempDir(), Env: env})
	assert.ErrorContains(t, err, "absolute path")
	_, err = New(ctx, Options{Source: noRemote, Root: t.TempDir(), Env: env, Identity: Identity{Name: "x"}})
	assert.ErrorContains(t, err, "both a name and an email")
}

func TestSyncFastForwardsToWhatTheAgentPushed(t *testing.T) {
	r := newRig(t)
	const branch = "the-loop/issue-7"
	tree, err := r.m.Add(ctx, "issue-7", branch)
	require.NoError(t, err)

	res, err := tree.Sync(ctx)
	require.NoError(t, err)
	assert.Equal(t, NoRemoteBranch, res.Action)

	r.publish(t, tree)
	res, err = tree.Sync(ctx)
	require.NoError(t, err)
	assert.Equal(t, UpToDate, res.Action)

	pushed := r.agentPush(t, branch, "docs/specs/issue-7/requirements.md", "# Requirements\n\n## Requirements\n")
	res, err = tree.Sync(ctx)
	require.NoError(t, err)
	assert.Equal(t, FastForwarded, res.Action)
	assert.Equal(t, pushed, res.After)
	assert.Equal(t, "# Requirements\n\n## Requirements\n", readFile(t, tree.Dir, "docs/specs/issue-7/requirements.md"))

	writeFile(t, tree.Dir, "notes.md", "local\n")
	gitT(t, r.env, tree.Dir, "add", "notes.md")
	gitT(t, r.env, tree.Dir, "commit", "--quiet", "-m", "local")
	res, err = tree.Sync(ctx)
	require.NoError(t, err)
	assert.Equal(t, Ahead, res.Action)
}

func TestSyncNeverOverwritesLocalWork(t *testing.T) {
	const branch = "the-loop/issue-7"
	t.Run("diverged", func(t *testing.T) {
		r := newRig(t)
		tree, err := r.m.Add(ctx, "issue-7", branch)
		require.NoError(t, err)
		r.publish(t, tree)
		writeFile(t, tree.Dir, "local.md", "mine\n")
		gitT(t, r.env, tree.Dir, "add", "local.md")
		gitT(t, r.env, tree.Dir, "commit", "--quiet", "-m", "local")
		localHead := gitT(t, r.env, tree.Dir, "rev-parse", "HEAD")
		r.agentPush(t, branch, "remote.md", "theirs\n")

		_, err = tree.Sync(ctx)
		var ce *ConflictError
		require.True(t, errors.As(err, &ce), "%v", err)
		assert.Equal(t, Diverged, ce.Kind)
		assert.Contains(t, err.Error(), "never forces or resets")
		assert.Equal(t, localHead, gitT(t, r.env, tree.Dir, "rev-parse", "HEAD"), "the local commit is untouched")
		assert.Equal(t, "mine\n", readFile(t, tree.Dir, "local.md"))
	})
	t.Run("uncommitted changes in the way", func(t *testing.T) {
		r := newRig(t)
		tree, err := r.m.Add(ctx, "issue-7", branch)
		require.NoError(t, err)
		r.publish(t, tree)
		writeFile(t, tree.Dir, "README.md", "edited here, not committed\n")
		r.agentPush(t, branch, "README.md", "pushed by the agent\n")

		_, err = tree.Sync(ctx)
		var ce *ConflictError
		require.True(t, errors.As(err, &ce), "%v", err)
		assert.Equal(t, LocalChanges, ce.Kind)
		assert.Equal(t, []string{"README.md"}, ce.Files)
		assert.Equal(t, "edited here, not committed\n", readFile(t, tree.Dir, "README.md"))
	})
}

func TestCommitAndPushCommitsOnlyTheNamedPaths(t *testing.T) {
	r := newRig(t)
	const branch = "the-loop/issue-1"
	tree, err := r.m.Add(ctx, "issue-1", branch)
	require.NoError(t, err)
	// Someone's unrelated work in the tree: one staged, one not.
	writeFile(t, tree.Dir, "staged.md", "staged\n")
	gitT(t, r.env, tree.Dir, "add", "staged.md")
	writeFile(t, tree.Dir, "README.md", "unstaged edit\n")
	// What the gate wrote: an edit, a new file and a deletion.
	writeFile(t, tree.Dir, "docs/specs/issue-1/requirements.md", "---\nstatus: approved\n---\n# Requirements\n")
	writeFile(t, tree.Dir, "docs/specs/issue-1/evidence/[weird] name*.md", "review\n")

	res, err := tree.CommitAndPush(ctx, Change{
		Paths:   []string{"docs/specs/issue-1/requirements.md", "docs/specs/issue-1/evidence/[weird] name*.md"},
		Subject: "Lock requirements.md for issue-1", Gate: "requirements-approval"})
	require.NoError(t, err)
	assert.NotEmpty(t, res.Commit)
	assert.True(t, res.Pushed)
	assert.False(t, res.Merged)
	assert.Equal(t, res.Commit, r.remoteHead(t, branch))

	files := gitT(t, r.env, tree.Dir, "show", "--name-only", "--format=", "HEAD")
	assert.Equal(t, "docs/specs/issue-1/evidence/[weird] name*.md\ndocs/specs/issue-1/requirements.md", files)
	msg := gitT(t, r.env, tree.Dir, "log", "-1", "--format=%B")
	assert.True(t, IsMarked(msg), msg)
	assert.Contains(t, msg, "The-Loop-Gate: requirements-approval")
	assert.Equal(t, "the-loop <loop@example.invalid>", gitT(t, r.env, tree.Dir, "log", "-1", "--format=%an <%ae>"))

	status := gitT(t, r.env, tree.Dir, "status", "--porcelain")
	assert.Equal(t, "M README.md\nA  staged.md", status, "other work is left exactly as it was")

	again, err := tree.CommitAndPush(ctx, Change{Paths: []string{"docs/specs/issue-1/requirements.md"}, Subject: "again", Gate: "requirements-approval"})
	require.NoError(t, err)
	assert.Equal(t, CommitResult{}, again, "nothing changed: no commit, no push")
}

func TestCommitAndPushDeletesANamedPath(t *testing.T) {
	r := newRig(t)
	tree, err := r.m.Add(ctx, "issue-1", "the-loop/issue-1")
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(tree.Dir, "docs/specs/issue-1/requirements.md")))
	res, err := tree.CommitAndPush(ctx, Change{Paths: []string{"docs/specs/issue-1/requirements.md"}, Subject: "drop", Gate: "cleanup"})
	require.NoError(t, err)
	assert.True(t, res.Pushed)
	assert.Equal(t, "docs/specs/issue-1/requirements.md", gitT(t, r.env, tree.Dir, "show", "--name-only", "--format=", "HEAD"))
	assert.Empty(t, gitT(t, r.env, tree.Dir, "status", "--porcelain"))
}

func TestCommitAndPushRefusesPathsOutsideTheTree(t *testing.T) {
	r := newRig(t)
	tree, err := r.m.Add(ctx, "issue-1", "the-loop/issue-1")
	require.NoError(t, err)
	for _, p := range []string{"../outside.md", "/etc/passwd", ".git/config", ".GIT/hooks/pre-commit", "", ".", "a/../../x"} {
		_, err := tree.CommitAndPush(ctx, Change{Paths: []string{p}, Subject: "x", Gate: "g"})
		assert.Error(t, err, "path %q", p)
	}
	_, err = tree.CommitAndPush(ctx, Change{Paths: nil, Subject: "x", Gate: "g"})
	assert.ErrorContains(t, err, "name the paths")
	_, err = tree.CommitAndPush(ctx, Change{Paths: []string{"README.md"}, Subject: "", Gate: "g"})
	assert.ErrorContains(t, err, "subject")
}

func TestCommitAndPushMergesWhatWasPushedMeanwhile(t *testing.T) {
	r := newRig(t)
	const branch = "the-loop/issue-1"
	tree, err := r.m.Add(ctx, "issue-1", branch)
	require.NoError(t, err)
	r.publish(t, tree)
	agent := r.agentPush(t, branch, "src/feature.go", "package feature\n")

	writeFile(t, tree.Dir, "docs/specs/issue-1/requirements.md", "locked\n")
	res, err := tree.CommitAndPush(ctx, Change{Paths: []string{"docs/specs/issue-1/requirements.md"}, Subject: "Lock", Gate: "requirements-approval"})
	require.NoError(t, err)
	assert.True(t, res.Pushed)
	assert.True(t, res.Merged)
	head := r.remoteHead(t, branch)
	assert.Equal(t, "package feature", r.remoteFile(t, branch, "src/feature.go"))
	assert.Equal(t, "locked", r.remoteFile(t, branch, "docs/specs/issue-1/requirements.md"))
	gitT(t, r.env, r.remote, "merge-base", "--is-ancestor", agent, head) // the agent's commit is kept, not rewritten
}

func TestCommitAndPushNeverForcesOverAConflict(t *testing.T) {
	r := newRig(t)
	const branch = "the-loop/issue-1"
	tree, err := r.m.Add(ctx, "issue-1", branch)
	require.NoError(t, err)
	r.publish(t, tree)
	agent := r.agentPush(t, branch, "docs/specs/issue-1/requirements.md", "the agent rewrote it\n")

	writeFile(t, tree.Dir, "docs/specs/issue-1/requirements.md", "the gate locked it\n")
	res, err := tree.CommitAndPush(ctx, Change{Paths: []string{"docs/specs/issue-1/requirements.md"}, Subject: "Lock", Gate: "requirements-approval"})
	var ce *ConflictError
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.Equal(t, MergeConflict, ce.Kind)
	assert.Equal(t, []string{"docs/specs/issue-1/requirements.md"}, ce.Files)
	assert.False(t, res.Pushed)
	assert.Equal(t, agent, r.remoteHead(t, branch), "the remote keeps the agent's commit")
	assert.Equal(t, res.Commit, gitT(t, r.env, tree.Dir, "rev-parse", "HEAD"), "the gate's commit is kept locally")
	assert.Equal(t, "the gate locked it\n", readFile(t, tree.Dir, "docs/specs/issue-1/requirements.md"))
	assert.Empty(t, gitT(t, r.env, tree.Dir, "status", "--porcelain"), "no merge is left half-done")
}

func TestCommitAndPushReportsARemoteRefusal(t *testing.T) {
	r := newRig(t)
	hook := filepath.Join(r.remote, "hooks", "pre-receive")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\necho 'branch is protected' >&2\nexit 1\n"), 0o755))
	tree, err := r.m.Add(ctx, "issue-1", "the-loop/issue-1")
	require.NoError(t, err)
	writeFile(t, tree.Dir, "docs/specs/issue-1/requirements.md", "locked\n")
	res, err := tree.CommitAndPush(ctx, Change{Paths: []string{"docs/specs/issue-1/requirements.md"}, Subject: "Lock", Gate: "requirements-approval"})
	var pr *PushRejectedError
	require.True(t, errors.As(err, &pr), "%v", err)
	assert.Equal(t, "the remote refused it", pr.Reason)
	assert.Equal(t, "push of the-loop/issue-1 was refused: the remote refused it (pre-receive hook declined; the remote said: branch is protected); "+
		"the loop never forces a push: fix the remote's rule or the branch, and the next cycle pushes again", err.Error())
	assert.False(t, res.Pushed)
	assert.NotEmpty(t, res.Commit)
}

func TestTwoItemsWorkConcurrentlyInSeparateTrees(t *testing.T) {
	r := newRig(t)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	dirs := make([]string, 2)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := fmt.Sprintf("issue-%d", 20+i)
			tree, err := r.m.Add(ctx, id, "the-loop/"+id)
			if err != nil {
				errs[i] = err
				return
			}
			dirs[i] = tree.Dir
			for n := 0; n < 3 && err == nil; n++ {
				p := fmt.Sprintf("docs/specs/%s/file-%d.md", id, n)
				if err = os.MkdirAll(filepath.Dir(filepath.Join(tree.Dir, p)), 0o755); err == nil {
					err = os.WriteFile(filepath.Join(tree.Dir, p), []byte(id), 0o644)
				}
				if err == nil {
					_, err = tree.CommitAndPush(ctx, Change{Paths: []string{p}, Subject: "write " + p, Gate: "g"})
				}
				if err == nil {
					_, err = tree.Sync(ctx)
				}
			}
			errs[i] = err
		}(i)
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	assert.NotEqual(t, dirs[0], dirs[1])
	for i := 0; i < 2; i++ {
		id := fmt.Sprintf("issue-%d", 20+i)
		assert.Equal(t, id, r.remoteFile(t, "the-loop/"+id, fmt.Sprintf("docs/specs/%s/file-2.md", id)))
		assert.NoFileExists(t, filepath.Join(dirs[1-i], "docs/specs", id, "file-0.md"), "items never share files")
	}
}

func TestRemoveRefusesToLoseWork(t *testing.T) {
	r := newRig(t)
	tree, err := r.m.Add(ctx, "issue-1", "the-loop/issue-1")
	require.NoError(t, err)

	writeFile(t, tree.Dir, "wip.md", "uncommitted\n")
	err = r.m.Remove(ctx, "issue-1", false)
	var de *DirtyError
	require.True(t, errors.As(err, &de), "%v", err)
	assert.Equal(t, []string{"?? wip.md"}, de.Changes)
	assert.DirExists(t, tree.Dir)

	gitT(t, r.env, tree.Dir, "add", "wip.md")
	gitT(t, r.env, tree.Dir, "commit", "--quiet", "-m", "wip")
	err = r.m.Remove(ctx, "issue-1", false)
	require.True(t, errors.As(err, &de), "%v", err)
	assert.Equal(t, 1, de.Unpushed)
	assert.Contains(t, err.Error(), "1 unpushed commit(s)")

	r.publish(t, tree)
	require.NoError(t, r.m.Remove(ctx, "issue-1", false))
	assert.NoDirExists(t, tree.Dir)
	require.NoError(t, r.m.Remove(ctx, "issue-1", false), "removing a missing tree is not an error")

	again, err := r.m.Add(ctx, "issue-1", "the-loop/issue-1")
	require.NoError(t, err, "a removed item can be armed again")
	writeFile(t, again.Dir, "scratch.md", "x\n")
	require.NoError(t, r.m.Remove(ctx, "issue-1", true), "discard removes a dirty tree")
	assert.NoDirExists(t, again.Dir)
}

func TestGitMessagesNeverCarryCredentials(t *testing.T) {
	r := newRig(t)
	// A remote whose URL carries a password; nothing listens there.
	gitT(t, r.env, r.source, "remote", "add", "creds", "http://bot:hunter2-secret@127.0.0.1:9/x.git")
	m, err := New(ctx, Options{Source: r.source, Root: t.TempDir(), Remote: "creds", Env: r.env, Secrets: []string{"hunter2-secret"}})
	require.NoError(t, err)
	_, err = m.Add(ctx, "issue-1", "the-loop/issue-1")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "hunter2")
}

func TestGitDirsAreTheTreesOwnRepository(t *testing.T) {
	r := newRig(t)
	tree, err := r.m.Add(context.Background(), "issue-1", "the-loop/issue-1")
	require.NoError(t, err)
	w, ro := tree.GitDirs()
	repo := filepath.Join(r.root, ".repos", "issue-1")
	assert.Equal(t, []string{filepath.Join(repo, "objects"), filepath.Join(repo, "refs"), filepath.Join(repo, "logs"),
		filepath.Join(repo, "worktrees", "issue-1")}, w)
	assert.Equal(t, []string{repo, filepath.Join(r.source, ".git", "objects")}, ro)
	for _, d := range append(w, ro...) {
		assert.NotEqual(t, filepath.Join(r.source, ".git", "refs"), d, "the source's refs are never a session's")
	}

	// A session that rewrote the tree's .git and its administrative
	// directory finds them restored at its next launch.
	require.NoError(t, os.WriteFile(filepath.Join(tree.Dir, ".git"), []byte("gitdir: /elsewhere\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "worktrees", "issue-1", "commondir"), []byte("/elsewhere\n"), 0o644))
	w2, _ := tree.GitDirs()
	assert.Equal(t, w, w2)
	assert.Equal(t, "the-loop/issue-1", gitT(t, r.env, tree.Dir, "symbolic-ref", "--short", "HEAD"))
}

// TestSyncFindsFilesDeletedUnderTheLoop: a tree that lost files its branch
// holds (deleted in part, not by a commit) is not read as the branch's
// work: Sync says which files are gone, and once they are back it syncs.
func TestSyncFindsFilesDeletedUnderTheLoop(t *testing.T) {
	r := newRig(t)
	const branch = "the-loop/issue-7"
	tree, err := r.m.Add(ctx, "issue-7", branch)
	require.NoError(t, err)
	r.publish(t, tree)
	require.NoError(t, os.Remove(filepath.Join(tree.Dir, "README.md")))
	require.NoError(t, os.RemoveAll(filepath.Join(tree.Dir, "docs")))

	_, err = tree.Sync(ctx)
	var conflict *ConflictError
	require.ErrorAs(t, err, &conflict)
	assert.Equal(t, MissingFiles, conflict.Kind)
	assert.Equal(t, []string{"README.md", "docs/specs/issue-1/requirements.md"}, conflict.Files)
	assert.Contains(t, err.Error(), "is missing 2 file(s) the branch holds (README.md, docs/specs/issue-1/requirements.md)")

	gitT(t, r.env, tree.Dir, "checkout", "--", ".")
	res, err := tree.Sync(ctx)
	require.NoError(t, err)
	assert.Equal(t, UpToDate, res.Action)

	writeFile(t, tree.Dir, "notes.md", "local\n")
	require.NoError(t, os.Remove(filepath.Join(tree.Dir, "notes.md")))
	_, err = tree.Sync(ctx)
	require.NoError(t, err, "a file never committed is no file the branch holds")
}
