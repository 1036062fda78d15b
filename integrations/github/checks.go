package github

import (
	"context"

	gh "github.com/google/go-github/v62/github"

	"github.com/the-loop/the-loop/integrations"
)

var _ integrations.CheckReader = (*Provider)(nil)

// ReadChecks reads every commit status (the newest per context, from the
// combined status) and every check run (the newest per name) of sha in
// owner/repo, following the Link header of both, and sums them up with
// integrations.SummarizeChecks. Pages are conditional, so re-reading an
// unchanged commit costs no quota.
func (p *Provider) ReadChecks(ctx context.Context, owner, repo, sha string) (integrations.Checks, error) {
	op := integrations.OpReadChecks
	if _, _, err := ParseRepo(owner + "/" + repo); err != nil {
		return integrations.Checks{}, integrations.Invalidf(System, op, "%v", err)
	}
	if !shaPattern().MatchString(sha) {
		return integrations.Checks{}, integrations.Invalidf(System, op, "commit %q is not a full lowercase SHA (a pull request's head SHA)", sha)
	}
	tgt := owner + "/" + repo + "@" + sha
	statuses, err := listAll(ctx, p, op, tgt, "statuses", func(ctx context.Context, page int) ([]*gh.RepoStatus, *gh.Response, error) {
		combined, resp, err := p.client.Repositories.GetCombinedStatus(ctx, owner, repo, sha, &gh.ListOptions{PerPage: perPage, Page: page})
		if combined == nil {
			return nil, resp, err
		}
		return combined.Statuses, resp, err
	})
	if err != nil {
		return integrations.Checks{}, err
	}
	filter := "latest"
	runs, err := listAll(ctx, p, op, tgt, "check runs", func(ctx context.Context, page int) ([]*gh.CheckRun, *gh.Response, error) {
		res, resp, err := p.client.Checks.ListCheckRunsForRef(ctx, owner, repo, sha, &gh.ListCheckRunsOptions{Filter: &filter, ListOptions: gh.ListOptions{PerPage: perPage, Page: page}})
		if res == nil {
			return nil, resp, err
		}
		return res.CheckRuns, resp, err
	})
	if err != nil {
		return integrations.Checks{}, err
	}
	checks := make([]integrations.Check, 0, len(statuses)+len(runs))
	for _, st := range statuses {
		checks = append(checks, integrations.Check{
			Name: st.GetContext(), Source: integrations.SourceStatus,
			State: statusState(st.GetState()), Detail: st.GetState(), URL: st.GetTargetURL(), Summary: st.GetDescription(),
		})
	}
	for _, run := range runs {
		url := run.GetHTMLURL()
		if url == "" {
			url = run.GetDetailsURL()
		}
		detail := run.GetConclusion()
		if run.GetStatus() != "completed" {
			detail = run.GetStatus()
		}
		out := run.GetOutput()
		checks = append(checks, integrations.Check{
			Name: run.GetName(), Source: integrations.SourceCheckRun,
			State: runState(run.GetStatus(), run.GetConclusion()), Detail: detail, URL: url,
			ID: run.GetID(), App: run.GetApp().GetSlug(),
			Title: out.GetTitle(), Summary: out.GetSummary(), Text: out.GetText(), Annotations: out.GetAnnotationsCount(),
		})
	}
	return integrations.SummarizeChecks(sha, checks), nil
}

// statusState maps a commit status: success passes, pending waits, and
// anything else (failure, error, a word GitHub may add later) fails.
func statusState(state string) integrations.CheckState {
	switch state {
	case "success":
		return integrations.CheckPassed
	case "pending":
		return integrations.CheckPending
	}
	return integrations.CheckFailed
}

// runState maps a check run: a run that has not completed waits; success,
// neutral and skipped pass; anything else (failure, cancelled, timed_out,
// action_required, stale, startup_failure, a word GitHub may add later)
// fails.
func runState(status, conclusion string) integrations.CheckState {
	if status != "completed" {
		return integrations.CheckPending
	}
	switch conclusion {
	case "success", "neutral", "skipped":
		return integrations.CheckPassed
	}
	return integrations.CheckFailed
}
