package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/gitsafe"
)

// TestTheTreesViewOfTheRemoteIsWrittenOncePerCommit: the tree repository's
// refs/remotes/origin/<branch> (what a session's git status compares with)
// follows every push and every sync that brings a new commit, and a sync
// that finds what the push already recorded writes nothing; a tree made
// again gets the record again.
func TestTheTreesViewOfTheRemoteIsWrittenOncePerCommit(t *testing.T) {
	r := newRig(t)
	log := filepath.Join(t.TempDir(), "git.log")
	wrapper := filepath.Join(t.TempDir(), "git")
	require.NoError(t, os.WriteFile(wrapper, []byte("#!/bin/sh\nprintf '%s\\n' \"$*\" >> '"+log+"'\nexec git \"$@\"\n"), 0o755))
	m, err := New(context.Background(), Options{Source: r.source, Root: r.root, Env: r.env, Git: wrapper,
		Identity: Identity{Name: "the-loop", Email: "loop@example.invalid"}})
	require.NoError(t, err)
	const branch = "the-loop/issue-7"
	tree, err := m.Add(ctx, "issue-7", branch)
	require.NoError(t, err)
	repo := gitsafe.RepoOf(tree.Dir)
	view := func() string {
		return gitT(t, r.env, repo, "rev-parse", "--verify", "--quiet", "refs/remotes/origin/"+branch)
	}
	notes := func() int {
		b, err := os.ReadFile(log)
		require.NoError(t, err)
		n := 0
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, repo) && strings.Contains(l, "update-ref refs/remotes/origin/"+branch+" ") {
				n++
			}
		}
		return n
	}

	writeFile(t, tree.Dir, "docs/specs/issue-7/requirements.md", "# Requirements\n")
	res, err := tree.CommitAndPush(ctx, Change{Paths: []string{"docs/specs/issue-7/requirements.md"}, Subject: "requirements", Gate: "requirements-definition"})
	require.NoError(t, err)
	require.True(t, res.Pushed)
	assert.Equal(t, res.Commit, view(), "the push is recorded in the tree's repository")
	assert.Equal(t, 1, notes())

	synced, err := tree.Sync(ctx)
	require.NoError(t, err)
	assert.Equal(t, UpToDate, synced.Action)
	assert.Equal(t, 1, notes(), "the sync found the commit the push recorded: nothing written again")

	pushed := r.agentPush(t, branch, "docs/specs/issue-7/requirements.md", "# Requirements\n\n## More\n")
	synced, err = tree.Sync(ctx)
	require.NoError(t, err)
	assert.Equal(t, FastForwarded, synced.Action)
	assert.Equal(t, pushed, view(), "a commit someone else pushed is recorded")
	assert.Equal(t, 2, notes())

	require.NoError(t, m.Remove(ctx, "issue-7", false))
	require.NoError(t, os.RemoveAll(repo))
	tree, err = m.Add(ctx, "issue-7", branch)
	require.NoError(t, err)
	assert.Equal(t, pushed, view(), "a tree made again has the record again")
	_, err = tree.Sync(ctx)
	require.NoError(t, err)
	assert.Equal(t, pushed, view())
}
