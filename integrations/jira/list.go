package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/the-loop/the-loop/integrations"
)

var _ integrations.IssueLister = (*Provider)(nil)

const searchFields = "summary,description,labels,status,reporter"

type searchPage struct {
	StartAt       int               `json:"startAt"`
	MaxResults    int               `json:"maxResults"`
	Total         int               `json:"total"`
	Issues        []json.RawMessage `json:"issues"`
	NextPageToken string            `json:"nextPageToken"`
	IsLast        bool              `json:"isLast"`
}

// OpenIssuesJQL is the query ListOpenIssues runs for project and label.
func OpenIssuesJQL(project, label string) string {
	jql := fmt.Sprintf(`project = "%s" AND statusCategory != Done`, project)
	if label != "" {
		jql += fmt.Sprintf(` AND labels = "%s"`, label)
	}
	return jql + " ORDER BY created DESC"
}

// ListOpenIssues returns the issues of project container that are not done,
// newest first, carrying label when it is non-empty. Cloud pages with
// /rest/api/2/search/jql (nextPageToken); Data Center with /rest/api/2/search
// (startAt/total).
func (p *Provider) ListOpenIssues(ctx context.Context, container, label string) ([]integrations.Issue, error) {
	op := integrations.OpListOpenIssues
	if err := ValidateProjectKey(container); err != nil {
		return nil, integrations.Invalidf(System, op, "%v (polling.sources[].projects)", err)
	}
	if label != "" {
		clean, err := limits.CleanLabels(op, []string{label})
		if err != nil {
			return nil, err
		}
		if strings.ContainsAny(clean[0], `"\`) {
			return nil, integrations.Invalidf(System, op, "label %q contains a quote or backslash", label)
		}
		label = clean[0]
	}
	var out []integrations.Issue
	err := p.search(ctx, op, container, OpenIssuesJQL(container, label), searchFields, func(raw json.RawMessage) error {
		var d issueDoc
		if err := json.Unmarshal(raw, &d); err != nil {
			return err
		}
		out = append(out, p.issueFrom(d))
		return nil
	})
	return out, err
}

// search runs jql across every page, handing each hit to visit. Cloud pages
// with /rest/api/2/search/jql (nextPageToken); Data Center with
// /rest/api/2/search (startAt/total). More than maxPages is an error, never
// a partial result.
func (p *Provider) search(ctx context.Context, op integrations.Op, tgt, jql, fields string, visit func(json.RawMessage) error) error {
	q := url.Values{"jql": {jql}, "fields": {fields}, "maxResults": {fmt.Sprint(pageSize)}}
	for page := 0; ; page++ {
		if page >= maxPages {
			return integrations.Invalidf(System, op, "%s: more than %d pages of search results; refusing a partial listing", tgt, maxPages)
		}
		path := "rest/api/2/search?"
		if p.auth == AuthCloud {
			path = "rest/api/2/search/jql?"
		}
		var doc searchPage
		if err := p.do(ctx, op, tgt, http.MethodGet, path+q.Encode(), nil, &doc); err != nil {
			return err
		}
		for _, raw := range doc.Issues {
			if err := visit(raw); err != nil {
				return &integrations.APIError{System: System, Op: op, Target: tgt, Kind: integrations.ErrMalformed, Message: "unreadable search result: " + err.Error()}
			}
		}
		if p.auth == AuthCloud {
			if doc.IsLast || doc.NextPageToken == "" || len(doc.Issues) == 0 {
				return nil
			}
			q.Set("nextPageToken", doc.NextPageToken)
			continue
		}
		next := doc.StartAt + len(doc.Issues)
		if len(doc.Issues) == 0 || next >= doc.Total {
			return nil
		}
		q.Set("startAt", fmt.Sprint(next))
	}
}
