package ship

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
	"github.com/the-loop/the-loop/runtime/shipready"
	"github.com/the-loop/the-loop/skills"
)

// HookPostBriefing posts the reviewer briefing on each pull request.
const HookPostBriefing = "post-reviewer-briefing"

// BriefingFile is the reviewer briefing the agent writes in the spec folder
// from the PR-briefing template; the loop renders it onto every pull
// request of the work item.
const BriefingFile = "pr-briefing.md"

// PostBriefing renders pr-briefing.md through the shipped PR-briefing
// template for the head commit of each pull request the node answers for,
// and keeps it as one marked comment on that pull request (created once,
// edited in place when the head moves, never duplicated). A briefing that
// is missing or does not fill the template blocks, naming what to write; a
// post that fails waits. Under check it only renders the briefing, to say
// whether it would be accepted. With param atGate (an approval gate, after
// classify-feedback: a pull request opened after the gate was entered gets
// its briefing there) it runs only on an approval and never blocks.
func PostBriefing(hc *runtime.HookContext) (runtime.Result, error) {
	if hc.BoolParam("atGate") && !approving(hc.Results) {
		return runtime.Skipped(HookPostBriefing, "the gate's answer is not an approval: nothing ships"), nil
	}
	r, err := postBriefing(hc)
	return hold(hc, r), err
}

func postBriefing(hc *runtime.HookContext) (runtime.Result, error) {
	filled, found, err := readBriefing(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	path := hc.RelSpecDir + "/" + BriefingFile
	if !found {
		return runtime.Blocked(HookPostBriefing, runtime.Errorf(path, "%s is missing: write the reviewer briefing from the PR-briefing template "+
			"(skills/operating-model/templates/pr-briefing.md), every section, with a mermaid diagram", BriefingFile)), nil
	}
	if hc.ReadOnly {
		probe := integrations.PullRequest{HeadSHA: strings.Repeat("0", 40)}
		if _, err := shipready.RenderBriefing(shipready.BriefingInput{Template: skills.PRBriefingTemplate, Filled: filled, PullRequest: probe}); err != nil {
			return runtime.Blocked(HookPostBriefing, runtime.Errorf(path, "%v", err)), nil
		}
		return runtime.Skipped(HookPostBriefing, "the briefing renders; the loop posts it on each pull request when it runs (check reads no network)"), nil
	}
	ts, why := targets(hc)
	if ts == nil {
		return runtime.Waiting(HookPostBriefing, why), nil
	}
	p := host(hc)
	if p == nil {
		return runtime.Waiting(HookPostBriefing, "no GitHub integration is configured, so the reviewer briefing cannot be posted (integrations.github)"), nil
	}
	var posted []string
	for _, t := range ts {
		act, err := UpsertBriefing(hc.Context, p, t.ref, filled, hc.Config.Routing.SelfLogins)
		var render *RenderError
		switch {
		case errors.As(err, &render):
			return runtime.Blocked(HookPostBriefing, runtime.Errorf(path, "%s", render.Error())), nil
		case err != nil:
			return runtime.Waiting(HookPostBriefing, fmt.Sprintf("the reviewer briefing could not be posted on %s (%v); it is posted again on the next evaluation", t.name, err)), nil
		}
		posted = append(posted, fmt.Sprintf("%s (%s)", t.name, act))
	}
	return runtime.OK(HookPostBriefing, map[string]any{"posted": posted}), nil
}

// RenderError is a briefing the template refuses: the writer must fix it.
type RenderError struct{ err error }

func (e *RenderError) Error() string { return e.err.Error() }
func (e *RenderError) Unwrap() error { return e.err }

// UpsertBriefing renders filled for the current head of pull request ref
// and keeps it as the loop's one briefing comment there. A briefing the
// template refuses is a *RenderError.
func UpsertBriefing(ctx context.Context, p integrations.Provider, ref integrations.Ref, filled string, selfLogins []string) (integrations.UpsertAction, error) {
	pr, err := p.GetPullRequest(ctx, ref.Owner, ref.Repo, ref.Number)
	if err != nil {
		return "", err
	}
	body, err := shipready.RenderBriefing(shipready.BriefingInput{Template: skills.PRBriefingTemplate, Filled: filled, PullRequest: pr})
	if err != nil {
		return "", &RenderError{err}
	}
	_, act, err := integrations.UpsertComment(ctx, p, ref, shipready.BriefingKey, body, selfLogins)
	return act, err
}

// readBriefing reads pr-briefing.md from the spec folder.
func readBriefing(hc *runtime.HookContext) (string, bool, error) {
	d, err := specdir.Open(hc)
	if err != nil {
		return "", false, err
	}
	defer d.Close()
	if !d.Present(BriefingFile) {
		return "", false, nil
	}
	text, err := d.Read(BriefingFile)
	if err != nil {
		return "", false, fmt.Errorf("read %s: %w", BriefingFile, err)
	}
	return text, true, nil
}
