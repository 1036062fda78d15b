package service

import (
	"context"
	"fmt"
	"time"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/control"
)

// Held is the control rule for a caller about to act on a work item that
// is not a claim or an advance (those refuse on their own): it returns the
// *runtime.HoldError (errors.Is runtime.ErrHeld) the act is refused with
// while the item is paused or stopped, nil when it may act, or the failure
// to read the item's state. Whatever launches an agent session asks it
// first.
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
// resume, …) lifts the hold. It reports whether the item is held now.
func (p *Poller) applyControl(ctx context.Context, sess *session, id string, last control.Command, by integrations.Comment) (bool, error) {
	switch {
	case last == control.Pause || last == control.Stop:
		c := &runtime.Control{Command: string(last), By: by.Author, Comment: by.URL}
		if !by.CreatedAt.IsZero() {
			c.At = by.CreatedAt.UTC().Format(time.RFC3339)
		}
		if _, err := sess.rt.SetControl(ctx, id, c, ""); err != nil {
			return true, fmt.Errorf("hold %s: %w", id, err)
		}
		return true, nil
	case control.IsArming(last) && sess.state.Control != nil:
		if _, err := sess.rt.SetControl(ctx, id, nil, by.Author); err != nil {
			return true, fmt.Errorf("lift the hold on %s: %w", id, err)
		}
		sess.state.Control = nil
	}
	return sess.state.Control != nil, nil
}
