package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeFile(t testing.TB, path, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
}

// A work-item folder that is a symbolic link is never read or written
// through.
func TestASymlinkedWorkItemIsNeverReadOrWritten(t *testing.T) {
	outside := t.TempDir()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "docs", "specs", "issue-1"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "docs", "specs", "issue-9")))
	svc := benchService(t)
	_, err := svc.Check(context.Background(), CheckRequest{Repo: dir, WorkItem: "issue-9"})
	assert.ErrorContains(t, err, "is a symbolic link")
	_, err = svc.Start(context.Background(), StartRequest{ItemRequest: ItemRequest{Repo: dir, WorkItem: "issue-9"}})
	assert.ErrorContains(t, err, "is a symbolic link")
	entries, _ := os.ReadDir(outside)
	assert.Empty(t, entries, "nothing was written through the link")
}

func TestAllowedReposConfineRequests(t *testing.T) {
	served, other := t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(served, "docs", "specs", "issue-1"), 0o755))
	real, _ := filepath.EvalSymlinks(served)
	svc := testService(t, nil, Deps{AllowedRepos: []string{real}})
	_, err := svc.Check(context.Background(), CheckRequest{Repo: other, All: true})
	assert.ErrorContains(t, err, "outside the repositories this server serves")
	_, err = svc.Check(context.Background(), CheckRequest{Repo: served, All: true})
	assert.NoError(t, err)
	assert.NoError(t, svc.allowedPath(filepath.Join(served, "docs"), "fromDir"))
	assert.Error(t, svc.allowedPath("/etc", "fromDir"))
}

// A repo argument must name a served root: a subdirectory of one would
// become the root its spec folders resolve against. Every tool's path goes
// through the same rule, the continuity tools included.
func TestARepoMustBeAServedRoot(t *testing.T) {
	served := t.TempDir()
	sub := filepath.Join(served, "docs", "specs")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	real, _ := filepath.EvalSymlinks(served)
	svc := testService(t, nil, Deps{AllowedRepos: []string{real}})
	ctx := context.Background()
	_, err := svc.Check(ctx, CheckRequest{Repo: sub, All: true})
	assert.ErrorContains(t, err, "a directory inside one is not its root")
	_, err = svc.Status(ctx, ItemRequest{Repo: sub, WorkItem: "issue-1"})
	assert.ErrorContains(t, err, "outside the repositories this server serves")
	for _, dir := range []string{sub, t.TempDir()} {
		scope := ContinuityScope{Repo: dir}
		_, err = svc.ContinuityBrief(ctx, ContinuityBriefRequest{ContinuityScope: scope})
		assert.ErrorContains(t, err, "outside the repositories this server serves", dir)
		_, err = svc.ContinuityUpdate(ctx, ContinuityUpdateRequest{ContinuityScope: scope})
		assert.ErrorContains(t, err, "outside the repositories this server serves", dir)
		_, err = svc.ContinuityPrompt(ctx, ContinuityPromptRequest{ContinuityScope: scope})
		assert.ErrorContains(t, err, "outside the repositories this server serves", dir)
		for name, call := range map[string]func() error{
			"init": func() error {
				_, err := svc.ContinuityInit(ctx, ContinuityInitRequest{ContinuityScope: scope})
				return err
			},
			"resume": func() error {
				_, err := svc.ContinuityResume(ctx, ContinuityResumeRequest{ContinuityScope: scope})
				return err
			},
			"end": func() error {
				_, err := svc.ContinuityEnd(ctx, ContinuityEndRequest{ContinuityScope: scope})
				return err
			},
			"status": func() error {
				_, err := svc.ContinuityStatus(ctx, ContinuityStatusRequest{ContinuityScope: scope})
				return err
			},
		} {
			assert.ErrorContains(t, call(), "outside the repositories this server serves", name)
		}
	}
}
