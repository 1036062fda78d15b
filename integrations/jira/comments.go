package jira

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	jira "github.com/andygrunwald/go-jira"

	"github.com/the-loop/the-loop/integrations"
)

// pageSize is the maxResults asked for; the server may return fewer.
const pageSize = 100

// maxPages bounds a listing; a longer one is an error, never a partial result.
const maxPages = 100

// maxCommentLen is Jira's default limit on a comment body.
const maxCommentLen = 32767

// timeLayout is how Jira REST v2 writes timestamps.
const timeLayout = "2006-01-02T15:04:05.000-0700"

type commentPage struct {
	StartAt    int             `json:"startAt"`
	MaxResults int             `json:"maxResults"`
	Total      int             `json:"total"`
	Comments   []*jira.Comment `json:"comments"`
}

// ListComments returns every comment of the issue, oldest first, paging with
// startAt/maxResults until total is reached.
func (p *Provider) ListComments(ctx context.Context, ref integrations.Ref) ([]integrations.Comment, error) {
	op := integrations.OpListComments
	if err := p.checkRef(op, ref); err != nil {
		return nil, err
	}
	var out []integrations.Comment
	startAt := 0
	for page := 0; ; page++ {
		if page >= maxPages {
			return nil, integrations.Invalidf(System, op, "%s has more than %d pages of comments; refusing a partial listing", ref.Key, maxPages)
		}
		var doc commentPage
		path := fmt.Sprintf("rest/api/2/issue/%s/comment?startAt=%d&maxResults=%d", ref.Key, startAt, pageSize)
		if err := p.do(ctx, op, ref.Key, http.MethodGet, path, nil, &doc); err != nil {
			return nil, err
		}
		for _, c := range doc.Comments {
			out = append(out, p.commentFrom(ref.Key, c))
		}
		startAt += len(doc.Comments)
		if len(doc.Comments) == 0 || startAt >= doc.Total {
			return out, nil
		}
	}
}

func (p *Provider) commentFrom(key string, c *jira.Comment) integrations.Comment {
	id, _ := strconv.ParseInt(c.ID, 10, 64)
	created, _ := time.Parse(timeLayout, c.Created)
	updated, _ := time.Parse(timeLayout, c.Updated)
	return integrations.Comment{
		ID:        id,
		Author:    login(&c.Author),
		Body:      c.Body,
		URL:       fmt.Sprintf("%s?focusedCommentId=%s", p.BrowseURL(key), c.ID),
		CreatedAt: created,
		UpdatedAt: updated,
	}
}

// CreateComment posts body, marked as the loop's own.
func (p *Provider) CreateComment(ctx context.Context, ref integrations.Ref, body string) (integrations.Comment, error) {
	op := integrations.OpCreateComment
	if err := p.checkRef(op, ref); err != nil {
		return integrations.Comment{}, err
	}
	marked, err := limits.MarkedBody(op, body)
	if err != nil {
		return integrations.Comment{}, err
	}
	var c jira.Comment
	path := "rest/api/2/issue/" + ref.Key + "/comment"
	if err := p.do(ctx, op, ref.Key, http.MethodPost, path, map[string]string{"body": marked}, &c); err != nil {
		return integrations.Comment{}, err
	}
	return p.commentFrom(ref.Key, &c), nil
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
	var c jira.Comment
	path := fmt.Sprintf("rest/api/2/issue/%s/comment/%d", ref.Key, id)
	if err := p.do(ctx, op, ref.Key, http.MethodPut, path, map[string]string{"body": marked}, &c); err != nil {
		return integrations.Comment{}, err
	}
	return p.commentFrom(ref.Key, &c), nil
}
