package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
)

// itemsRepo is a repository with a .git marker and three spec folders.
func itemsRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	for _, id := range []string{"issue-1", "issue-2", "issue-12"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "docs", "specs", id), 0o755))
	}
	return dir
}

// A check over nothing is an error naming the root looked in and the spec
// folder expected, never a pass: from a subdirectory, outside a
// repository, with a wrong spec folder, or with an empty one.
func TestCheckRefusesToPassOnNothing(t *testing.T) {
	repo := itemsRepo(t)
	outside := t.TempDir()
	wrong := itemsRepo(t)
	require.NoError(t, os.MkdirAll(filepath.Join(wrong, ".the-loop"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(wrong, ".the-loop", "harness-config.yaml"), []byte("workflow:\n  specDir: specs\n"), 0o644))
	empty := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(empty, "docs", "specs"), 0o755))
	real := func(p string) string { r, err := filepath.EvalSymlinks(p); require.NoError(t, err); return r }

	tests := []struct {
		name string
		dir  string
		says []string
	}{
		{"a subdirectory", filepath.Join(repo, "docs"), []string{
			"the spec folder docs/specs (the default;", "does not exist in the repository root " + real(filepath.Join(repo, "docs")),
			"this directory is inside " + real(repo) + ": pass --repo " + real(repo)}},
		{"outside a repository", outside, []string{"does not exist in the repository root " + real(outside), "run from the repository root or pass --repo DIR"}},
		{"a wrong spec folder", wrong, []string{"the spec folder specs (workflow.specDir in .the-loop/harness-config.yaml) does not exist in the repository root " + real(wrong)}},
		{"an empty spec folder", empty, []string{"the spec folder docs/specs (the default;", "holds no work item folder"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := benchService(t)
			res, err := svc.Check(context.Background(), CheckRequest{Repo: tt.dir, All: true})
			require.ErrorIs(t, err, ErrNoWorkItems)
			require.ErrorIs(t, err, ErrInvalidRequest, "a usage error: exit 2, an isError tool result")
			for _, s := range tt.says {
				assert.Contains(t, err.Error(), s)
			}
			assert.Empty(t, res.Reports)
		})
	}
}

// A misspelled id is refused with the nearest known ones on every verb on
// an existing item; it never becomes a new item.
func TestUnknownIDsAreRefusedWithTheNearestKnownOnes(t *testing.T) {
	repo := itemsRepo(t)
	svc := benchService(t)
	ctx := context.Background()
	item := ItemRequest{Repo: repo, WorkItem: "isue-2"}
	calls := map[string]func() error{
		"check":    func() error { _, err := svc.Check(ctx, CheckRequest{Repo: repo, WorkItem: "isue-2"}); return err },
		"status":   func() error { _, err := svc.Status(ctx, item); return err },
		"events":   func() error { _, err := svc.Events(ctx, item); return err },
		"advance":  func() error { _, err := svc.Advance(ctx, item); return err },
		"complete": func() error { _, err := svc.Complete(ctx, CompleteRequest{ItemRequest: item}); return err },
		"force": func() error {
			_, err := svc.Force(ctx, ForceRequest{ItemRequest: item, To: "design", Reason: "r"})
			return err
		},
		"skip": func() error {
			_, err := svc.Skip(ctx, SkipRequest{ItemRequest: item, Nodes: []string{"design"}, Reason: "r"})
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			err := call()
			require.ErrorIs(t, err, ErrUnknownItem)
			require.ErrorIs(t, err, ErrInvalidRequest)
			assert.Contains(t, err.Error(), `unknown work item "isue-2"`)
			assert.Contains(t, err.Error(), `did you mean "issue-2"?`)
			assert.Contains(t, err.Error(), "docs/specs/isue-2 does not exist")
		})
	}
	assert.NoDirExists(t, filepath.Join(repo, "docs", "specs", "isue-2"), "nothing was created for the typo")
	st, release, err := svc.readStore(ctx)
	require.NoError(t, err)
	defer release()
	if st != nil {
		items, err := st.List(ctx, real(t, repo))
		require.NoError(t, err)
		assert.Empty(t, items, "no state was stored for the typo")
	}

	_, err = svc.Check(ctx, CheckRequest{Repo: repo, WorkItem: "nosuch"})
	assert.ErrorContains(t, err, `the nearest known ones are "issue-1", "issue-2" and "issue-12"`, "far from every id: the nearest are still named")
}

// An item known only to the store (started before its folder exists) is
// not unknown; a repository with no item at all says where it looked.
func TestKnownItemsIncludeStoredState(t *testing.T) {
	repo := t.TempDir()
	svc := benchService(t)
	ctx := context.Background()
	_, err := svc.Check(ctx, CheckRequest{Repo: repo, WorkItem: "issue-7"})
	require.ErrorIs(t, err, ErrUnknownItem)
	assert.Contains(t, err.Error(), "the spec folder docs/specs (the default;")

	_, err = svc.Start(ctx, StartRequest{ItemRequest: ItemRequest{Repo: repo, WorkItem: "issue-7"}})
	require.NoError(t, err, "start is how a new item begins")
	require.NoError(t, os.RemoveAll(filepath.Join(repo, "docs")))
	res, err := svc.Status(ctx, ItemRequest{Repo: repo, WorkItem: "issue-7"})
	require.NoError(t, err)
	assert.True(t, res.Started)
	_, err = svc.Advance(ctx, ItemRequest{Repo: repo, WorkItem: "issue-8"})
	assert.ErrorContains(t, err, `did you mean "issue-7"?`, "the store's items are suggested too")
}

// One id rule on every surface: an id with a space is refused before
// anything is created.
func TestIDsWithSpacesAreRefusedEverywhere(t *testing.T) {
	repo := itemsRepo(t)
	svc := benchService(t)
	ctx := context.Background()
	_, err := svc.Start(ctx, StartRequest{ItemRequest: ItemRequest{Repo: repo, WorkItem: "a b"}})
	require.ErrorIs(t, err, ErrInvalidRequest)
	assert.Contains(t, err.Error(), "is not a plain folder name: an id is a spec folder name")
	_, err = svc.Check(ctx, CheckRequest{Repo: repo, WorkItem: "a b"})
	require.ErrorIs(t, err, ErrInvalidRequest)
	assert.NoDirExists(t, filepath.Join(repo, "docs", "specs", "a b"))
}

func real(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	require.NoError(t, err)
	return r
}

// The poller names items by the same rule: every id it derives from a
// ticket is a valid id.
func TestPollerIDsFollowTheOneRule(t *testing.T) {
	tests := []struct {
		system string
		issue  integrations.Issue
		want   string
	}{
		{"github", integrations.Issue{Number: 12}, "issue-12"},
		{"jira", integrations.Issue{Key: "PROJ-12"}, "PROJ-12"},
		{"jira", integrations.Issue{Ref: integrations.Ref{System: "jira", Key: "AB_C-7"}}, "AB_C-7"},
	}
	for _, tt := range tests {
		id, _ := itemFor(tt.system, "octo/widgets", tt.issue)
		assert.Equal(t, tt.want, id)
		assert.NoError(t, runtime.ValidateID(id))
	}
}
