package jira

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/the-loop/the-loop/integrations"
)

var _ integrations.IssueLister = (*Provider)(nil)

const searchFields = "summary,description,labels,status,reporter"

type searchPage struct {
	StartAt       int        `json:"startAt"`
	MaxResults    int        `json:"maxResults"`
	Total         int        `json:"total"`
	Issues        []issueDoc `json:"issues"`
	NextPageToken string     `json:"nextPageToken"`
	IsLast        bool       `json:"isLast"`
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
		clean, err := cleanLabels(op, []string{label})
		if err != nil {
			return nil, err
		}
		if strings.ContainsAny(clean[0], `"\`) {
			return nil, integrations.Invalidf(System, op, "label %q contains a quote or backslash", label)
		}
		label = clean[0]
	}
	q := url.Values{"jql": {OpenIssuesJQL(container, label)}, "fields": {searchFields}, "maxResults": {fmt.Sprint(pageSize)}}
	var out []integrations.Issue
	for page := 0; ; page++ {
		if page >= maxPages {
			return nil, integrations.Invalidf(System, op, "%s has more than %d pages of open issues; refusing a partial listing", container, maxPages)
		}
		path := "rest/api/2/search?"
		if p.auth == AuthCloud {
			path = "rest/api/2/search/jql?"
		}
		var doc searchPage
		if err := p.do(ctx, op, container, http.MethodGet, path+q.Encode(), nil, &doc); err != nil {
			return nil, err
		}
		for _, d := range doc.Issues {
			out = append(out, p.issueFrom(d))
		}
		if p.auth == AuthCloud {
			if doc.IsLast || doc.NextPageToken == "" || len(doc.Issues) == 0 {
				return out, nil
			}
			q.Set("nextPageToken", doc.NextPageToken)
			continue
		}
		next := doc.StartAt + len(doc.Issues)
		if len(doc.Issues) == 0 || next >= doc.Total {
			return out, nil
		}
		q.Set("startAt", fmt.Sprint(next))
	}
}
