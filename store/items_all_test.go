package store

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestListAllSpansRepositories: ListAll returns the items of every
// repository, sorted by repository then id; an empty store lists none.
func TestListAllSpansRepositories(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	all, err := s.ListAll(ctx)
	require.NoError(t, err)
	assert.Empty(t, all)
	for _, k := range [][2]string{{"/b", "issue-2"}, {"/a", "issue-9"}, {"/a", "issue-1"}} {
		require.NoError(t, s.Update(ctx, k[0], k[1], func(*WorkItem) (*WorkItem, []Event, error) {
			return &WorkItem{Loop: "feature", CurrentNode: "design", State: []byte(`{}`)}, nil, nil
		}))
	}
	all, err = s.ListAll(ctx)
	require.NoError(t, err)
	var got []string
	for _, it := range all {
		got = append(got, it.Repo+" "+it.ID+" "+it.CurrentNode)
	}
	assert.Equal(t, []string{"/a issue-1 design", "/a issue-9 design", "/b issue-2 design"}, got)
}
