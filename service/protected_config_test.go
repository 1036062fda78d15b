package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/workspace"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
)

// A session rewrites commands.test in its tree's repository config and
// commits it. Verification runs the default branch's command all the same
// — it fails when that fails, and passes when that passes though the
// branch's would fail — and the claim's warnings name the change.
func TestVerificationRunsTheDefaultBranchsCommandsNotTheTrees(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, main, tree, status string
	}{
		{name: "the tree says true", main: "[sh, -c, 'echo main test failed; exit 1']", tree: "[\"true\"]", status: "block"},
		{name: "the tree says false", main: "[sh, -c, 'echo main test ok']", tree: "[\"false\"]", status: "pass"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base, err := os.MkdirTemp("", "tl-protect")
			require.NoError(t, err)
			t.Cleanup(func() { _ = os.RemoveAll(base) })
			env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + base, "GIT_CONFIG_NOSYSTEM=1"}
			ticketing := "ticketing:\n  github:\n    owner: octo\n    repo: widgets\n"
			checkout := checkoutOf(t, env, base, "widgets", ticketing+"commands:\n  test: "+tc.main+"\n")
			m, err := workspace.New(context.Background(), workspace.Options{Source: checkout, Root: filepath.Join(base, "trees"), Env: env})
			require.NoError(t, err)
			tree, err := m.Add(context.Background(), "issue-1", "the-loop/issue-1")
			require.NoError(t, err)
			// The session's edit, committed in its tree.
			writeFile(t, filepath.Join(tree.Dir, repoconfig.Path), ticketing+"commands:\n  test: "+tc.tree+"\n")
			writeFile(t, filepath.Join(tree.Dir, "docs", "specs", "issue-1", "tasks.md"), "# Tasks\n\n## Task list\n\n- [x] T1 the export\n")
			gitT(t, env, tree.Dir, "add", "-A")
			gitT(t, env, tree.Dir, "commit", "--quiet", "-m", "tests: always pass")

			svc := testService(t, config.Default(), Deps{Signer: runtime.NewSigner([]byte("test-key"))})
			item := ItemRequest{Repo: tree.Dir, WorkItem: "issue-1"}
			ctx := context.Background()
			_, err = svc.Start(ctx, StartRequest{ItemRequest: item})
			require.NoError(t, err)
			_, err = svc.Force(ctx, ForceRequest{ItemRequest: item, To: "implementation", Reason: "the test starts at implementation", Actor: "op"})
			require.NoError(t, err)
			_, err = svc.GraphRepos(ctx, GraphReposRequest{ItemRequest: item, Clear: true, Actor: "op"})
			require.NoError(t, err)

			claim, err := svc.Complete(ctx, CompleteRequest{ItemRequest: item, Actor: "mcp"})
			require.NoError(t, err)
			assert.Equal(t, tc.status, claim.Status, "%v", claim.Messages)
			ev, err := os.ReadFile(filepath.Join(tree.Dir, "docs", "specs", "issue-1", "evidence", "tests-implementation.md"))
			require.NoError(t, err)
			assert.Contains(t, string(ev), "main test", "the default branch's command ran")
			change := configChange(claim.Warnings)
			assert.True(t, strings.HasPrefix(change, "this branch changes the repository's commands (commands: in .the-loop/harness-config.yaml); "+
				"they are not used until the change is merged: verification runs those of the default branch (origin): test `sh -c"), change)
		})
	}
}

// A tree whose commands are the default branch's has no change to name,
// and a plain checkout (not a tree the loop made) keeps its own.
func TestProtectedCommandsLeaveAnUnchangedTreeAndAPlainCheckoutAlone(t *testing.T) {
	base, err := os.MkdirTemp("", "tl-protect")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + base, "GIT_CONFIG_NOSYSTEM=1"}
	checkout := checkoutOf(t, env, base, "widgets", "commands:\n  test: [go, test, ./...]\n")
	m, err := workspace.New(context.Background(), workspace.Options{Source: checkout, Root: filepath.Join(base, "trees"), Env: env})
	require.NoError(t, err)
	tree, err := m.Add(context.Background(), "issue-1", "the-loop/issue-1")
	require.NoError(t, err)
	for _, dir := range []string{tree.Dir, checkout} {
		repo, err := repoconfig.Open(dir)
		require.NoError(t, err)
		protectCommands(context.Background(), repo)
		assert.Empty(t, configChange(repo.Warnings), dir)
		assert.Equal(t, []string{"go", "test", "./..."}, repo.Config.Commands.Test, dir)
	}
	writeFile(t, filepath.Join(checkout, repoconfig.Path), "commands:\n  test: [\"true\"]\n")
	repo, err := repoconfig.Open(checkout)
	require.NoError(t, err)
	protectCommands(context.Background(), repo)
	assert.Equal(t, []string{"true"}, repo.Config.Commands.Test, "a plain checkout is the operator's own: its file is used")
}
