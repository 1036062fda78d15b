package github

import (
	"context"
	"errors"
	"regexp"
	"strings"

	gh "github.com/google/go-github/v62/github"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/lazyre"
)

var (
	_ integrations.PullRequestOpener     = (*Provider)(nil)
	_ integrations.PullRequestLister     = (*Provider)(nil)
	_ integrations.PullRequestFileLister = (*Provider)(nil)
)

// pullListingPath selects the pull request reads made conditional (ETag /
// If-None-Match) besides listingPath: a repository's pull requests, one pull
// request, its files, reviews and review comments, and a commit's combined
// status and check runs. An unchanged answer is a free 304.
var pullListingPath = lazyre.New(`/repos/[^/]+/[^/]+/(pulls(/[0-9]+(/(files|reviews|comments))?)?|commits/[^/]+/(status|check-runs))$`)

// ownerPattern is the owner half of OWNER/REPO.
var ownerPattern = regexp.MustCompile(`^[\w.-]+$`)

// conditionalListing reports whether a GET goes through the ETag cache.
func conditionalListing(path string) bool {
	return listingPath().MatchString(path) || pullListingPath().MatchString(path)
}

// listAll fetches every page of a listing, following the Link header, each
// page through p.call. A listing longer than maxPages is an error, never a
// silently partial result.
func listAll[T any](ctx context.Context, p *Provider, op integrations.Op, tgt, what string, fetch func(ctx context.Context, page int) ([]T, *gh.Response, error)) ([]T, error) {
	var out []T
	page := 0
	for n := 0; ; n++ {
		if n >= maxPages {
			return nil, integrations.Invalidf(System, op, "%s has more than %d pages of %s; refusing a partial listing", tgt, maxPages, what)
		}
		var batch []T
		var resp *gh.Response
		err := p.call(ctx, op, tgt, func(ctx context.Context) (err error) {
			batch, resp, err = fetch(ctx, page)
			return err
		})
		if err != nil {
			return nil, err
		}
		out = append(out, batch...)
		if resp == nil || resp.NextPage == 0 {
			return out, nil
		}
		page = resp.NextPage
	}
}

// pullTarget validates owner/repo#number and names it for errors.
func (p *Provider) pullTarget(op integrations.Op, owner, repo string, number int) (string, error) {
	ref := integrations.Ref{System: System, Owner: owner, Repo: repo, Number: number}
	if err := p.checkRef(op, ref); err != nil {
		return "", err
	}
	return target(ref), nil
}

// headFilter returns GitHub's OWNER:BRANCH head filter for head (a branch,
// or OWNER:BRANCH for a fork) in owner's repository.
func headFilter(op integrations.Op, owner, head string) (string, error) {
	headOwner, branch := owner, head
	if o, b, ok := strings.Cut(head, ":"); ok {
		headOwner, branch = o, b
	}
	if !ownerPattern.MatchString(headOwner) || headOwner == "." || headOwner == ".." {
		return "", integrations.Invalidf(System, op, "head %q: %q is not a GitHub owner", head, headOwner)
	}
	if err := ValidateBranch(branch); err != nil {
		return "", integrations.Invalidf(System, op, "head: %v", err)
	}
	return headOwner + ":" + branch, nil
}

// OpenPullRequest returns the open pull request from in.Head into in.Base,
// opening it when there is none (created is then true). An open pull request
// from the same head into another base is refused, never adopted. When
// GitHub answers the create with "already exists" (another writer won the
// race), the one it has is adopted.
func (p *Provider) OpenPullRequest(ctx context.Context, in integrations.NewPullRequest) (integrations.PullRequest, bool, error) {
	op := integrations.OpOpenPullRequest
	if _, _, err := ParseRepo(in.Owner + "/" + in.Repo); err != nil {
		return integrations.PullRequest{}, false, integrations.Invalidf(System, op, "%v", err)
	}
	head, err := headFilter(op, in.Owner, in.Head)
	if err != nil {
		return integrations.PullRequest{}, false, err
	}
	if err := ValidateBranch(in.Base); err != nil {
		return integrations.PullRequest{}, false, integrations.Invalidf(System, op, "base: %v", err)
	}
	if pr, ok, err := p.openFromHead(ctx, op, in, head); err != nil || ok {
		return pr, false, err
	}
	pr, err := p.CreatePullRequest(ctx, in)
	if err == nil {
		return pr, true, nil
	}
	if errors.Is(err, integrations.ErrInvalid) {
		if found, ok, lerr := p.openFromHead(ctx, op, in, head); lerr == nil && ok {
			return found, false, nil
		}
	}
	return integrations.PullRequest{}, false, err
}

// openFromHead finds the open pull request from head into in.Base.
func (p *Provider) openFromHead(ctx context.Context, op integrations.Op, in integrations.NewPullRequest, head string) (integrations.PullRequest, bool, error) {
	open, err := p.ListPullRequests(ctx, integrations.PullRequestQuery{Owner: in.Owner, Repo: in.Repo, State: "open", Head: head})
	if err != nil {
		return integrations.PullRequest{}, false, err
	}
	for _, pr := range open {
		if pr.Base == in.Base {
			return pr, true, nil
		}
	}
	if len(open) > 0 {
		return integrations.PullRequest{}, false, integrations.Invalidf(System, op,
			"pull request #%d from %s is open against %s, not %s; retarget or close it", open[0].Number, head, open[0].Base, in.Base)
	}
	return integrations.PullRequest{}, false, nil
}

// ListPullRequests returns every pull request q selects, newest first,
// following the Link header; pages are conditional, so an unchanged
// listing costs no quota.
func (p *Provider) ListPullRequests(ctx context.Context, q integrations.PullRequestQuery) ([]integrations.PullRequest, error) {
	op := integrations.OpListPullRequests
	if _, _, err := ParseRepo(q.Owner + "/" + q.Repo); err != nil {
		return nil, integrations.Invalidf(System, op, "%v", err)
	}
	opts := &gh.PullRequestListOptions{State: q.State, Sort: "created", Direction: "desc", ListOptions: gh.ListOptions{PerPage: perPage}}
	switch q.State {
	case "":
		opts.State = "open"
	case "open", "closed", "all":
	default:
		return nil, integrations.Invalidf(System, op, "state %q is not one of open, closed, all", q.State)
	}
	if q.Head != "" {
		head, err := headFilter(op, q.Owner, q.Head)
		if err != nil {
			return nil, err
		}
		opts.Head = head
	}
	if q.Base != "" {
		if err := ValidateBranch(q.Base); err != nil {
			return nil, integrations.Invalidf(System, op, "base: %v", err)
		}
		opts.Base = q.Base
	}
	tgt := q.Owner + "/" + q.Repo
	prs, err := listAll(ctx, p, op, tgt, "pull requests", func(ctx context.Context, page int) ([]*gh.PullRequest, *gh.Response, error) {
		opts.Page = page
		return p.client.PullRequests.List(ctx, q.Owner, q.Repo, opts)
	})
	if err != nil {
		return nil, err
	}
	out := make([]integrations.PullRequest, 0, len(prs))
	for _, pr := range prs {
		out = append(out, pullFrom(q.Owner, q.Repo, pr))
	}
	return out, nil
}

// ListPullRequestFiles returns the paths the pull request changes (a
// renamed file under its new path), following the Link header.
func (p *Provider) ListPullRequestFiles(ctx context.Context, owner, repo string, number int) ([]string, error) {
	op := integrations.OpListPullRequestFiles
	tgt, err := p.pullTarget(op, owner, repo, number)
	if err != nil {
		return nil, err
	}
	files, err := listAll(ctx, p, op, tgt, "files", func(ctx context.Context, page int) ([]*gh.CommitFile, *gh.Response, error) {
		return p.client.PullRequests.ListFiles(ctx, owner, repo, number, &gh.ListOptions{PerPage: perPage, Page: page})
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(files))
	for _, f := range files {
		out = append(out, f.GetFilename())
	}
	return out, nil
}

// pullFrom maps a go-github pull request of owner/repo.
func pullFrom(owner, repo string, pr *gh.PullRequest) integrations.PullRequest {
	return integrations.PullRequest{
		Number:         pr.GetNumber(),
		URL:            pr.GetHTMLURL(),
		Head:           pr.GetHead().GetRef(),
		Base:           pr.GetBase().GetRef(),
		Draft:          pr.GetDraft(),
		State:          pr.GetState(),
		Owner:          owner,
		Repo:           repo,
		Title:          pr.GetTitle(),
		Body:           pr.GetBody(),
		Author:         pr.GetUser().GetLogin(),
		HeadSHA:        pr.GetHead().GetSHA(),
		Merged:         pr.GetMerged() || pr.MergedAt != nil,
		MergedBy:       pr.GetMergedBy().GetLogin(),
		Mergeable:      pr.Mergeable,
		MergeableState: pr.GetMergeableState(),
		UpdatedAt:      pr.GetUpdatedAt().Time,
	}
}
