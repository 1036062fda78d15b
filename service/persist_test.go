package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/repoconfig"
	"github.com/the-loop/the-loop/store"
)

func openTestStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

func TestPersisterWritesStoreAndPortableRecord(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	repo, err := repoconfig.Open(dir)
	require.NoError(t, err)
	p := &persister{st: openTestStore(t), repo: repo}
	require.NoError(t, p.Update(ctx, "issue-1", func(s *runtime.State) ([]runtime.EventRecord, error) {
		s.CurrentNode = "design"
		s.Record("design").Attempts = 2
		return []runtime.EventRecord{{Name: "graph.advanced", Node: "design"}}, nil
	}))
	got, warns, err := p.Load(ctx, "issue-1")
	require.NoError(t, err)
	assert.Empty(t, warns)
	assert.Equal(t, "design", got.CurrentNode)
	portable, path, err := readPortable(repo.SpecDir("issue-1"), "issue-1")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(repo.SpecDir("issue-1"), runtime.StateFile), path)
	assert.Equal(t, 2, portable.Nodes["design"].Attempts)
	evs, err := p.Events(ctx, "issue-1")
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, "graph.advanced", evs[0].Name)
}

func TestDeletedPortableRecordIsRebuiltFromTheStoreOnSave(t *testing.T) {
	ctx := context.Background()
	repo, err := repoconfig.Open(t.TempDir())
	require.NoError(t, err)
	p := &persister{st: openTestStore(t), repo: repo}
	bump := func(s *runtime.State) ([]runtime.EventRecord, error) { s.CurrentNode = "design"; return nil, nil }
	require.NoError(t, p.Update(ctx, "issue-1", bump))
	require.NoError(t, os.Remove(filepath.Join(repo.SpecDir("issue-1"), runtime.StateFile)))
	require.NoError(t, p.Update(ctx, "issue-1", bump))
	_, err = os.Stat(filepath.Join(repo.SpecDir("issue-1"), runtime.StateFile))
	assert.NoError(t, err)
}

func TestCorruptPortableRecordIsKeptAndReported(t *testing.T) {
	ctx := context.Background()
	repo, err := repoconfig.Open(t.TempDir())
	require.NoError(t, err)
	path := filepath.Join(repo.SpecDir("issue-1"), runtime.LegacyStateFile)
	writeFile(t, path, "{not json")
	p := &persister{repo: repo}
	st, warns, err := p.Load(ctx, "issue-1")
	require.NoError(t, err)
	assert.Equal(t, "", st.CurrentNode, "state is reconstructed from scratch")
	require.Len(t, warns, 1)
	assert.Contains(t, warns[0], "corrupt")
	body, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "{not json", string(body), "the corrupt file is kept, never overwritten")
	require.Error(t, p.Update(ctx, "issue-1", func(*runtime.State) ([]runtime.EventRecord, error) { return nil, nil }),
		"a read-only persister refuses to save")
}

// A pointer hand-written into the portable record, with no row in the store,
// is not where the walk resumes: it falls back to the first unsatisfied node.
func TestAnAdoptedPointerNeverSkipsAhead(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "docs/specs/issue-8/work-item-state.json"),
		`{"version": 1, "workItem": "issue-8", "loop": "pdlc-work-item-loop", "currentNode": "tasks-breakdown"}`)
	svc := benchService(t)
	env, err := svc.Complete(context.Background(), CompleteRequest{ItemRequest: ItemRequest{Repo: dir, WorkItem: "issue-8"}, Node: "tasks-breakdown"})
	require.NoError(t, err)
	assert.Equal(t, "refused", env.Status)
	assert.Equal(t, "not-current", env.Reason)
	assert.Equal(t, "phase-selection", env.CurrentNode, "the walk resumes at the first unsatisfied node")
}
