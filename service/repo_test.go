package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
}

func TestOpenRepo(t *testing.T) {
	tests := []struct {
		name, harness, wantSpec, wantErr string
	}{
		{name: "no harness config", wantSpec: "docs/specs"},
		{name: "spec dir from the harness config", harness: "workflow:\n  specDir: specs/\n", wantSpec: "specs"},
		{name: "spec dir escaping the repository", harness: "workflow:\n  specDir: ../elsewhere\n", wantErr: "leaves the repository"},
		{name: "absolute spec dir", harness: "workflow:\n  specDir: /etc\n", wantErr: "leaves the repository"},
		{name: "broken YAML", harness: "workflow: [\n", wantErr: "is not valid YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.harness != "" {
				writeFile(t, filepath.Join(dir, HarnessConfigPath), tt.harness)
			}
			r, err := OpenRepo(dir)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantSpec, r.SpecRoot)
		})
	}
	_, err := OpenRepo(filepath.Join(t.TempDir(), "missing"))
	assert.ErrorIs(t, err, ErrRepoUnreadable)
}

func TestWorkItemsAndRefs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, HarnessConfigPath), "ticketing:\n  github:\n    owner: acme\n    repo: widgets\n")
	for _, d := range []string{"issue-2", "issue-10", ".hidden"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "docs/specs", d), 0o755))
	}
	writeFile(t, filepath.Join(dir, "docs/specs/index.md"), "# index\n")
	r, err := OpenRepo(dir)
	require.NoError(t, err)
	ids, err := r.WorkItems()
	require.NoError(t, err)
	assert.Equal(t, []string{"issue-10", "issue-2"}, ids, "folders only, sorted, hidden ones skipped")
	assert.Equal(t, "github:acme/widgets#10", r.DefaultRef("issue-10"))
	assert.Equal(t, "", r.DefaultRef("issue-010"))
	assert.Equal(t, "", r.DefaultRef("feature-x"))
}

func TestRepositoryGraphIsIgnoredWithAWarning(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".the-loop/graph.yaml"), "nodes: []\n")
	r, err := OpenRepo(dir)
	require.NoError(t, err)
	require.Len(t, r.Warnings, 1)
	assert.Contains(t, r.Warnings[0], "cannot be overridden by a repository")
}

func TestSymlinksNeverLeadOutOfTheRepository(t *testing.T) {
	outside := t.TempDir()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "docs", "specs", "issue-1"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "docs", "specs", "issue-9")))
	r, err := OpenRepo(dir)
	require.NoError(t, err)
	assert.ErrorContains(t, r.CheckItemDir("issue-9"), "is a symbolic link")
	assert.NoError(t, r.CheckItemDir("issue-1"))
	ids, err := r.WorkItems()
	require.NoError(t, err)
	assert.Equal(t, []string{"issue-1"}, ids)
	assert.Contains(t, strings.Join(r.Warnings, "\n"), "skipping docs/specs/issue-9")

	svc := benchService(t)
	_, err = svc.Check(context.Background(), CheckRequest{Repo: dir, WorkItem: "issue-9"})
	assert.ErrorContains(t, err, "is a symbolic link")
	_, err = svc.Start(context.Background(), StartRequest{ItemRequest: ItemRequest{Repo: dir, WorkItem: "issue-9"}})
	assert.ErrorContains(t, err, "is a symbolic link")
	entries, _ := os.ReadDir(outside)
	assert.Empty(t, entries, "nothing was written through the link")

	linked := t.TempDir()
	writeFile(t, filepath.Join(linked, HarnessConfigPath), "workflow:\n  specDir: specs\n")
	require.NoError(t, os.Symlink(outside, filepath.Join(linked, "specs")))
	_, err = OpenRepo(linked)
	assert.ErrorContains(t, err, "outside the repository")
}

func TestAllowedReposConfineRequests(t *testing.T) {
	served, other := t.TempDir(), t.TempDir()
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
