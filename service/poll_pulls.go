package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/authz"
	"github.com/the-loop/the-loop/runtime/checklist"
	"github.com/the-loop/the-loop/runtime/control"
	"github.com/the-loop/the-loop/runtime/hooks/ship"
	"github.com/the-loop/the-loop/runtime/shipready"
)

// readSpecFile reads name from the spec folder dir, confined to it.
func readSpecFile(dir, name string) (string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	return string(b), err
}

// pollPulls is the pull-request step of one watched GitHub repository. It
// lists the open pull requests once (conditionally: an unchanged listing
// is a free 304) and, for each one linked to a work item: reads its checks
// when its head moved or they were not final last cycle; when its head or
// updated time moved or its checks changed, keeps its reviewer briefing
// current and evaluates its loop with its conversation, reviews and review
// comments; and marks its work item touched, so a node of it parked on
// ready-to-ship is evaluated this cycle. A linked pull request that left
// the listing is read once: merged, its loop completes (by an authorized
// merger) or escalates; closed, its loop is abandoned. A pull request
// armed with `the-loop review` by an authorized person walks the review
// loop as work item pr-<n>. A started issue that left the issue listing
// closed goes to cleanup, unless a linked pull request merged (its
// `Closes` line closed it): that one is polled on.
func (p *Poller) pollPulls(ctx context.Context, src config.Source, container string, prov integrations.Provider, issues []integrations.Issue, counted map[int]integrations.Issue) []ItemAction {
	lister, ok := prov.(integrations.PullRequestLister)
	if src.System != "github" || !ok {
		return nil
	}
	owner, name, _ := strings.Cut(container, "/")
	open, err := lister.ListPullRequests(ctx, integrations.PullRequestQuery{Owner: owner, Repo: name, State: "open"})
	if err != nil {
		return []ItemAction{{WorkItem: container, Action: "error", Detail: fmt.Sprintf("list open pull requests: %v", err)}}
	}
	idx := p.pullIndexFor(ctx)
	asIssues := make([]integrations.Issue, len(open))
	for i, pr := range open {
		asIssues[i] = integrations.Issue{Number: pr.Number}
	}
	p.pulls.comments.keepOnly(memoScope{src.System, container}, asIssues)
	var acts []ItemAction
	listed := map[int]bool{}
	for _, pr := range open {
		listed[pr.Number] = true
		// One conditional listing of the conversation, when the pull
		// request moved, serves the briefing and the review command.
		refStr := fmt.Sprintf("github:%s#%d", container, pr.Number)
		ref, _ := runtime.ParseTicketRef(refStr)
		// The issue listing counts the pull request's conversation; a pull
		// request it did not hold is listed again each cycle.
		comments, cerr := p.pulls.comments.comments(ctx, prov, memoScope{src.System, container}, refStr, ref, counted[pr.Number], p.Svc.now())
		if cerr != nil {
			acts = append(acts, ItemAction{WorkItem: fmt.Sprintf("pr-%d", pr.Number), Ref: refStr, Action: "error", Detail: fmt.Sprintf("list comments: %v", cerr)})
			continue
		}
		acts = append(acts, p.routePull(ctx, prov, container, pr, idx.byPull[pullKey(container, pr.Number)], comments)...)
		if act, ok := p.pollReview(ctx, src, container, pr, comments); ok {
			acts = append(acts, act)
		}
	}
	for key, owners := range idx.byPull {
		if !strings.HasPrefix(key, strings.ToLower(container)+"#") || owners[0].link.State != runtime.PullOpen || listed[owners[0].link.Number] {
			continue
		}
		pr, err := prov.GetPullRequest(ctx, owner, name, owners[0].link.Number)
		if err != nil {
			for _, o := range owners {
				act := failed(ItemAction{WorkItem: o.id, Ref: pullRef(o.link)}, fmt.Errorf("read %s: %w", o.link.Key(), err))
				act.linked = &o
				acts = append(acts, act)
			}
			continue
		}
		acts = append(acts, p.routePull(ctx, prov, container, pr, owners, nil)...)
	}
	return append(acts, p.closedItems(ctx, prov, src, container, issues, idx)...)
}

// routePull delivers what moved on pr to the loops of the items it is
// linked to; comments is its conversation when the caller read it (nil:
// read it when needed).
func (p *Poller) routePull(ctx context.Context, prov integrations.Provider, container string, pr integrations.PullRequest, owners []pullOwner, comments []integrations.Comment) []ItemAction {
	if len(owners) == 0 {
		return nil
	}
	key := pullKey(container, pr.Number)
	seen, known := p.pulls.get(key)
	moved := !known || seen.head != pr.HeadSHA || !seen.updated.Equal(pr.UpdatedAt)
	checksMoved := false
	if cr, ok := prov.(integrations.CheckReader); ok && pr.State == "open" && pr.HeadSHA != "" &&
		(moved || seen.checks != integrations.ChecksGreen && seen.checks != integrations.ChecksFailing) {
		if checks, err := cr.ReadChecks(ctx, pr.Owner, pr.Repo, pr.HeadSHA); err == nil {
			checksMoved = checks.Verdict != seen.checks
			seen.checks = checks.Verdict
		}
	}
	seen.head, seen.updated = pr.HeadSHA, pr.UpdatedAt
	p.pulls.put(key, seen)
	changed := moved || checksMoved || pr.State != "open"
	var acts []ItemAction
	for _, o := range owners {
		if !p.holds(ctx, o.ref) {
			continue // another poller works that item
		}
		if changed {
			p.pulls.touch(o.checkout, o.id)
		} else if !p.innerDue(ctx, o) {
			continue
		}
		act := p.deliverPull(ctx, prov, o, pr, moved, comments)
		act.linked = &o
		acts = append(acts, act)
	}
	return acts
}

// innerDue says whether the loop of a pull request nothing moved on is
// read again this cycle: parked on ready-to-ship, ReadyRecheck after it
// was last read (a resolved review thread moves nothing GitHub lists).
func (p *Poller) innerDue(ctx context.Context, o pullOwner) bool {
	if o.link.InnerLoop == "" || o.link.State != runtime.PullOpen {
		return false
	}
	inner, err := p.Svc.openInner(ctx, o.repo, o.id, o.link)
	if err != nil {
		return false
	}
	n, ok := inner.rt.Graph.Node(inner.state.CurrentNode)
	return ok && p.pulls.due(o.checkout, o.id+"/"+o.link.InnerLoop, n, inner.state, p.Svc.now())
}

// deliverPull routes one pull request's news to one linked item.
func (p *Poller) deliverPull(ctx context.Context, prov integrations.Provider, o pullOwner, pr integrations.PullRequest, moved bool, comments []integrations.Comment) ItemAction {
	act := ItemAction{WorkItem: o.id, Ref: pullRef(o.link), Action: "pull-request"}
	svc := p.Svc
	outer, err := svc.open(ctx, o.repo, o.id, "")
	if err != nil {
		return failed(act, err)
	}
	if pr.State != "open" {
		return p.committed(ctx, o, outer, func() ItemAction { return p.pullEnded(ctx, outer, o, pr, act) }, nil)
	}
	if h := runtime.Held(svc.cfg, outer.state); h != nil {
		act.Action, act.Detail = "paused", h.Error() // its pull requests' gates wait with it
		return act
	}
	if moved {
		if w := p.refreshBriefing(ctx, prov, outer, o, pr, comments); w != "" {
			act.Detail = w
		}
	}
	if o.link.InnerLoop == "" {
		act.Action = "touched"
		return act
	}
	inner, err := svc.openInner(ctx, o.repo, o.id, o.link)
	if err != nil {
		return failed(act, err)
	}
	node, ok := inner.rt.Graph.Node(inner.state.CurrentNode)
	act.Node = inner.state.CurrentNode
	if !ok || node.Terminal || !(node.IsHuman() || inner.state.Parked != nil && inner.state.Parked.Node == node.ID) {
		act.Action = "idle"
		return act
	}
	ev, err := pullEvent(ctx, prov, integrations.Ref{System: "github", Owner: pr.Owner, Repo: pr.Repo, Number: pr.Number})
	if err != nil {
		return failed(act, fmt.Errorf("read %s: %w", o.link.Key(), err))
	}
	p.pulls.read(o.checkout, o.id+"/"+o.link.InnerLoop, inner.state, p.Svc.now())
	return p.committed(ctx, o, outer, func() ItemAction {
		rep, err := inner.rt.Advance(ctx, o.id, ev)
		if err != nil {
			return failed(act, err)
		}
		act.Action, act.Node, act.Status, act.Detail = "gate", rep.Node, rep.Status, strings.Join(rep.Messages, "; ")
		return act
	}, waitedInPlace(inner.state))
}

// pullEnded records that a linked pull request merged or closed: its loop
// completes on a merge by an authorized person (escalates on anyone
// else's) and is abandoned on a close.
func (p *Poller) pullEnded(ctx context.Context, outer *session, o pullOwner, pr integrations.PullRequest, act ItemAction) ItemAction {
	state := runtime.PullClosed
	if pr.Merged {
		state = runtime.PullMerged
	}
	if err := outer.rt.SetPullState(ctx, o.id, o.link.Repo, o.link.Number, state); err != nil {
		return failed(act, err)
	}
	act.Action = state
	if o.link.InnerLoop == "" {
		return act
	}
	inner, err := p.Svc.openInner(ctx, o.repo, o.id, o.link)
	if err != nil {
		return failed(act, err)
	}
	if !pr.Merged {
		why := fmt.Sprintf("pull request %s was closed without merging: reopen it, or open another with `the-loop pr create --work-item %s`", o.link.Key(), o.id)
		if _, err := inner.rt.Abandon(ctx, o.id, why); err != nil {
			act = failed(act, err)
		}
		act.Node = "escalated"
		return act
	}
	res, err := inner.rt.FinishOnMerge(ctx, o.id, pr.MergedBy, pr.URL, authz.IsAuthorized(p.Svc.cfg, pr.MergedBy))
	if err != nil {
		return failed(act, err)
	}
	act.Node, act.Detail = res.Node, res.Reason
	return act
}

// refreshBriefing keeps the reviewer briefing on pr current after a push,
// once the loop has posted one there; it returns a warning, or "".
func (p *Poller) refreshBriefing(ctx context.Context, prov integrations.Provider, outer *session, o pullOwner, pr integrations.PullRequest, comments []integrations.Comment) string {
	ref := integrations.Ref{System: "github", Owner: pr.Owner, Repo: pr.Repo, Number: pr.Number}
	if comments == nil {
		var err error
		if comments, err = prov.ListComments(ctx, ref); err != nil {
			return fmt.Sprintf("the reviewer briefing was not refreshed: %v", err)
		}
	}
	b := shipready.FindBriefing(comments, p.Svc.cfg.Routing.SelfLogins)
	if !b.Posted || b.HeadSHA == pr.HeadSHA {
		return ""
	}
	filled, err := readSpecFile(outer.repo.SpecDir(o.id), ship.BriefingFile)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("the reviewer briefing on %s describes an older head and %s is gone; write it again", o.link.Key(), ship.BriefingFile)
	}
	if err != nil {
		return fmt.Sprintf("the reviewer briefing was not refreshed: %v", err)
	}
	if _, err := ship.UpsertBriefing(ctx, prov, ref, filled, p.Svc.cfg.Routing.SelfLogins); err != nil {
		return fmt.Sprintf("the reviewer briefing on %s was not refreshed: %v", o.link.Key(), err)
	}
	return ""
}

// pollReview runs the review loop of pull request pr of the source's own
// repository: armed by an authorized `the-loop review` on its
// conversation, walked as work item pr-<n>. Anything else said on a pull
// request arms nothing.
func (p *Poller) pollReview(ctx context.Context, src config.Source, container string, pr integrations.PullRequest, comments []integrations.Comment) (ItemAction, bool) {
	id := fmt.Sprintf("pr-%d", pr.Number)
	refStr := fmt.Sprintf("github:%s#%d", container, pr.Number)
	ref, _ := runtime.ParseTicketRef(refStr)
	is := integrations.Issue{Ref: ref, Number: pr.Number, Author: pr.Author, UpdatedAt: pr.UpdatedAt}
	last, by := p.lastCommand(config.Source{System: src.System, Checkout: src.Checkout}, is, comments)
	sess, err := p.Svc.open(ctx, src.Checkout, id, control.LoopReview)
	if err != nil {
		return ItemAction{WorkItem: id, Ref: refStr, Action: "error", Detail: err.Error()}, true
	}
	act := ItemAction{WorkItem: id, Ref: refStr, Action: "none"}
	held := false
	if sess.state.CurrentNode != "" {
		if held, err = p.Svc.applyControl(ctx, sess, id, last, by); err != nil {
			act.Action, act.Detail = "error", err.Error()
			return act, true
		}
	}
	if sess.state.CurrentNode != "" || last == control.Review {
		if _, mine, why := p.takeItem(ctx, refStr); !mine {
			act.Action, act.Detail = ActionElsewhere, why
			return act, true
		}
	}
	switch {
	case sess.state.CurrentNode == "" && last != control.Review:
		return act, false // not armed for review: the pull request is someone's code, not a work item
	case sess.state.CurrentNode == "":
		res, err := p.arm(ctx, is, StartRequest{ItemRequest: ItemRequest{Repo: src.Checkout, WorkItem: id}, Loop: control.LoopReview, Ref: refStr}, comments)
		if err != nil {
			act.Action, act.Detail = "error", err.Error()
			return act, true
		}
		act.Action, act.Node = "started", res.Node
		if sess, err = p.Svc.open(ctx, src.Checkout, id, ""); err != nil {
			return act, true
		}
	case held || last == control.Pause || last == control.Stop:
		act.Action = "paused"
		if h := runtime.Held(p.Svc.cfg, sess.state); h != nil {
			act.Detail = h.Error()
		}
		return act, true
	case last == control.Cleanup:
		if moved, err := sess.rt.Cleanup(ctx, id, "the-loop cleanup"); err == nil && moved {
			act.Action = "cleaned"
		}
		return act, true
	}
	node, _ := sess.rt.Graph.Node(sess.state.CurrentNode)
	return evaluateGate(ctx, sess, id, comments, act, p.pulls.due(src.Checkout, id, node, sess.state, p.Svc.now())), true
}

// withSurface adds to the comments an outer item's gates read those of the
// pull request its artifacts are iterated on (outer-loop-on-pull-request
// ticked at phase selection): its conversation, reviews and review
// comments. Any other item reads its ticket alone.
func withSurface(ctx context.Context, sess *session, comments []integrations.Comment) []integrations.Comment {
	view := sess.rt.Trusted(sess.state, false)
	if surfaceOf(view.State) != checklist.SurfacePullRequest || sess.rt.CodeHost == nil {
		return comments
	}
	for _, l := range sess.state.PullRequests {
		if !l.Surface || l.State != runtime.PullOpen {
			continue
		}
		owner, name, _ := strings.Cut(l.Repo, "/")
		ev, err := pullEvent(ctx, sess.rt.CodeHost, integrations.Ref{System: "github", Owner: owner, Repo: name, Number: l.Number})
		if err != nil {
			continue // the ticket's comments still answer; the pull request's are read next cycle
		}
		comments = append(slices.Clone(comments), ev.Comments...)
		slices.SortStableFunc(comments, func(a, b integrations.Comment) int { return a.CreatedAt.Compare(b.CreatedAt) })
	}
	return comments
}
