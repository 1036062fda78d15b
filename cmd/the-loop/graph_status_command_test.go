package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGraphStatusNamesACommandOnlyForWorkLeftToDo: `graph status` tells an
// agent which plugin command to run at a node with work left, and never for
// a node skipped by declaration or the finished walk.
func TestGraphStatusNamesACommandOnlyForWorkLeftToDo(t *testing.T) {
	repo := copyDir(t, fixtureRepo(t))
	// A keyless walk: with the fixture's public key committed and no private
	// key here, the operator acts below would be recorded unsigned and ignored.
	require.NoError(t, os.Remove(filepath.Join(repo, ".the-loop", "signing.pub")))
	env := map[string]string{"THE_LOOP_DB": filepath.Join(t.TempDir(), "state.db")}
	run := func(args ...string) string {
		out, errOut, code := runCLI(t, env, append(args, "--repo", repo)...)
		require.Equal(t, 0, code, errOut)
		return out
	}
	run("graph", "start", "issue-1")
	run("graph", "skip", "issue-1", "--node", "design", "--reason", "docs-only change")

	run("graph", "force", "issue-1", "--to", "requirements-definition", "--reason", "test")
	out := run("graph", "status", "issue-1")
	assert.Contains(t, out, "status: block")
	assert.Contains(t, out, "work it with: `/the-loop:new-requirement issue-1`")

	run("graph", "force", "issue-1", "--to", "design", "--reason", "test")
	out = run("graph", "status", "issue-1")
	assert.Contains(t, out, "status: skip")
	assert.NotContains(t, out, "work it with", "a skipped node has nothing to work")

	run("graph", "force", "issue-1", "--to", "complete", "--reason", "test")
	out = run("graph", "status", "issue-1")
	assert.Contains(t, out, "current node: complete")
	assert.NotContains(t, out, "work it with", "the finished walk has nothing to work")
	assert.NotContains(t, out, "finish-tasks")
}
