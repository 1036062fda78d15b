package github

import (
	"context"

	gh "github.com/google/go-github/v62/github"

	"github.com/the-loop/the-loop/integrations"
)

// maxCommentLen is GitHub's limit on a comment body.
const maxCommentLen = 65536

// perPage is the page size asked for when listing.
const perPage = 100

// maxPages bounds a listing; a longer one is an error, never a silently
// partial result.
const maxPages = 100

// ListComments returns every conversation comment of the issue, oldest
// first, following the Link header across pages. Pages are requested
// conditionally, so an unchanged page costs no quota.
func (p *Provider) ListComments(ctx context.Context, ref integrations.Ref) ([]integrations.Comment, error) {
	op := integrations.OpListComments
	if err := p.checkRef(op, ref); err != nil {
		return nil, err
	}
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: perPage}}
	var out []integrations.Comment
	for page := 0; ; page++ {
		if page >= maxPages {
			return nil, integrations.Invalidf(System, op, "%s has more than %d pages of comments; refusing a partial listing", target(ref), maxPages)
		}
		var batch []*gh.IssueComment
		var resp *gh.Response
		err := p.call(ctx, op, target(ref), func(ctx context.Context) (err error) {
			batch, resp, err = p.client.Issues.ListComments(ctx, ref.Owner, ref.Repo, ref.Number, opts)
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, c := range batch {
			out = append(out, commentFrom(c))
		}
		if resp == nil || resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

func commentFrom(c *gh.IssueComment) integrations.Comment {
	return integrations.Comment{
		ID:                c.GetID(),
		Author:            c.GetUser().GetLogin(),
		AuthorAssociation: c.GetAuthorAssociation(),
		Body:              c.GetBody(),
		URL:               c.GetHTMLURL(),
		CreatedAt:         c.GetCreatedAt().Time,
		UpdatedAt:         c.GetUpdatedAt().Time,
	}
}

// CreateComment posts body, marked as the loop's own (the marker is added
// here, once, for every comment the loop posts).
func (p *Provider) CreateComment(ctx context.Context, ref integrations.Ref, body string) (integrations.Comment, error) {
	op := integrations.OpCreateComment
	if err := p.checkRef(op, ref); err != nil {
		return integrations.Comment{}, err
	}
	marked, err := limits.MarkedBody(op, body)
	if err != nil {
		return integrations.Comment{}, err
	}
	var c *gh.IssueComment
	err = p.call(ctx, op, target(ref), func(ctx context.Context) (err error) {
		c, _, err = p.client.Issues.CreateComment(ctx, ref.Owner, ref.Repo, ref.Number, &gh.IssueComment{Body: gh.String(marked)})
		return err
	})
	if err != nil {
		return integrations.Comment{}, err
	}
	return commentFrom(c), nil
}

// EditComment replaces the body of comment id (marked as the loop's own).
func (p *Provider) EditComment(ctx context.Context, ref integrations.Ref, id int64, body string) (integrations.Comment, error) {
	op := integrations.OpEditComment
	if err := p.checkRef(op, ref); err != nil {
		return integrations.Comment{}, err
	}
	marked, err := limits.EditedBody(op, id, body)
	if err != nil {
		return integrations.Comment{}, err
	}
	var c *gh.IssueComment
	err = p.call(ctx, op, target(ref), func(ctx context.Context) (err error) {
		c, _, err = p.client.Issues.EditComment(ctx, ref.Owner, ref.Repo, id, &gh.IssueComment{Body: gh.String(marked)})
		return err
	})
	if err != nil {
		return integrations.Comment{}, err
	}
	return commentFrom(c), nil
}
