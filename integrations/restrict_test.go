package integrations

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commenter implements ListComments, CreateComment and IssueLister only.
type commenter struct {
	Provider
	reached []Op
}

func (c *commenter) Name() string { return "commenter" }
func (c *commenter) Operations() []Op {
	return []Op{OpListComments, OpCreateComment, OpListOpenIssues}
}
func (c *commenter) ListComments(context.Context, Ref) ([]Comment, error) {
	c.reached = append(c.reached, OpListComments)
	return []Comment{{ID: 1}}, nil
}
func (c *commenter) CreateComment(context.Context, Ref, string) (Comment, error) {
	c.reached = append(c.reached, OpCreateComment)
	return Comment{ID: 2}, nil
}
func (c *commenter) ListOpenIssues(context.Context, string, string) ([]Issue, error) {
	c.reached = append(c.reached, OpListOpenIssues)
	return []Issue{{Number: 3}}, nil
}

func TestRestrictedPassesOnlyTheAllowedOperations(t *testing.T) {
	p := &commenter{}
	r := Restrict(p, "hook h", []Op{OpListComments, OpListOpenIssues, OpReadChecks})
	ctx := context.Background()

	cs, err := r.ListComments(ctx, Ref{})
	require.NoError(t, err)
	assert.Equal(t, []Comment{{ID: 1}}, cs)
	issues, err := r.ListOpenIssues(ctx, "o/r", "")
	require.NoError(t, err)
	assert.Equal(t, []Issue{{Number: 3}}, issues)

	_, err = r.CreateComment(ctx, Ref{}, "hi")
	require.ErrorIs(t, err, ErrUndeclared)
	assert.EqualError(t, err, "hook h called create-comment, which it does not declare: operation not declared")
	_, err = r.CreateComment(ctx, Ref{}, "again")
	require.ErrorIs(t, err, ErrUndeclared)

	_, err = r.ReadChecks(ctx, "o", "r", "sha")
	assert.ErrorIs(t, err, ErrUnsupported, "an allowed operation the provider lacks is unsupported, not undeclared")

	assert.Equal(t, []Op{OpListComments, OpListOpenIssues}, p.reached, "nothing undeclared reached the provider")
	assert.Equal(t, []Op{OpListComments, OpListOpenIssues, OpCreateComment, OpReadChecks}, r.Calls())
	assert.Equal(t, []Op{OpCreateComment}, r.Undeclared())
	assert.Equal(t, []Op{OpListComments, OpListOpenIssues}, r.Operations(), "it reports only what is both implemented and allowed")
	assert.True(t, Supports(r, OpListComments))
	assert.False(t, Supports(r, OpCreateComment))
}

func TestRestrictingNoProviderIsNone(t *testing.T) {
	assert.Nil(t, Restrict(nil, "hook h", []Op{OpListComments}))
}

func TestRestrictedRefusesEveryUndeclaredOperation(t *testing.T) {
	r := Restrict(&commenter{}, "hook h", nil)
	ctx := context.Background()
	calls := map[Op]func() error{
		OpGetIssue:             func() error { _, err := r.GetIssue(ctx, Ref{}); return err },
		OpCreateIssue:          func() error { _, err := r.CreateIssue(ctx, NewIssue{}); return err },
		OpEditIssue:            func() error { return r.EditIssueBody(ctx, Ref{}, "b") },
		OpEditComment:          func() error { _, err := r.EditComment(ctx, Ref{}, 1, "b"); return err },
		OpAddLabels:            func() error { return r.AddLabels(ctx, Ref{}, []string{"x"}) },
		OpRemoveLabel:          func() error { return r.RemoveLabel(ctx, Ref{}, "x") },
		OpAddReaction:          func() error { return r.AddReaction(ctx, Ref{}, 1, "eyes") },
		OpCreateBranch:         func() error { return r.CreateBranch(ctx, "o", "r", "b", "sha") },
		OpCreatePullRequest:    func() error { _, err := r.CreatePullRequest(ctx, NewPullRequest{}); return err },
		OpGetPullRequest:       func() error { _, err := r.GetPullRequest(ctx, "o", "r", 1); return err },
		OpReadFile:             func() error { _, err := r.ReadFile(ctx, "o", "r", "p", ""); return err },
		OpListProjects:         func() error { _, err := r.ListProjects(ctx); return err },
		OpEnsureLabels:         func() error { return r.EnsureLabels(ctx, "o", "r", nil) },
		OpLinkPullRequest:      func() error { return r.LinkPullRequest(ctx, Ref{}, "o", "r", 1) },
		OpOpenPullRequest:      func() error { _, _, err := r.OpenPullRequest(ctx, NewPullRequest{}); return err },
		OpListPullRequests:     func() error { _, err := r.ListPullRequests(ctx, PullRequestQuery{}); return err },
		OpListPullRequestFiles: func() error { _, err := r.ListPullRequestFiles(ctx, "o", "r", 1); return err },
		OpListReviews:          func() error { _, err := r.ListReviews(ctx, "o", "r", 1); return err },
		OpListReviewComments:   func() error { _, err := r.ListReviewComments(ctx, "o", "r", 1); return err },
		OpReadChecks:           func() error { _, err := r.ReadChecks(ctx, "o", "r", "sha"); return err },
		OpListReviewThreads:    func() error { _, err := r.ListReviewThreads(ctx, "o", "r", 1); return err },
		OpReadCheckDetails:     func() error { _, err := r.ReadCheckDetails(ctx, "o", "r", Check{}); return err },
		OpLinkTicket:           func() error { return r.LinkTicket(ctx, Ref{}, PullRequest{}) },
		OpReadRelations:        func() error { _, err := r.ReadRelations(ctx, Ref{}); return err },
	}
	for op, call := range calls {
		err := call()
		assert.True(t, errors.Is(err, ErrUndeclared), "%s: %v", op, err)
		assert.Contains(t, err.Error(), string(op))
	}
	assert.Len(t, r.Undeclared(), len(calls))
}
