package service

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
)

// closedItems handles the started items of container that left the open
// issue listing: a closed one goes to cleanup (the stop check no longer
// holds on it) unless a linked pull request merged — its `Closes` line
// closed it, and the walk goes on (the item is polled as if listed).
func (p *Poller) closedItems(ctx context.Context, prov integrations.Provider, src config.Source, container string, issues []integrations.Issue, idx *pullIndex) []ItemAction {
	listed := map[string]bool{}
	for _, is := range issues {
		_, ref := itemFor(src.System, container, is)
		listed[ref] = true
	}
	var acts []ItemAction
	for _, it := range idx.items {
		ref, err := runtime.ParseTicketRef(it.ref)
		if it.checkout != src.Checkout || it.terminal || listed[it.ref] || err != nil || ref.System != "github" || !runtime.SameRepo(ref.Owner+"/"+ref.Repo, container) {
			continue
		}
		if !p.holds(ctx, it.ref) {
			continue // another poller works it
		}
		is, err := prov.GetIssue(ctx, ref)
		if err != nil {
			acts = append(acts, ItemAction{WorkItem: it.id, Ref: it.ref, Action: "error", Detail: fmt.Sprintf("read %s: %v", it.ref, err)})
			continue
		}
		if is.State != "closed" {
			continue
		}
		act := ItemAction{WorkItem: it.id, Ref: it.ref, Action: "none"}
		sess, err := p.Svc.open(ctx, it.repo, it.id, "")
		if err == nil && anyMerged(sess.state) {
			acts = append(acts, p.pollIssue(ctx, prov, src, container, is))
			continue
		}
		if err != nil {
			act.Action, act.Detail = "error", err.Error()
			acts = append(acts, act)
			continue
		}
		polled := p.ownerItem(ctx, it.checkout, it.container, it.id, it.ref)
		if polled == nil {
			polled = &polledItem{prov: prov, src: src, container: container, id: it.id, ref: ref}
		}
		if act = p.cleanup(ctx, polled, sess, act, it.ref+" was closed"); act.Action == "cleaned" {
			act.Node = "cleanup"
		}
		acts = append(acts, act)
	}
	return acts
}

// anyMerged reports a linked pull request that merged.
func anyMerged(st *runtime.State) bool {
	for _, l := range st.PullRequests {
		if l.State == runtime.PullMerged {
			return true
		}
	}
	return false
}

// pollLinkedElsewhere follows the linked pull requests of repositories no
// source watches (a contributing repository the loop tracks no issues in):
// one conditional read of each open one per cycle, routed like a listed
// pull request. It reports as a source of its own, or nil when there is
// nothing to follow.
func (p *Poller) pollLinkedElsewhere(ctx context.Context) *SourceReport {
	watched := map[string]bool{}
	for _, src := range p.Sources {
		if src.System == "github" {
			for _, c := range src.Repos {
				watched[strings.ToLower(c)] = true
			}
		}
	}
	idx := p.pullIndexFor(ctx)
	var keys []string
	for key, owners := range idx.byPull {
		repo, _, _ := strings.Cut(key, "#")
		if !watched[repo] && owners[0].link.State == runtime.PullOpen {
			keys = append(keys, key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	sort.Strings(keys)
	sr := &SourceReport{System: "github", Container: "linked pull requests", Items: []ItemAction{}}
	prov, err := p.Svc.Provider("github")
	if err != nil {
		sr.Error = err.Error()
		return sr
	}
	for _, key := range keys {
		owners := idx.byPull[key]
		l := owners[0].link
		owner, name, _ := strings.Cut(l.Repo, "/")
		pr, err := prov.GetPullRequest(ctx, owner, name, l.Number)
		if err != nil {
			sr.Items = append(sr.Items, ItemAction{WorkItem: owners[0].id, Ref: pullRef(l), Action: "error", Detail: fmt.Sprintf("read %s: %v", l.Key(), err)})
			continue
		}
		sr.Items = append(sr.Items, p.routePull(ctx, prov, l.Repo, pr, owners, nil)...)
	}
	return sr
}
