package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/the-loop/the-loop/agents/sessions"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/control"
	"github.com/the-loop/the-loop/store"
)

// Held is the control rule for a caller about to act on a work item that
// is not a claim or an advance (those refuse on their own): it returns the
// *runtime.HoldError (errors.Is runtime.ErrHeld) the act is refused with
// while the item is paused or stopped, nil when it may act, or the failure
// to read the item's state. The stop check asks it; the launch rule
// (launchHold) asks runtime.Held the same way, then the takeovers.
func (s *Service) Held(ctx context.Context, req ItemRequest) error {
	if err := validID(req.WorkItem); err != nil {
		return err
	}
	repo, err := s.openRepo(req.Repo)
	if err != nil {
		return err
	}
	st, release, err := s.readStore(ctx)
	if err != nil {
		return err
	}
	defer release()
	state, _, err := (&persister{st: st, repo: repo}).Load(ctx, req.WorkItem)
	if err != nil {
		return err
	}
	if h := runtime.Held(s.cfg, state); h != nil {
		return h
	}
	return nil
}

// applyControl keeps a started item's hold in step with the last control
// command an authorized person gave on its ticket: pause or stop holds it
// (recorded with who, when and the comment), an arming command (start,
// resume, …) lifts the hold. It reports whether the item is held now. The
// poller and `the-loop run` both keep it so.
func (s *Service) applyControl(ctx context.Context, sess *session, id string, last control.Command, by integrations.Comment) (bool, error) {
	switch {
	case last == control.Pause || last == control.Stop:
		c := &runtime.Control{Command: string(last), By: by.Author, Comment: by.URL}
		if !by.CreatedAt.IsZero() {
			c.At = by.CreatedAt.UTC().Format(time.RFC3339)
		}
		if _, err := sess.rt.SetControl(ctx, id, c, ""); err != nil {
			return true, fmt.Errorf("hold %s: %w", id, err)
		}
		sess.state.Control = c
		return true, nil
	case control.IsArming(last) && sess.state.Control != nil:
		if _, err := sess.rt.SetControl(ctx, id, nil, by.Author); err != nil {
			return true, fmt.Errorf("lift the hold on %s: %w", id, err)
		}
		sess.state.Control = nil
	}
	return sess.state.Control != nil, nil
}

// takeoverKey is an item of a repository on one node of its own loop, or
// of one of its pull requests' loops (pull: lower-case OWNER/REPO#N).
type takeoverKey struct{ repo, item, pull, node string }

// pullName names the pull request whose loop a session works in a
// takeoverKey ("" for the item's own loop).
func pullName(prRepo string, pr int) string {
	if pr <= 0 {
		return ""
	}
	return strings.ToLower(fmt.Sprintf("%s#%d", prRepo, pr))
}

// takeovers are the operators' takeovers (`the-loop sessions stop`), each
// holding its item's session launches on the node its stopped session
// worked, for that visit of the node: once the item moves on, a later
// visit (a gate sent it back, a force) is not held.
type takeovers map[takeoverKey]takeover

// takeover is one stop request's hold, and when it was requested.
type takeover struct {
	hold *runtime.HoldError
	at   time.Time
}

// on is the takeover holding item of repo on node in the visit that began
// at entered, or nil. A visit whose start is unknown (zero) is held.
func (t takeovers) on(repo, item, node string, entered time.Time) *runtime.HoldError {
	return t.onPull(repo, item, "", node, entered)
}

// onPull is on for node of pull request pull's loop (pullName).
func (t takeovers) onPull(repo, item, pull, node string, entered time.Time) *runtime.HoldError {
	to, ok := t[takeoverKey{repo, item, pull, node}]
	if !ok || entered.After(to.at) {
		return nil
	}
	return to.hold
}

// holdsVisit reports whether stop holds the visit of its node that began at
// entered: the request came during that visit.
func holdsVisit(stop store.SessionStop, entered time.Time) bool {
	return !entered.After(stop.RequestedAt)
}

// visitStart is when the item's current visit of node began (zero when the
// record does not say).
func visitStart(st *runtime.State, node string) time.Time {
	rec := st.Nodes[node]
	if rec == nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, rec.LastEnteredAt)
	if err != nil {
		return time.Time{}
	}
	return t
}

// takeoverOf is the hold an operator's stop request leaves.
func takeoverOf(s store.SessionStop) *runtime.HoldError {
	c := runtime.Control{By: s.By, Node: s.Node, Session: s.Session, Reason: s.Reason}
	if !s.RequestedAt.IsZero() {
		c.At = s.RequestedAt.UTC().Format(time.RFC3339)
	}
	return runtime.TakenOver(s.WorkItem, c)
}

// launchHold is the one rule a session launch asks first, in the poller
// and in `the-loop run` alike: the ticket's pause or stop (runtime.Held),
// else an operator's takeover of the node the item stands on. nil: a
// session may be launched.
func (s *Service) launchHold(sess *session, id string, t takeovers) *runtime.HoldError {
	if h := runtime.Held(s.cfg, sess.state); h != nil {
		return h
	}
	node := sess.state.CurrentNode
	return t.on(sess.repo.Root, id, node, visitStart(sess.state, node))
}

// holdWait is what a held item waits for, in the status comment and in
// `the-loop run`'s answer.
func holdWait(h *runtime.HoldError) string { return "a human: " + h.Error() }

// settleStops stops, once each, the sessions operators asked to stop that
// sup has not stopped yet, and returns the takeovers every request
// leaves. A request for a session sup does not supervise is left for the
// supervisor that does.
func (s *Service) settleStops(ctx context.Context, sup *sessions.Supervisor) (takeovers, error) {
	st, err := s.writableStore(ctx)
	if err != nil {
		return nil, err
	}
	stops, err := st.SessionStops(ctx)
	if err != nil {
		return nil, err
	}
	out := takeovers{}
	for _, stop := range stops {
		key := takeoverKey{repo: stop.Repo, item: stop.WorkItem, node: stop.Node}
		if rec, found, err := st.GetSession(ctx, stop.Session); err == nil && found {
			key.pull = pullName(rec.PRRepo, rec.PR)
		}
		out[key] = takeover{hold: takeoverOf(stop), at: stop.RequestedAt}
		if !stop.AppliedAt.IsZero() || sup == nil {
			continue
		}
		if err := sup.Stop(ctx, stop.Session, stop.Reason); err != nil {
			if !errors.Is(err, sessions.ErrNotLive) {
				s.log().Warn("could not stop a session", "session", stop.Session, "err", err)
			}
			continue
		}
		if err := st.MarkSessionStopApplied(ctx, stop.Session, s.now()); err != nil {
			s.log().Warn("could not record a session stop", "session", stop.Session, "err", err)
		}
	}
	return out, nil
}
