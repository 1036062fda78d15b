package github

import (
	"context"
	"fmt"
	"path"
	"strings"

	gh "github.com/google/go-github/v62/github"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/gitref"
	"github.com/the-loop/the-loop/internal/lazyre"
)

var shaPattern = lazyre.New(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// ValidateBranch checks a branch name against git's rule for one
// (gitref.CheckBranch).
func ValidateBranch(name string) error {
	if err := gitref.CheckBranch(name); err != nil {
		return fmt.Errorf("branch name %q is not a valid git ref: it %v", name, err)
	}
	return nil
}

// CreateBranch creates refs/heads/branch at fromSHA. A branch that already
// points at fromSHA is not an error.
func (p *Provider) CreateBranch(ctx context.Context, owner, repo, branch, fromSHA string) error {
	op := integrations.OpCreateBranch
	if _, _, err := ParseRepo(owner + "/" + repo); err != nil {
		return integrations.Invalidf(System, op, "%v", err)
	}
	if err := ValidateBranch(branch); err != nil {
		return integrations.Invalidf(System, op, "%v", err)
	}
	if !shaPattern().MatchString(fromSHA) {
		return integrations.Invalidf(System, op, "start point %q is not a full lowercase commit SHA", fromSHA)
	}
	ref := "refs/heads/" + branch
	tgt := owner + "/" + repo + " " + ref
	return p.call(ctx, op, tgt, func(ctx context.Context) error {
		_, _, err := p.client.Git.CreateRef(ctx, owner, repo, &gh.Reference{Ref: gh.String(ref), Object: &gh.GitObject{SHA: gh.String(fromSHA)}})
		if !isStatus(err, 422, "already exists") {
			return err
		}
		existing, _, gerr := p.client.Git.GetRef(ctx, owner, repo, ref)
		if gerr != nil {
			return gerr
		}
		if existing.GetObject().GetSHA() == fromSHA {
			return nil
		}
		return integrations.Invalidf(System, op, "%s already exists at %s, not %s", ref, existing.GetObject().GetSHA(), fromSHA)
	})
}

// CreatePullRequest opens a pull request from in.Head into in.Base.
func (p *Provider) CreatePullRequest(ctx context.Context, in integrations.NewPullRequest) (integrations.PullRequest, error) {
	op := integrations.OpCreatePullRequest
	if _, _, err := ParseRepo(in.Owner + "/" + in.Repo); err != nil {
		return integrations.PullRequest{}, integrations.Invalidf(System, op, "%v", err)
	}
	if strings.TrimSpace(in.Title) == "" {
		return integrations.PullRequest{}, integrations.Invalidf(System, op, "the pull request title is empty")
	}
	head := in.Head
	if _, branch, ok := strings.Cut(in.Head, ":"); ok {
		head = branch
	}
	if err := ValidateBranch(head); err != nil {
		return integrations.PullRequest{}, integrations.Invalidf(System, op, "head: %v", err)
	}
	if err := ValidateBranch(in.Base); err != nil {
		return integrations.PullRequest{}, integrations.Invalidf(System, op, "base: %v", err)
	}
	var pr *gh.PullRequest
	err := p.call(ctx, op, in.Owner+"/"+in.Repo, func(ctx context.Context) (err error) {
		pr, _, err = p.client.PullRequests.Create(ctx, in.Owner, in.Repo, &gh.NewPullRequest{
			Title: gh.String(in.Title), Body: gh.String(in.Body), Head: gh.String(in.Head), Base: gh.String(in.Base), Draft: gh.Bool(in.Draft),
		})
		return err
	})
	if err != nil {
		return integrations.PullRequest{}, err
	}
	return pullFrom(in.Owner, in.Repo, pr), nil
}

// GetPullRequest reads pull request owner/repo#number.
func (p *Provider) GetPullRequest(ctx context.Context, owner, repo string, number int) (integrations.PullRequest, error) {
	op := integrations.OpGetPullRequest
	ref := integrations.Ref{System: System, Owner: owner, Repo: repo, Number: number}
	if err := p.checkRef(op, ref); err != nil {
		return integrations.PullRequest{}, err
	}
	var pr *gh.PullRequest
	err := p.call(ctx, op, target(ref), func(ctx context.Context) (err error) {
		pr, _, err = p.client.PullRequests.Get(ctx, owner, repo, number)
		return err
	})
	if err != nil {
		return integrations.PullRequest{}, err
	}
	return pullFrom(owner, repo, pr), nil
}

// LinkPullRequest makes the pull request's body close the issue ("Closes
// #N", or the qualified "Closes OWNER/REPO#N" across repositories): GitHub
// shows the link on both sides and closes the issue when the pull request
// merges. A body that already has the line is left alone.
func (p *Provider) LinkPullRequest(ctx context.Context, issue integrations.Ref, owner, repo string, number int) error {
	op := integrations.OpLinkPullRequest
	if err := p.checkRef(op, issue); err != nil {
		return err
	}
	prRef := integrations.Ref{System: System, Owner: owner, Repo: repo, Number: number}
	if err := p.checkRef(op, prRef); err != nil {
		return err
	}
	line := ClosingLine(issue, owner, repo)
	return p.call(ctx, op, target(prRef), func(ctx context.Context) error {
		pr, _, err := p.client.PullRequests.Get(ctx, owner, repo, number)
		if err != nil {
			return err
		}
		body := pr.GetBody()
		for _, l := range strings.Split(body, "\n") {
			if strings.TrimSpace(l) == line {
				return nil
			}
		}
		next := strings.TrimRight(body, " \t\r\n")
		if next != "" {
			next += "\n\n"
		}
		next += line + "\n"
		_, _, err = p.client.PullRequests.Edit(ctx, owner, repo, number, &gh.PullRequest{Body: gh.String(next)})
		return err
	})
}

// ClosingLine is the line a pull request in owner/repo carries to close
// issue: "Closes #N" in the issue's own repository, else the qualified
// "Closes OWNER/REPO#N" (a bare number would name an issue of the pull
// request's repository).
func ClosingLine(issue integrations.Ref, owner, repo string) string {
	if strings.EqualFold(issue.Owner+"/"+issue.Repo, owner+"/"+repo) {
		return fmt.Sprintf("Closes #%d", issue.Number)
	}
	return fmt.Sprintf("Closes %s/%s#%d", issue.Owner, issue.Repo, issue.Number)
}

// ReadFile returns the content of file filePath at ref (a branch, tag or
// SHA; "" means the default branch).
func (p *Provider) ReadFile(ctx context.Context, owner, repo, filePath, ref string) ([]byte, error) {
	op := integrations.OpReadFile
	if _, _, err := ParseRepo(owner + "/" + repo); err != nil {
		return nil, integrations.Invalidf(System, op, "%v", err)
	}
	if filePath == "" || strings.HasPrefix(filePath, "/") || strings.Contains(filePath, "\\") ||
		path.Clean(filePath) != filePath || filePath == "." || strings.HasPrefix(filePath, "../") || filePath == ".." {
		return nil, integrations.Invalidf(System, op, "path %q is not a clean relative path inside the repository", filePath)
	}
	if ref != "" && !shaPattern().MatchString(ref) {
		if err := ValidateBranch(ref); err != nil {
			return nil, integrations.Invalidf(System, op, "ref: %v", err)
		}
	}
	tgt := owner + "/" + repo + ":" + filePath
	var content string
	err := p.call(ctx, op, tgt, func(ctx context.Context) error {
		file, dir, _, err := p.client.Repositories.GetContents(ctx, owner, repo, filePath, &gh.RepositoryContentGetOptions{Ref: ref})
		if err != nil {
			return err
		}
		if file == nil || dir != nil {
			return integrations.Invalidf(System, op, "%s is a directory, not a file", filePath)
		}
		if file.GetEncoding() == "none" {
			return integrations.Invalidf(System, op, "%s is too large for the contents API", filePath)
		}
		content, err = file.GetContent()
		if err != nil {
			return fmt.Errorf("decode %s: %w", filePath, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return []byte(content), nil
}
