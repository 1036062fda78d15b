package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	gh "github.com/google/go-github/v62/github"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/httpx"
)

var _ integrations.ReviewThreadLister = (*Provider)(nil)

// reviewThreadsQuery is the provider's one GraphQL query. Whether a review
// thread is resolved exists only in GitHub's GraphQL API, and go-github
// speaks REST. This query is hand-written and sent through the same
// retrying transport as every REST call (rate limits, 5xx backoff, the
// token redactor) rather than through a GraphQL client library: one fixed
// query with one response type does not earn a second dependency, a second
// HTTP stack to configure, or a second error mapping, and the failure modes
// GitHub documents for GraphQL (HTTP 200 with errors, partial data,
// RATE_LIMITED) need handling of our own either way.
const reviewThreadsQuery = `query($owner: String!, $name: String!, $number: Int!, $first: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: $first, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          id isResolved isOutdated path line originalLine
          comments(first: 30) { nodes { databaseId url body createdAt author { login } } }
        }
      }
    }
  }
}`

// maxGraphQLBody bounds one GraphQL answer.
const maxGraphQLBody = 16 << 20

type threadsPage struct {
	Repository *struct {
		PullRequest *struct {
			ReviewThreads struct {
				TotalCount int `json:"totalCount"`
				PageInfo   struct {
					HasNextPage bool   `json:"hasNextPage"`
					EndCursor   string `json:"endCursor"`
				} `json:"pageInfo"`
				Nodes []struct {
					ID           string `json:"id"`
					IsResolved   bool   `json:"isResolved"`
					IsOutdated   bool   `json:"isOutdated"`
					Path         string `json:"path"`
					Line         *int   `json:"line"`
					OriginalLine *int   `json:"originalLine"`
					Comments     struct {
						Nodes []struct {
							DatabaseID int64     `json:"databaseId"`
							URL        string    `json:"url"`
							Body       string    `json:"body"`
							CreatedAt  time.Time `json:"createdAt"`
							Author     *struct {
								Login string `json:"login"`
							} `json:"author"`
						} `json:"nodes"`
					} `json:"comments"`
				} `json:"nodes"`
			} `json:"reviewThreads"`
		} `json:"pullRequest"`
	} `json:"repository"`
}

// ListReviewThreads returns every review thread of pull request
// owner/repo#number with whether it is resolved, following the GraphQL
// cursor page by page. Any error in an answer fails the whole listing: a
// partial answer is never read as the complete one.
func (p *Provider) ListReviewThreads(ctx context.Context, owner, repo string, number int) ([]integrations.ReviewThread, error) {
	op := integrations.OpListReviewThreads
	tgt, err := p.pullTarget(op, owner, repo, number)
	if err != nil {
		return nil, err
	}
	var out []integrations.ReviewThread
	var after *string
	for page := 0; ; page++ {
		if page >= maxPages {
			return nil, integrations.Invalidf(System, op, "%s has more than %d pages of review threads; refusing a partial listing", tgt, maxPages)
		}
		vars := map[string]any{"owner": owner, "name": repo, "number": number, "first": perPage, "after": after}
		var doc threadsPage
		if err := p.graphQL(ctx, op, tgt, reviewThreadsQuery, vars, &doc); err != nil {
			return nil, err
		}
		if doc.Repository == nil || doc.Repository.PullRequest == nil {
			return nil, &integrations.APIError{System: System, Op: op, Target: tgt, Status: http.StatusOK, Kind: integrations.ErrNotFound, Message: "GitHub returned no pull request"}
		}
		conn := doc.Repository.PullRequest.ReviewThreads
		for _, n := range conn.Nodes {
			t := integrations.ReviewThread{ID: n.ID, Resolved: n.IsResolved, Outdated: n.IsOutdated, Path: n.Path}
			switch {
			case n.Line != nil:
				t.Line = *n.Line
			case n.OriginalLine != nil:
				t.Line = *n.OriginalLine
			}
			for i, c := range n.Comments.Nodes {
				tc := integrations.ThreadComment{ID: c.DatabaseID, URL: c.URL, Body: c.Body, CreatedAt: c.CreatedAt}
				if c.Author != nil {
					tc.Author = c.Author.Login
				}
				if i == 0 {
					t.URL, t.Author = tc.URL, tc.Author
				}
				t.Comments = append(t.Comments, tc)
			}
			out = append(out, t)
		}
		if !conn.PageInfo.HasNextPage {
			return out, nil
		}
		if conn.PageInfo.EndCursor == "" {
			return nil, &integrations.APIError{System: System, Op: op, Target: tgt, Status: http.StatusOK, Kind: integrations.ErrMalformed, Message: "GitHub said more review threads follow but gave no cursor"}
		}
		cursor := conn.PageInfo.EndCursor
		after = &cursor
	}
}

// graphqlEndpoint is the GraphQL URL beside a REST root: GitHub Enterprise
// Server serves REST under /api/v3/ and GraphQL at /api/graphql; github.com
// serves both from api.github.com.
func graphqlEndpoint(rest *url.URL) string {
	u := *rest
	if strings.HasSuffix(u.Path, "/api/v3/") {
		u.Path = strings.TrimSuffix(u.Path, "v3/") + "graphql"
	} else {
		u.Path += "graphql"
	}
	return u.String()
}

type gqlError struct {
	Type       string `json:"type"`
	Message    string `json:"message"`
	Path       []any  `json:"path"`
	Extensions struct {
		Code string `json:"code"`
	} `json:"extensions"`
}

// graphQL posts one query and decodes its data into out. The POST is marked
// retry-safe (a query only reads), so 5xx storms are retried like a GET;
// rate limits are honoured by the transport, and an HTTP 200 carrying a
// RATE_LIMITED error waits once for the reset when it is within MaxWait.
func (p *Provider) graphQL(ctx context.Context, op integrations.Op, tgt, query string, vars map[string]any, out any) error {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return fmt.Errorf("github %s %s: encode query: %w", op, tgt, err)
	}
	err = p.graphQLOnce(ctx, op, tgt, body, out)
	var api *integrations.APIError
	if errors.As(err, &api) && api.Kind == integrations.ErrRateLimited && !api.RetryAt.IsZero() {
		if wait := api.RetryAt.Sub(p.now()) + time.Second; wait <= p.maxWait {
			if serr := p.sleep(ctx, max(wait, time.Second)); serr != nil {
				return p.wrap(op, tgt, serr)
			}
			err = p.graphQLOnce(ctx, op, tgt, body, out)
		}
	}
	return p.wrap(op, tgt, err)
}

func (p *Provider) graphQLOnce(ctx context.Context, op integrations.Op, tgt string, body []byte, out any) error {
	ans, err := p.graphQLPost(ctx, op, tgt, body)
	if err != nil {
		return err
	}
	if len(ans.errs) > 0 {
		return p.graphQLError(op, tgt, ans.resp, ans.errs)
	}
	return ans.decode(p, op, tgt, out)
}

// gqlAnswer is one GraphQL answer as sent: data (maybe partial) and errors.
type gqlAnswer struct {
	data json.RawMessage
	errs []gqlError
	resp *http.Response
}

// decode reads the answer's data into out; an answer without data is
// malformed.
func (a gqlAnswer) decode(p *Provider, op integrations.Op, tgt string, out any) error {
	if len(a.data) == 0 || string(a.data) == "null" {
		return &integrations.APIError{System: System, Op: op, Target: tgt, Status: a.resp.StatusCode, Kind: integrations.ErrMalformed, Message: "GraphQL answer without data"}
	}
	if err := json.Unmarshal(a.data, out); err != nil {
		return &integrations.APIError{System: System, Op: op, Target: tgt, Status: a.resp.StatusCode, Kind: integrations.ErrMalformed, Message: "unexpected GraphQL data: " + p.redact.String(err.Error())}
	}
	return nil
}

// graphQLPost posts one query through the provider's transport. An error
// is a failed exchange (HTTP status, transport, unreadable body); the
// errors of an HTTP 200 answer come back in the answer.
func (p *Provider) graphQLPost(ctx context.Context, op integrations.Op, tgt string, body []byte) (gqlAnswer, error) {
	req, err := http.NewRequestWithContext(httpx.RetrySafe(ctx), http.MethodPost, graphqlEndpoint(p.client.BaseURL), bytes.NewReader(body))
	if err != nil {
		return gqlAnswer{}, fmt.Errorf("github %s %s: build request: %w", op, tgt, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", p.client.UserAgent)
	resp, err := p.client.Client().Do(req)
	if err != nil {
		return gqlAnswer{}, err
	}
	defer resp.Body.Close()
	if err := gh.CheckResponse(resp); err != nil {
		return gqlAnswer{}, err
	}
	var env struct {
		Data   json.RawMessage `json:"data"`
		Errors []gqlError      `json:"errors"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxGraphQLBody)).Decode(&env); err != nil {
		return gqlAnswer{}, &integrations.APIError{System: System, Op: op, Target: tgt, Status: resp.StatusCode, Kind: integrations.ErrMalformed, Message: "unreadable GraphQL answer: " + p.redact.String(err.Error())}
	}
	return gqlAnswer{data: env.Data, errs: env.Errors, resp: resp}, nil
}

// graphQLError maps the errors of an HTTP 200 GraphQL answer by their type:
// NOT_FOUND, FORBIDDEN, RATE_LIMITED (with the reset time), and anything
// else as unavailable.
func (p *Provider) graphQLError(op integrations.Op, tgt string, resp *http.Response, errs []gqlError) error {
	out := &integrations.APIError{System: System, Op: op, Target: tgt, Status: resp.StatusCode, Kind: integrations.ErrUnavailable}
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		msgs = append(msgs, e.Message)
	}
	out.Message = p.redact.String(strings.Join(msgs, "; "))
	switch errs[0].Type {
	case "NOT_FOUND":
		out.Kind = integrations.ErrNotFound
	case "FORBIDDEN":
		out.Kind = integrations.ErrForbidden
	case "RATE_LIMITED":
		out.Kind = integrations.ErrRateLimited
		if at, ok := httpx.ResetTime(resp.Header, p.now()); ok {
			out.RetryAt = at
		}
	}
	return out
}
