package service

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/runtime"
)

// innerLoop is one open pull request's loop of an item, as a cycle reads
// it.
type innerLoop struct {
	link runtime.PullRequestLink
	sess *session
}

// innerLoops opens the loops of the item's open pull requests that walk
// one, in the order they were linked.
func (p *Poller) innerLoops(ctx context.Context, sess *session, id string) []innerLoop {
	var out []innerLoop
	for _, l := range sess.state.PullRequests {
		if l.InnerLoop == "" || l.State != runtime.PullOpen {
			continue
		}
		in, err := p.Svc.openInner(ctx, sess.repo.Root, id, *l)
		if err != nil {
			p.log().Warn("could not read a pull request's loop", "workItem", id, "pullRequest", l.Key(), "err", err)
			continue
		}
		out = append(out, innerLoop{link: *l, sess: in})
	}
	return out
}

// hasPending reports work a session's server left to the poller on the
// item: its own entry chain, a pull request it asked for, or the entry
// chain of one of its pull requests' loops.
func hasPending(sess *session, loops []innerLoop) bool {
	if sess.state.EntryPending != "" || len(sess.state.PullAsks) > 0 {
		return true
	}
	for _, l := range loops {
		if l.sess.state.EntryPending != "" {
			return true
		}
	}
	return false
}

// runPulls does what sessions left on the item's pull requests: it opens
// the pull requests they asked for (starting their loops) and runs the
// entry chains their claims left on those loops. It names what it wrote
// ("" when nothing).
func (p *Poller) runPulls(ctx context.Context, sess *session, id string, loops []innerLoop) string {
	var wrote []string
	for _, ask := range append([]*runtime.PullAsk(nil), sess.state.PullAsks...) {
		if w := p.openAsked(ctx, sess, id, *ask); w != "" {
			wrote = append(wrote, w)
		}
	}
	for _, l := range loops {
		if l.sess.state.EntryPending == "" {
			continue
		}
		ran, msgs, err := l.sess.rt.RunPendingEntry(ctx, id)
		if err != nil {
			p.log().Warn("could not run a pull request loop's entry chain", "workItem", id, "pullRequest", l.link.Key(), "err", err)
			continue
		}
		for _, m := range msgs {
			p.log().Warn("entry chain degraded", "workItem", id, "pullRequest", l.link.Key(), "node", ran, "message", m)
		}
		if ran != "" {
			wrote = append(wrote, l.link.Key()+" "+ran)
		}
	}
	return strings.Join(wrote, ", ")
}

// openAsked opens (or adopts) the pull request a session asked for, as the
// session's actor. A request the core refuses for its arguments is
// settled with the reason; anything else (GitHub unreachable) is tried
// again next cycle.
func (p *Poller) openAsked(ctx context.Context, sess *session, id string, ask runtime.PullAsk) string {
	res, err := p.Svc.PRCreate(ctx, PRCreateRequest{ItemRequest: ItemRequest{Repo: sess.repo.Root, WorkItem: id},
		Repository: ask.Repo, Base: ask.Base, Draft: ask.Draft, Actor: ask.By})
	switch {
	case errors.Is(err, ErrInvalidRequest):
		p.log().Warn("a session asked for a pull request the loop cannot open", "workItem", id, "repository", ask.Repo, "err", err)
		if serr := sess.rt.SettlePullAsk(ctx, id, ask.Repo, err.Error()); serr != nil {
			p.log().Warn("could not settle a pull request ask", "workItem", id, "err", serr)
		}
		return "pull request ask refused"
	case err != nil:
		p.log().Warn("could not open the pull request a session asked for; trying again next cycle", "workItem", id, "repository", ask.Repo, "err", err)
		return ""
	}
	for _, w := range res.Warnings {
		p.log().Warn("pull request opened with a warning", "workItem", id, "pullRequest", res.PullRequest.Key(), "warning", w)
	}
	if err := sess.rt.SettlePullAsk(ctx, id, ask.Repo, ""); err != nil {
		p.log().Warn("could not settle a pull request ask", "workItem", id, "err", err)
	}
	return fmt.Sprintf("pull request %s linked", res.PullRequest.Key())
}
