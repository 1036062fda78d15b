package sessions

import (
	"fmt"
	"time"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/store"
)

// The limits: what stops a live session (its item left its node, the time
// limit, a budget passed) and what refuses a launch (the holds an item's
// sessions earn: relaunches spent, a budget passed, a harness whose
// figures the budget cannot measure).

// police stops sessions that are no longer wanted, ran past the time
// limit, or took their item over its budget.
func (c *cycle) police() {
	s := c.s
	for key, l := range s.live {
		if l.end != nil {
			continue // ended; its record is written by reap
		}
		if err := l.readUsage(); err != nil {
			c.errs = append(c.errs, fmt.Errorf("sessions: read transcript of %s: %w", l.rec.ID, err))
		}
		if l.usageChanged() {
			u := l.usage()
			if err := s.d.Store.UpdateSessionUsage(c.ctx, l.rec.ID, recorded(u)); err != nil {
				c.errs = append(c.errs, fmt.Errorf("sessions: record usage of %s: %w", l.rec.ID, err))
			} else {
				l.saved = u
			}
		}
		if l.stopState != "" {
			continue
		}
		w, wanted := c.wants[key]
		elapsed := c.now.Sub(l.rec.StartedAt)
		if !wanted || w.work() != recWork(l.rec) {
			// The node is done (or the item moved): the session may wrap up
			// for a while, then it is stopped.
			if l.leftAt.IsZero() {
				l.leftAt = c.now
			}
			if c.now.Sub(l.leftAt) >= s.cfg.Drain() {
				reason := "the item no longer stands on an agent node"
				if wanted {
					reason = fmt.Sprintf("the item moved from %s to %s", recWork(l.rec), w.work())
				}
				l.stop(store.SessionStopped, reason, s.cfg.StopGrace())
			}
			continue
		}
		l.leftAt = time.Time{}
		switch {
		case s.cfg.TimeLimitSeconds > 0 && elapsed >= s.cfg.TimeLimit():
			reason := fmt.Sprintf("ran %s, past the time limit of %s", elapsed.Round(1e9), s.cfg.TimeLimit())
			l.stop(store.SessionTimedOut, reason, s.cfg.StopGrace())
			c.append(l.rec.Repo, l.rec.WorkItem, event("session.timed_out", l.rec.Node, map[string]any{
				"session": l.rec.ID, "elapsedSeconds": int(elapsed.Seconds()), "limitSeconds": s.cfg.TimeLimitSeconds}))
		default:
			c.checkBudget(key, l)
		}
	}
}

// holdItem refuses further launches for w's key and escalates it, with
// what the item (its pull requests included) has spent.
func (c *cycle) holdItem(it *itemState, w Want, reason string, nodeScoped bool) store.Event {
	return c.holdSpent(it, w, reason, nodeScoped, Figures{})
}

// holdSpent is holdItem reporting extra on top of the recorded spend (a
// live session's figures, added to the record when it ends).
func (c *cycle) holdSpent(it *itemState, w Want, reason string, nodeScoped bool, extra Figures) store.Event {
	it.hold, it.holdNode, it.notified = reason, nodeScoped, true
	var spent Figures
	if f, err := c.spent(w.Repo, w.WorkItem); err == nil {
		spent = *f
	}
	spent = spent.add(extra)
	c.rep.Escalations = append(c.rep.Escalations, Escalation{Repo: w.Repo, WorkItem: w.WorkItem, Node: w.Node, PR: w.PR, PRRepo: w.PRRepo, Own: w.Own,
		Reason: reason, Launches: it.launches, LastExit: it.lastExit, Spent: spent, Budget: c.s.cfg.Budget})
	c.s.d.Log.Warn("session escalated", "repo", w.Repo, "workItem", w.WorkItem, "node", w.work(), "reason", reason)
	data := map[string]any{"reason": reason, "launches": it.launches, "lastExit": it.lastExit,
		"turns": spent.Turns, "tokens": spent.Tokens, "costUsd": spent.CostUSD, "wallSeconds": int(spent.WallSeconds)}
	if spent.UnknownCost > 0 {
		data["unknownCost"] = spent.UnknownCost
	}
	if w.PR > 0 {
		data["pullRequest"] = fmt.Sprintf("%s#%d", w.PRRepo, w.PR)
	}
	return event("session.refused", w.Node, data)
}

// checkBudget stops a session whose item has spent more than its budget
// (its pull requests' sessions count towards the same budget), or whose
// repository has spent more than the repository's budget in its window.
func (c *cycle) checkBudget(key itemID, l *live) {
	f, err := c.spent(l.rec.Repo, l.rec.WorkItem)
	if err != nil {
		c.errs = append(c.errs, err)
		return
	}
	live := c.liveFigures(func(o *live) bool {
		return o == l || (o.rec.Repo == l.rec.Repo && o.rec.WorkItem == l.rec.WorkItem && o.stopState == "")
	})
	spent := f.add(live)
	if over := over(c.s.cfg.Budget, spent, false); over != "" {
		reason := fmt.Sprintf("%s %s is over its session budget: %s", l.rec.Repo, l.rec.WorkItem, over)
		l.stop(store.SessionOverBudget, reason, c.s.cfg.StopGrace())
		// The escalation carries the figures including the live sessions;
		// each session's own figures are added to the record when it ends.
		c.append(l.rec.Repo, l.rec.WorkItem, c.holdSpent(c.s.state(key), l.want(), reason, false, live))
		return
	}
	if over := c.repoOver(l.rec.Repo, false); over != "" {
		l.stop(store.SessionOverBudget, over, c.s.cfg.StopGrace())
	}
}

// liveFigures sums what the live sessions keep selects have used so far.
func (c *cycle) liveFigures(keep func(*live) bool) Figures {
	var f Figures
	for _, l := range c.s.live {
		if keep(l) {
			f = f.plus(l.usage(), c.now.Sub(l.rec.StartedAt))
		}
	}
	return f
}

// repoOver says how repo is over the repository budget ("" = it is not,
// or none is set), counting its live sessions; at as for Budget.over.
func (c *cycle) repoOver(repo string, at bool) string {
	b := c.s.cfg.RepositoryBudget
	if !b.Set() {
		return ""
	}
	if c.repoSpent == nil {
		c.repoSpent = map[string]Figures{}
	}
	f, ok := c.repoSpent[repo]
	if !ok {
		since := c.now.Add(-b.Window())
		sp, err := c.s.d.Store.RepoSpend(c.ctx, repo, since)
		if err != nil {
			c.errs = append(c.errs, fmt.Errorf("sessions: read what %s spent: %w", repo, err))
			return fmt.Sprintf("what %s spent could not be read (%v), so no session is launched for it", repo, err) // fail closed
		}
		f = figuresOf(sp).add(c.liveFigures(func(l *live) bool { return l.rec.Repo == repo && l.rec.StartedAt.After(since) }))
		c.repoSpent[repo] = f
	}
	if over := over(b.Budget, f, at); over != "" {
		return fmt.Sprintf("%s is over its repository budget: %s in the last %s", repo, over, b.Window())
	}
	return ""
}

// refused reports (and, once, records) that an item may not be launched.
func (c *cycle) refused(it *itemState, w Want) bool {
	if err := c.s.d.Confiner.Refusal(); err != nil {
		// The host cannot confine a session: nothing is launched, and the
		// item says why, without escalating (the operator fixes the host).
		if !it.confRefused {
			it.confRefused = true
			c.append(w.Repo, w.WorkItem, event("session.refused", w.Node, map[string]any{"reason": err.Error()}))
		}
		c.rep.Held = append(c.rep.Held, Held{Repo: w.Repo, WorkItem: w.WorkItem, Node: w.Node, PR: w.PR, PRRepo: w.PRRepo, Own: w.Own, Reason: err.Error(), Host: true})
		return true
	}
	if it.hold == "" {
		spent := Figures{}
		if f, err := c.spent(w.Repo, w.WorkItem); err == nil {
			spent = *f
		}
		hc, configured := c.s.d.Harnesses[w.Harness]
		m := harness.Measures(w.Harness, hc, harness.EffectiveModel(hc, w.Model))
		if !configured {
			c.append(w.Repo, w.WorkItem, c.holdItem(it, w,
				fmt.Sprintf("harness %q is not configured; add it under harnesses:", w.Harness), true))
		} else if why := firstNonEmpty(unmeasured(c.s.cfg.Budget, m, "sessions.budget"), unmeasured(c.s.cfg.RepositoryBudget.Budget, m, "sessions.repositoryBudget")); why != "" {
			c.append(w.Repo, w.WorkItem, c.holdItem(it, w, "no session is launched that its budget cannot hold: "+why, true))
		} else if over := over(c.s.cfg.Budget, spent, true); over != "" {
			c.append(w.Repo, w.WorkItem, c.holdItem(it, w,
				fmt.Sprintf("%s %s is over its session budget: %s", w.Repo, w.WorkItem, over), false))
		}
	}
	if it.hold == "" {
		over := c.repoOver(w.Repo, true)
		if over == "" {
			it.repoHeld = false
			return false
		}
		// The repository's hold is no escalation: it lifts by itself once
		// the window no longer holds that much spend.
		if !it.repoHeld {
			it.repoHeld = true
			c.append(w.Repo, w.WorkItem, event("session.refused", w.Node, map[string]any{"reason": over, "repositoryBudget": true}))
		}
		c.rep.Held = append(c.rep.Held, Held{Repo: w.Repo, WorkItem: w.WorkItem, Node: w.Node, PR: w.PR, PRRepo: w.PRRepo, Own: w.Own, Reason: over})
		return true
	}
	switch {
	case !it.notified && !it.holdNode:
		c.append(w.Repo, w.WorkItem, c.holdItem(it, w, it.hold, false)) // escalates again, from w's node
	case !it.notified:
		it.notified = true
		c.append(w.Repo, w.WorkItem, event("session.refused", w.Node, map[string]any{"reason": it.hold}))
	}
	c.rep.Held = append(c.rep.Held, Held{Repo: w.Repo, WorkItem: w.WorkItem, Node: w.Node, PR: w.PR, PRRepo: w.PRRepo, Own: w.Own, Reason: it.hold})
	return true
}
