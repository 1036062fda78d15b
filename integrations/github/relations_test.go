package github_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/github"
	"github.com/the-loop/the-loop/integrations/providertest"
)

func TestStateOf(t *testing.T) {
	tests := []struct {
		state, reason string
		want          integrations.ItemState
	}{
		{"open", "", integrations.StateOpen},
		{"open", "reopened", integrations.StateOpen},
		{"closed", "completed", integrations.StateDone},
		{"closed", "", integrations.StateDone},
		{"closed", "not_planned", integrations.StateNotDone},
		{"closed", "duplicate", integrations.StateNotDone},
		{"closed", "some_future_reason", integrations.StateNotDone},
		{"", "", integrations.StateUnknown},
	}
	for _, tt := range tests {
		got, _ := github.StateOf(tt.state, tt.reason)
		assert.Equal(t, tt.want, got, "%s/%s", tt.state, tt.reason)
	}
}

func TestReadRelationsAcrossRepositories(t *testing.T) {
	f := providertest.NewGitHub(t)
	p := newFromFake(t, f, providertest.Env{Token: f.Token()})
	other := f.SeedIssueIn("octo/gadgets", "Elsewhere")
	f.AddSubIssue(f.Ticket(), other)
	f.AddBlocker(f.Ticket(), other)
	got, err := p.ReadRelations(context.Background(), f.Ticket())
	require.NoError(t, err)
	require.Len(t, got.Children, 1)
	assert.Equal(t, []any{"octo", "gadgets", other.Number}, []any{got.Children[0].Ref.Owner, got.Children[0].Ref.Repo, got.Children[0].Ref.Number})
	assert.Equal(t, "sub-issue", got.Children[0].Via)
	require.Len(t, got.BlockedBy, 1)
	assert.Equal(t, "gadgets", got.BlockedBy[0].Ref.Repo)
	assert.Equal(t, "dependency", got.BlockedBy[0].Via)
}

func TestReadRelationsListingsAreConditional(t *testing.T) {
	f := providertest.NewGitHub(t)
	p := newFromFake(t, f, providertest.Env{Token: f.Token()})
	child := f.SeedIssue("Child", nil, true)
	f.AddSubIssue(f.Ticket(), child)
	_, err := p.ReadRelations(context.Background(), f.Ticket())
	require.NoError(t, err)
	quota := f.QuotaRemaining()
	again, err := p.ReadRelations(context.Background(), f.Ticket())
	require.NoError(t, err)
	assert.Len(t, again.Children, 1, "the cached page still answers")
	assert.Equal(t, int64(4), p.Stats().NotModified, "the issue, its sub-issues, blocked-by and blocking are answered by 304")
	assert.Equal(t, quota, f.QuotaRemaining(), "an unchanged re-read costs no quota")
	for _, r := range f.Requests() {
		assert.NotContains(t, r.Path, "/parent", "an issue whose parent_issue_url is null has no parent to ask for")
	}

	// A sub-issue's parent is read, and re-read conditionally.
	got, err := p.ReadRelations(context.Background(), child)
	require.NoError(t, err)
	require.NotNil(t, got.Parent)
	assert.Equal(t, f.Ticket().Number, got.Parent.Ref.Number)
	quota = f.QuotaRemaining()
	got, err = p.ReadRelations(context.Background(), child)
	require.NoError(t, err)
	require.NotNil(t, got.Parent)
	assert.Equal(t, quota, f.QuotaRemaining(), "the parent is answered by 304 too")
}

func TestReadRelationsRefusesForeignRefs(t *testing.T) {
	f := providertest.NewGitHub(t)
	p := newFromFake(t, f, providertest.Env{Token: f.Token()})
	_, err := p.ReadRelations(context.Background(), integrations.Ref{System: "jira", Key: "PROJ-1"})
	assert.ErrorIs(t, err, integrations.ErrInvalid)
	assert.Zero(t, f.RequestCount())
}
