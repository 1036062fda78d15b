package github

import (
	"context"
	"net/url"
	"regexp"
	"strings"

	gh "github.com/google/go-github/v62/github"

	"github.com/the-loop/the-loop/integrations"
)

// maxLabelLen is GitHub's limit on a label name.
const maxLabelLen = 50

// reactions are the reaction contents GitHub accepts.
var reactions = map[string]bool{"+1": true, "-1": true, "laugh": true, "confused": true, "heart": true, "hooray": true, "rocket": true, "eyes": true}

var colorPattern = regexp.MustCompile(`^[0-9a-fA-F]{6}$`)

// GetIssue reads an issue (or pull request) with its labels.
func (p *Provider) GetIssue(ctx context.Context, ref integrations.Ref) (integrations.Issue, error) {
	op := integrations.OpGetIssue
	if err := p.checkRef(op, ref); err != nil {
		return integrations.Issue{}, err
	}
	var is *gh.Issue
	err := p.call(ctx, op, target(ref), func(ctx context.Context) (err error) {
		is, _, err = p.client.Issues.Get(ctx, ref.Owner, ref.Repo, ref.Number)
		return err
	})
	if err != nil {
		return integrations.Issue{}, err
	}
	return p.issueFrom(ref, is), nil
}

func (p *Provider) issueFrom(ref integrations.Ref, is *gh.Issue) integrations.Issue {
	ref.System = System
	if ref.Host == "" {
		ref.Host = p.host
	}
	if is.Number != nil {
		ref.Number = is.GetNumber()
	}
	labels := make([]string, 0, len(is.Labels))
	for _, l := range is.Labels {
		labels = append(labels, l.GetName())
	}
	return integrations.Issue{
		Ref:       ref,
		Number:    ref.Number,
		Key:       target(ref),
		Title:     is.GetTitle(),
		Body:      is.GetBody(),
		State:     is.GetState(),
		Author:    is.GetUser().GetLogin(),
		Labels:    labels,
		URL:       is.GetHTMLURL(),
		UpdatedAt: is.GetUpdatedAt().Time,
		// GitHub counts an issue's conversation comments in every listing.
		Comments:      is.GetComments(),
		CommentsKnown: is.Comments != nil,
		Pull:          is.IsPullRequest(),
	}
}

// CreateIssue opens an issue in in.Repo (OWNER/REPO).
func (p *Provider) CreateIssue(ctx context.Context, in integrations.NewIssue) (integrations.Issue, error) {
	op := integrations.OpCreateIssue
	owner, repo, err := ParseRepo(in.Repo)
	if err != nil {
		return integrations.Issue{}, integrations.Invalidf(System, op, "%v (--repo / NewIssue.Repo)", err)
	}
	if strings.TrimSpace(in.Title) == "" {
		return integrations.Issue{}, integrations.Invalidf(System, op, "the issue title is empty (--title)")
	}
	if in.Project != "" || in.IssueType != "" || in.Parent != "" {
		return integrations.Issue{}, integrations.Invalidf(System, op, "project, issue type and parent are Jira fields; a GitHub issue takes OWNER/REPO, title, body and labels")
	}
	labels, err := limits.CleanLabels(op, in.Labels)
	if err != nil {
		return integrations.Issue{}, err
	}
	req := &gh.IssueRequest{Title: gh.String(in.Title), Body: gh.String(in.Body)}
	if len(labels) > 0 {
		req.Labels = &labels
	}
	var is *gh.Issue
	err = p.call(ctx, op, in.Repo, func(ctx context.Context) (err error) {
		is, _, err = p.client.Issues.Create(ctx, owner, repo, req)
		return err
	})
	if err != nil {
		return integrations.Issue{}, err
	}
	return p.issueFrom(integrations.Ref{Owner: owner, Repo: repo}, is), nil
}

// EditIssueBody replaces the issue's body.
func (p *Provider) EditIssueBody(ctx context.Context, ref integrations.Ref, body string) error {
	op := integrations.OpEditIssue
	if err := p.checkRef(op, ref); err != nil {
		return err
	}
	return p.call(ctx, op, target(ref), func(ctx context.Context) error {
		_, _, err := p.client.Issues.Edit(ctx, ref.Owner, ref.Repo, ref.Number, &gh.IssueRequest{Body: gh.String(body)})
		return err
	})
}

// AddLabels adds labels to the issue (existing ones are kept).
func (p *Provider) AddLabels(ctx context.Context, ref integrations.Ref, labels []string) error {
	op := integrations.OpAddLabels
	if err := p.checkRef(op, ref); err != nil {
		return err
	}
	clean, err := limits.CleanLabels(op, labels)
	if err != nil {
		return err
	}
	if len(clean) == 0 {
		return nil
	}
	return p.call(ctx, op, target(ref), func(ctx context.Context) error {
		_, _, err := p.client.Issues.AddLabelsToIssue(ctx, ref.Owner, ref.Repo, ref.Number, clean)
		return err
	})
}

// RemoveLabel removes one label; a label the issue does not carry is not an
// error.
func (p *Provider) RemoveLabel(ctx context.Context, ref integrations.Ref, label string) error {
	op := integrations.OpRemoveLabel
	if err := p.checkRef(op, ref); err != nil {
		return err
	}
	clean, err := limits.CleanLabels(op, []string{label})
	if err != nil {
		return err
	}
	if len(clean) == 0 {
		return integrations.Invalidf(System, op, "the label to remove is empty")
	}
	return p.call(ctx, op, target(ref), func(ctx context.Context) error {
		_, err := p.client.Issues.RemoveLabelForIssue(ctx, ref.Owner, ref.Repo, ref.Number, url.PathEscape(clean[0]))
		if isStatus(err, 404, "label does not exist") {
			return nil
		}
		return err
	})
}

// EnsureLabels creates the labels missing from owner/repo.
func (p *Provider) EnsureLabels(ctx context.Context, owner, repo string, labels []integrations.LabelSpec) error {
	op := integrations.OpEnsureLabels
	if _, _, err := ParseRepo(owner + "/" + repo); err != nil {
		return integrations.Invalidf(System, op, "%v", err)
	}
	for _, spec := range labels {
		if _, err := limits.CleanLabels(op, []string{spec.Name}); err != nil || strings.TrimSpace(spec.Name) == "" {
			return integrations.Invalidf(System, op, "label name %q is empty or longer than %d characters", spec.Name, maxLabelLen)
		}
		color := strings.TrimPrefix(spec.Color, "#")
		if color == "" {
			color = "ededed"
		}
		if !colorPattern.MatchString(color) {
			return integrations.Invalidf(System, op, "label %q color %q is not six hex digits", spec.Name, spec.Color)
		}
		name := strings.TrimSpace(spec.Name)
		tgt := owner + "/" + repo + " label " + name
		err := p.call(ctx, op, tgt, func(ctx context.Context) error {
			_, _, err := p.client.Issues.GetLabel(ctx, owner, repo, url.PathEscape(name))
			if !isStatus(err, 404, "") {
				return err
			}
			_, _, err = p.client.Issues.CreateLabel(ctx, owner, repo, &gh.Label{Name: gh.String(name), Color: gh.String(color), Description: gh.String(spec.Description)})
			if isStatus(err, 422, "already_exists") {
				return nil
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// AddReaction reacts to comment commentID, or to the issue itself when
// commentID is 0.
func (p *Provider) AddReaction(ctx context.Context, ref integrations.Ref, commentID int64, reaction string) error {
	op := integrations.OpAddReaction
	if err := p.checkRef(op, ref); err != nil {
		return err
	}
	if !reactions[reaction] {
		return integrations.Invalidf(System, op, "reaction %q is not one of +1 -1 laugh confused heart hooray rocket eyes", reaction)
	}
	if commentID < 0 {
		return integrations.Invalidf(System, op, "comment id %d is negative", commentID)
	}
	return p.call(ctx, op, target(ref), func(ctx context.Context) (err error) {
		if commentID == 0 {
			_, _, err = p.client.Reactions.CreateIssueReaction(ctx, ref.Owner, ref.Repo, ref.Number, reaction)
		} else {
			_, _, err = p.client.Reactions.CreateIssueCommentReaction(ctx, ref.Owner, ref.Repo, commentID, reaction)
		}
		return err
	})
}
