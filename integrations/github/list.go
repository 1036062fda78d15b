package github

import (
	"context"

	gh "github.com/google/go-github/v62/github"

	"github.com/the-loop/the-loop/integrations"
)

var _ integrations.IssueLister = (*Provider)(nil)

// ListOpenIssues returns the open issues of container (OWNER/REPO), newest
// first, carrying label when it is non-empty. The open pull requests
// GitHub's listing holds come too, marked Pull, with their comment counts.
// Pages are requested conditionally, so an unchanged listing costs no quota.
func (p *Provider) ListOpenIssues(ctx context.Context, container, label string) ([]integrations.Issue, error) {
	op := integrations.OpListOpenIssues
	owner, repo, err := ParseRepo(container)
	if err != nil {
		return nil, integrations.Invalidf(System, op, "%v (polling.sources[].repos)", err)
	}
	opts := &gh.IssueListByRepoOptions{State: "open", Sort: "created", Direction: "desc", ListOptions: gh.ListOptions{PerPage: perPage}}
	if label != "" {
		clean, err := limits.CleanLabels(op, []string{label})
		if err != nil {
			return nil, err
		}
		opts.Labels = clean
	}
	base := integrations.Ref{System: System, Host: p.host, Owner: owner, Repo: repo}
	var out []integrations.Issue
	for page := 0; ; page++ {
		if page >= maxPages {
			return nil, integrations.Invalidf(System, op, "%s has more than %d pages of open issues; refusing a partial listing", container, maxPages)
		}
		var batch []*gh.Issue
		var resp *gh.Response
		err := p.call(ctx, op, container, func(ctx context.Context) (err error) {
			batch, resp, err = p.client.Issues.ListByRepo(ctx, owner, repo, opts)
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, is := range batch {
			out = append(out, p.issueFrom(base, is))
		}
		if resp == nil || resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}
