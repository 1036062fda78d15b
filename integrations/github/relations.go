package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v62/github"

	"github.com/the-loop/the-loop/integrations"
)

var _ integrations.RelationReader = (*Provider)(nil)

// The relationship listings, relative to repos/OWNER/REPO/issues/N/.
// go-github v62 predates them, so they are requested through the client's
// NewRequest and Do (the same retrying, caching transport).
const (
	subIssuesPath = "sub_issues"
	parentPath    = "parent"
	blockedByPath = "dependencies/blocked_by"
	blockingPath  = "dependencies/blocking"
)

// ReadRelations reads the issue, its sub-issues and parent, and the issues
// it is blocked by and blocking (GitHub issue dependencies). A server
// without sub-issues or dependencies (HTTP 404 on the listing) yields none
// of them and a warning; every other failure is an error.
func (p *Provider) ReadRelations(ctx context.Context, ref integrations.Ref) (integrations.Relations, error) {
	op := integrations.OpReadRelations
	if err := p.checkRef(op, ref); err != nil {
		return integrations.Relations{}, err
	}
	base := fmt.Sprintf("repos/%s/%s/issues/%d", ref.Owner, ref.Repo, ref.Number)
	var doc relIssue
	err := p.call(ctx, op, target(ref), func(ctx context.Context) error {
		req, err := p.client.NewRequest(http.MethodGet, base, nil)
		if err != nil {
			return err
		}
		doc = relIssue{}
		_, err = p.client.Do(ctx, req, &doc)
		return err
	})
	if err != nil {
		return integrations.Relations{}, err
	}
	is := &doc.Issue
	item, _ := p.relatedFrom(is, "")
	item.Ref = p.issueFrom(ref, is).Ref
	out := integrations.Relations{Item: item, Body: is.GetBody()}
	base += "/"

	children, ok, err := p.listRelated(ctx, ref, base+subIssuesPath, "sub-issue", &out)
	if err != nil {
		return integrations.Relations{}, err
	}
	if ok {
		out.Children = children
		if !doc.ParentIssueURL.none() {
			parent, err := p.readParent(ctx, ref, base+parentPath, &out)
			if err != nil {
				return integrations.Relations{}, err
			}
			out.Parent = parent
		}
	} else {
		out.Warnings = append(out.Warnings, p.missing("sub-issues", subIssuesPath))
	}
	blockedBy, ok, err := p.listRelated(ctx, ref, base+blockedByPath, "dependency", &out)
	if err != nil {
		return integrations.Relations{}, err
	}
	if !ok {
		out.Warnings = append(out.Warnings, p.missing("issue dependencies", blockedByPath))
		return out, nil
	}
	out.BlockedBy = blockedBy
	blocking, ok, err := p.listRelated(ctx, ref, base+blockingPath, "dependency", &out)
	if err != nil {
		return integrations.Relations{}, err
	}
	if ok {
		out.Blocking = blocking
	}
	return out, nil
}

// relIssue is an issue as ReadRelations reads it: go-github v62 predates
// parent_issue_url, which says whether the issue has a parent at all, so
// an issue without one costs no parent request.
type relIssue struct {
	gh.Issue
	ParentIssueURL presentString `json:"parent_issue_url"`
}

// presentString is a JSON string field that may be absent (a server that
// predates it), null or set.
type presentString struct {
	present bool
	value   string
}

// UnmarshalJSON records that the field was sent, and its value unless null.
func (p *presentString) UnmarshalJSON(b []byte) error {
	p.present = true
	if string(b) == "null" {
		return nil
	}
	return json.Unmarshal(b, &p.value)
}

// none reports a field sent as null (or empty): the server says there is
// nothing there.
func (p presentString) none() bool { return p.present && p.value == "" }

func (p *Provider) missing(feature, path string) string {
	return fmt.Sprintf("github %s: %s are not available (HTTP 404 from the %s endpoint); read as none", hostName(p.host), feature, path)
}

// listRelated reads every page of a relationship listing. ok is false when
// the endpoint answers 404 (the server lacks the feature).
func (p *Provider) listRelated(ctx context.Context, ref integrations.Ref, path, via string, rel *integrations.Relations) (out []integrations.Related, ok bool, err error) {
	op := integrations.OpReadRelations
	seen := map[string]bool{}
	for page := 1; ; page++ {
		if page > maxPages {
			return nil, false, integrations.Invalidf(System, op, "%s has more than %d pages of %s; refusing a partial listing", target(ref), maxPages, via)
		}
		var batch []*gh.Issue
		var resp *gh.Response
		missing := false
		err := p.call(ctx, op, target(ref), func(ctx context.Context) error {
			req, err := p.client.NewRequest(http.MethodGet, fmt.Sprintf("%s?per_page=%d&page=%d", path, perPage, page), nil)
			if err != nil {
				return err
			}
			batch = nil
			resp, err = p.client.Do(ctx, req, &batch)
			if isStatus(err, http.StatusNotFound, "") {
				missing = true
				return nil
			}
			return err
		})
		if err != nil {
			return nil, false, err
		}
		if missing {
			return nil, false, nil
		}
		for _, is := range batch {
			r, good := p.relatedFrom(is, via)
			if !good {
				rel.Warnings = append(rel.Warnings, fmt.Sprintf("github %s: a %s of %s names no repository; left out", hostName(p.host), via, target(ref)))
				continue
			}
			if key := strings.ToLower(r.Ref.String()); !seen[key] {
				seen[key] = true
				out = append(out, r)
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return out, true, nil
		}
	}
}

// readParent reads the issue's parent; nil when it has none (404).
func (p *Provider) readParent(ctx context.Context, ref integrations.Ref, path string, rel *integrations.Relations) (*integrations.Related, error) {
	var parent *gh.Issue
	err := p.call(ctx, integrations.OpReadRelations, target(ref), func(ctx context.Context) error {
		req, err := p.client.NewRequest(http.MethodGet, path, nil)
		if err != nil {
			return err
		}
		parent = nil
		_, err = p.client.Do(ctx, req, &parent)
		if isStatus(err, http.StatusNotFound, "") {
			parent = nil
			return nil
		}
		return err
	})
	if err != nil || parent == nil {
		return nil, err
	}
	r, ok := p.relatedFrom(parent, "parent")
	if !ok {
		rel.Warnings = append(rel.Warnings, fmt.Sprintf("github %s: the parent of %s names no repository; left out", hostName(p.host), target(ref)))
		return nil, nil
	}
	return &r, nil
}

// relatedFrom turns an issue of a relationship listing into a Related. The
// repository comes from repository_url (sub-issues and dependencies may
// cross repositories), else from html_url; ok is false when neither names
// one.
func (p *Provider) relatedFrom(is *gh.Issue, via string) (integrations.Related, bool) {
	owner, repo, ok := repoOfAPIURL(is.GetRepositoryURL())
	if !ok {
		if r, err := ParseRef(is.GetHTMLURL()); err == nil {
			owner, repo, ok = r.Owner, r.Repo, true
		}
	}
	state, reason := StateOf(is.GetState(), is.GetStateReason())
	return integrations.Related{
		Ref:    integrations.Ref{System: System, Host: p.host, Owner: owner, Repo: repo, Number: is.GetNumber()},
		Title:  is.GetTitle(),
		State:  state,
		Reason: reason,
		Via:    via,
	}, ok && is.GetNumber() > 0
}

// repoOfAPIURL reads OWNER/REPO from https://HOST/[api/v3/]repos/OWNER/REPO.
func repoOfAPIURL(s string) (owner, repo string, ok bool) {
	u, err := url.Parse(s)
	if err != nil || s == "" {
		return "", "", false
	}
	_, rest, found := strings.Cut(u.Path, "/repos/")
	if !found {
		return "", "", false
	}
	owner, repo, err = ParseRepo(strings.Trim(rest, "/"))
	return owner, repo, err == nil
}

// StateOf maps an issue's state and state_reason onto a dependency state:
// open; closed as completed (or with no reason, as servers predating
// state_reason close) is done; closed any other way is not done.
func StateOf(state, reason string) (integrations.ItemState, string) {
	switch {
	case state == "open":
		return integrations.StateOpen, reason
	case state == "closed" && (reason == "" || reason == "completed"):
		return integrations.StateDone, reason
	case state == "closed":
		return integrations.StateNotDone, reason
	}
	return integrations.StateUnknown, state
}
