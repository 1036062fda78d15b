package github

import (
	"context"

	gh "github.com/google/go-github/v62/github"

	"github.com/the-loop/the-loop/integrations"
)

var (
	_ integrations.ReviewLister        = (*Provider)(nil)
	_ integrations.ReviewCommentLister = (*Provider)(nil)
)

// ListReviews returns every review of pull request owner/repo#number,
// oldest first, following the Link header; pages are conditional.
func (p *Provider) ListReviews(ctx context.Context, owner, repo string, number int) ([]integrations.Review, error) {
	op := integrations.OpListReviews
	tgt, err := p.pullTarget(op, owner, repo, number)
	if err != nil {
		return nil, err
	}
	reviews, err := listAll(ctx, p, op, tgt, "reviews", func(ctx context.Context, page int) ([]*gh.PullRequestReview, *gh.Response, error) {
		return p.client.PullRequests.ListReviews(ctx, owner, repo, number, &gh.ListOptions{PerPage: perPage, Page: page})
	})
	if err != nil {
		return nil, err
	}
	out := make([]integrations.Review, 0, len(reviews))
	for _, r := range reviews {
		out = append(out, integrations.Review{
			ID:                r.GetID(),
			Author:            r.GetUser().GetLogin(),
			AuthorAssociation: r.GetAuthorAssociation(),
			State:             r.GetState(),
			Body:              r.GetBody(),
			URL:               r.GetHTMLURL(),
			CommitID:          r.GetCommitID(),
			SubmittedAt:       r.GetSubmittedAt().Time,
		})
	}
	return out, nil
}

// ListReviewComments returns every inline review comment of pull request
// owner/repo#number, oldest first, following the Link header; pages are
// conditional.
func (p *Provider) ListReviewComments(ctx context.Context, owner, repo string, number int) ([]integrations.ReviewComment, error) {
	op := integrations.OpListReviewComments
	tgt, err := p.pullTarget(op, owner, repo, number)
	if err != nil {
		return nil, err
	}
	opts := &gh.PullRequestListCommentsOptions{Sort: "created", Direction: "asc", ListOptions: gh.ListOptions{PerPage: perPage}}
	comments, err := listAll(ctx, p, op, tgt, "review comments", func(ctx context.Context, page int) ([]*gh.PullRequestComment, *gh.Response, error) {
		opts.Page = page
		return p.client.PullRequests.ListComments(ctx, owner, repo, number, opts)
	})
	if err != nil {
		return nil, err
	}
	out := make([]integrations.ReviewComment, 0, len(comments))
	for _, c := range comments {
		line := c.GetLine()
		if c.Line == nil {
			line = c.GetOriginalLine()
		}
		out = append(out, integrations.ReviewComment{
			ID:                c.GetID(),
			ReviewID:          c.GetPullRequestReviewID(),
			InReplyTo:         c.GetInReplyTo(),
			Author:            c.GetUser().GetLogin(),
			AuthorAssociation: c.GetAuthorAssociation(),
			Body:              c.GetBody(),
			Path:              c.GetPath(),
			Line:              line,
			CommitID:          c.GetCommitID(),
			URL:               c.GetHTMLURL(),
			CreatedAt:         c.GetCreatedAt().Time,
			UpdatedAt:         c.GetUpdatedAt().Time,
		})
	}
	return out, nil
}
