package ship

import (
	"fmt"
	"slices"
	"strings"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/specdir"
	"github.com/the-loop/the-loop/runtime/shipready"
)

// HookReadyToShip reads GitHub for each pull request's head commit and
// passes only when every one is ready to ship.
const HookReadyToShip = "ready-to-ship"

// ReadyToShip is the ready-to-ship gate: for each pull request the node
// answers for (an inner loop's own; every linked one of the work item) it
// reads the pull request, the checks of its head commit, its review
// threads, its conversation (the loop's own reviewer briefing) and its
// changed files, adds evidence/documentation.md, and passes only when
// shipready.Evaluate passes for every one. Something still running or not
// yet read waits; something that needs work blocks, naming it.
//
// With param atGate (an approval gate, after classify-feedback) it never
// blocks — the gate stays open with the same messages — and a chain whose
// earlier result is not an approval (changes requested) is not held.
//
// Check reads no network: there it passes only on the signed record of an
// earlier pass on this node (which pull requests, which head commits,
// when), and otherwise is not satisfied, saying why.
func ReadyToShip(hc *runtime.HookContext) (runtime.Result, error) {
	if hc.BoolParam("atGate") && !approving(hc.Results) {
		r := runtime.Skipped(HookReadyToShip, "the gate's answer is not an approval: nothing ships")
		if !hc.ReadOnly {
			if fr := reviewRound(hc); fr != nil {
				r.Data = map[string]any{runtime.DataFixRound: fr}
			}
		}
		return r, nil
	}
	if hc.ReadOnly {
		return recorded(hc), nil
	}
	ts, why := targets(hc)
	if ts == nil {
		return hold(hc, runtime.Waiting(HookReadyToShip, why)), nil
	}
	p := host(hc)
	if p == nil {
		return hold(hc, runtime.Waiting(HookReadyToShip, "no GitHub integration is configured, so the pull requests cannot be read (integrations.github); ready to ship stays unmet")), nil
	}
	docs, err := readDocs(hc)
	if err != nil {
		return runtime.Result{}, err
	}
	snaps := make([]shipready.Snapshot, len(ts))
	for i, t := range ts {
		s, err := snapshot(hc, p, t)
		if err != nil {
			return hold(hc, runtime.Waiting(HookReadyToShip, fmt.Sprintf("could not read %s from GitHub (%v); ready to ship stays unmet until it can be read", t.name, err))), nil
		}
		snaps[i] = s
		docs.ChangedFiles = append(docs.ChangedFiles, s.Docs.ChangedFiles...)
	}
	if len(ts) > 1 {
		names := make([]string, len(ts))
		for i, t := range ts {
			names[i] = t.name
		}
		docs.Scope = fmt.Sprintf("the change of %s (%s)", hc.WorkItem.ID, strings.Join(names, ", "))
	}
	verdict, msgs, heads := shipready.Pass, []string{}, []any{}
	readings := make([]reading, len(ts))
	for i, t := range ts {
		readings[i] = reading{t: t, snap: snaps[i]}
		snaps[i].Docs = docs
		res := shipready.Evaluate(snaps[i])
		verdict = worse(verdict, res.Verdict)
		for _, m := range res.Messages() {
			m = prefix(ts, t) + m
			if !slices.Contains(msgs, m) {
				msgs = append(msgs, m)
			}
		}
		heads = append(heads, t.name+"@"+snaps[i].PullRequest.HeadSHA)
	}
	if verdict != shipready.Pass {
		if res, ok := sendBack(hc, p, readings, msgs); ok {
			return res, nil
		}
	}
	switch verdict {
	case shipready.Pass:
		d := &runtime.Decision{Kind: runtime.KindReadyToShip, Via: "github", By: "the-loop", At: runtime.Now(), Data: map[string]any{"pullRequests": heads}}
		return runtime.OK(HookReadyToShip, map[string]any{"readyToShip": d, "pullRequests": heads}), nil
	case shipready.Wait:
		return hold(hc, waiting(msgs)), nil
	}
	return hold(hc, blocked(msgs)), nil
}

// snapshot reads what shipready evaluates of one pull request.
func snapshot(hc *runtime.HookContext, p integrations.Provider, t target) (shipready.Snapshot, error) {
	ctx, r := hc.Context, t.ref
	pr, err := p.GetPullRequest(ctx, r.Owner, r.Repo, r.Number)
	if err != nil {
		return shipready.Snapshot{}, err
	}
	s := shipready.Snapshot{PullRequest: pr}
	if cr, ok := p.(integrations.CheckReader); ok && pr.HeadSHA != "" {
		if s.Checks, err = cr.ReadChecks(ctx, r.Owner, r.Repo, pr.HeadSHA); err != nil {
			return s, err
		}
	}
	if tl, ok := p.(integrations.ReviewThreadLister); ok {
		if s.Threads, err = tl.ListReviewThreads(ctx, r.Owner, r.Repo, r.Number); err != nil {
			return s, err
		}
		s.ThreadsRead = true
	}
	comments, err := p.ListComments(ctx, r)
	if err != nil {
		return s, err
	}
	s.Briefing = shipready.FindBriefing(comments, hc.Config.Routing.SelfLogins)
	if fl, ok := p.(integrations.PullRequestFileLister); ok {
		if s.Docs.ChangedFiles, err = fl.ListPullRequestFiles(ctx, r.Owner, r.Repo, r.Number); err != nil {
			return s, err
		}
		s.Docs.FilesRead = true
	}
	return s, nil
}

// readDocs reads evidence/documentation.md from the spec folder.
func readDocs(hc *runtime.HookContext) (shipready.DocsEvidence, error) {
	docs := shipready.DocsEvidence{RecordPath: hc.RelSpecDir + "/" + shipready.DocumentationRecord, FilesRead: true}
	d, err := specdir.Open(hc)
	if err != nil {
		return docs, err
	}
	defer d.Close()
	if d.Present(shipready.DocumentationRecord) {
		text, err := d.Read(shipready.DocumentationRecord)
		if err != nil {
			return docs, fmt.Errorf("read %s: %w", shipready.DocumentationRecord, err)
		}
		docs.Record, docs.RecordFound = text, true
	}
	return docs, nil
}

// recorded is the verdict under check: the signed record of an earlier
// pass, or not satisfied.
func recorded(hc *runtime.HookContext) runtime.Result {
	if hc.State != nil {
		if d := hc.State.ReadyToShip[hc.NodeID()]; d != nil {
			heads := []string{}
			if list, ok := d.Data["pullRequests"].([]any); ok {
				for _, e := range list {
					heads = append(heads, shortHead(fmt.Sprint(e)))
				}
			}
			return runtime.Result{Status: runtime.Pass, Hook: HookReadyToShip, Retriable: true, Data: map[string]any{"recorded": true},
				Messages: []runtime.Message{{Severity: runtime.SevInfo, Text: fmt.Sprintf("ready to ship as read from GitHub at %s: %s (check reads no network; the loop reads GitHub again on every push)",
					d.At, strings.Join(heads, ", "))}}}
		}
	}
	return runtime.Waiting(HookReadyToShip, "ready to ship is not verified: check reads no network, and no verified reading of GitHub is recorded for this node; "+
		"the loop records one when every pull request's checks are green, its review threads are resolved, its reviewer briefing is current and the capability docs are folded in")
}

// shortHead turns OWNER/REPO#N@SHA into OWNER/REPO#N at SHA7.
func shortHead(s string) string {
	name, sha, ok := strings.Cut(s, "@")
	if !ok {
		return s
	}
	if len(sha) > 7 {
		sha = sha[:7]
	}
	return name + " at " + sha
}

// approving reports whether the chain so far is an approval (or decides
// nothing yet).
func approving(results []runtime.Result) bool {
	for i := len(results) - 1; i >= 0; i-- {
		if o, ok := results[i].Data["outcome"].(string); ok && o != "" {
			return o == runtime.OutcomeApproved || o == runtime.OutcomeApprovedWithComments || o == string(runtime.Pass)
		}
	}
	return true
}

// hold turns a block into a wait at an approval gate (atGate): the gate
// stays open, saying what is not ready, and never escalates for it.
func hold(hc *runtime.HookContext, r runtime.Result) runtime.Result {
	if hc.BoolParam("atGate") && r.Status == runtime.Block {
		r.Status = runtime.Wait
		for i := range r.Messages {
			r.Messages[i].Severity = runtime.SevInfo
		}
	}
	return r
}

func waiting(msgs []string) runtime.Result {
	r := runtime.Waiting(HookReadyToShip, "")
	for _, m := range msgs {
		r.Messages = append(r.Messages, runtime.Message{Text: m, Severity: runtime.SevInfo})
	}
	return r
}

func blocked(msgs []string) runtime.Result {
	var ms []runtime.Message
	for _, m := range msgs {
		ms = append(ms, runtime.Errorf("", "%s", m))
	}
	return runtime.Blocked(HookReadyToShip, ms...)
}

func worse(a, b shipready.Verdict) shipready.Verdict {
	rank := map[shipready.Verdict]int{shipready.Pass: 0, shipready.Wait: 1, shipready.Block: 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}
