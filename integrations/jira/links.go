package jira

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	jira "github.com/andygrunwald/go-jira"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/httpx"
)

var _ integrations.TicketLinker = (*Provider)(nil)

// remoteLinkPrefix starts the globalId of every pull request link the loop
// records; the rest is the pull request's URL.
const remoteLinkPrefix = "the-loop:pull-request:"

// maxGlobalID is Jira's limit on a remote link's globalId.
const maxGlobalID = 255

// LinkTicket records pr on the Jira issue as a remote link ("links to" in
// the web links), not as a comment: a link does not notify the
// issue's watchers, is never read back as a human's words, and Jira keys it
// by globalId, so posting it again — a retry, a rename, the pull request
// closing — updates the one link instead of adding another. That also makes
// the POST safe to resend after a 5xx.
func (p *Provider) LinkTicket(ctx context.Context, ticket integrations.Ref, pr integrations.PullRequest) error {
	op := integrations.OpLinkTicket
	if err := p.checkRef(op, ticket); err != nil {
		return err
	}
	u, err := url.Parse(pr.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || pr.Number <= 0 {
		return integrations.Invalidf(System, op, "pull request %q #%d has no web URL to link", pr.URL, pr.Number)
	}
	globalID := remoteLinkPrefix + pr.URL
	if len(globalID) > maxGlobalID {
		return integrations.Invalidf(System, op, "pull request URL %q is longer than a Jira link key allows (%d characters)", pr.URL, maxGlobalID-len(remoteLinkPrefix))
	}
	title := fmt.Sprintf("Pull request #%d", pr.Number)
	if pr.Owner != "" && pr.Repo != "" {
		title = fmt.Sprintf("Pull request %s/%s#%d", pr.Owner, pr.Repo, pr.Number)
	}
	if pr.Title != "" {
		title += ": " + pr.Title
	}
	link := &jira.RemoteLink{
		GlobalID:     globalID,
		Relationship: "pull request",
		Application:  &jira.RemoteLinkApplication{Type: "com.github", Name: "GitHub"},
		Object: &jira.RemoteLinkObject{
			URL:    pr.URL,
			Title:  title,
			Status: &jira.RemoteLinkStatus{Resolved: pr.State == "closed"},
		},
	}
	return p.do(httpx.RetrySafe(ctx), op, ticket.Key, http.MethodPost, "rest/api/2/issue/"+ticket.Key+"/remotelink", link, nil)
}
