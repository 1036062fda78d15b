package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/the-loop/the-loop/agents/sessions"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
)

// RunRequest drives one work item in the foreground (`the-loop run`).
type RunRequest struct {
	ItemRequest
	// Poll is how often the driver looks at a running session's item
	// (0: every second).
	Poll time.Duration `json:"-"`
}

// RunStep is one thing the driver did, reported as it happens.
type RunStep struct {
	Node    string `json:"node"`
	Action  string `json:"action"`
	Session string `json:"session,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// RunResult is where the driver stopped, and why.
type RunResult struct {
	WorkItem string    `json:"workItem"`
	Node     string    `json:"node"`
	Finished bool      `json:"finished"`
	Waits    string    `json:"waits"`
	Where    string    `json:"where,omitempty"`
	Steps    []RunStep `json:"steps"`
	Warnings []string  `json:"-"`
}

// ErrNoSessions reports a driver asked to launch sessions with no harness
// configured.
var ErrNoSessions = errors.New("no harness is configured, so no session can be launched; add a harnesses: block to the config (docs/sessions.md)")

// Run drives one work item on this machine without the poller: it
// launches the session of the current agent node in the repository itself,
// waits for the item to move, runs what the session's claim left to the
// ticket integration, evaluates a human gate once, and goes on — until the
// walk is finished or it stands at a human gate, where it stops and says
// what it waits for and where. It asks the launch rule the poller asks
// (launchHold): the ticket's pause and stop, and an operator's takeover.
func (s *Service) Run(ctx context.Context, req RunRequest, progress func(RunStep)) (RunResult, error) {
	sup := s.deps.Sessions
	if sup == nil {
		return RunResult{}, invalid(ErrNoSessions)
	}
	if req.Poll <= 0 {
		req.Poll = time.Second
	}
	if _, err := sup.Recover(ctx); err != nil {
		s.log().Warn("could not settle the sessions an earlier run left", "err", err)
	}
	d := &runDriver{s: s, sup: sup, req: req, res: RunResult{WorkItem: req.WorkItem, Steps: []RunStep{}}, progress: progress}
	defer d.shutdown()
	err := d.loop(ctx)
	return d.res, err
}

type runDriver struct {
	s        *Service
	sup      *sessions.Supervisor
	req      RunRequest
	res      RunResult
	progress func(RunStep)
	prompts  promptCache
	// takeovers are the operators' takeovers as last read.
	takeovers takeovers
}

func (d *runDriver) step(st RunStep) {
	d.res.Steps = append(d.res.Steps, st)
	if d.progress != nil {
		d.progress(st)
	}
}

func (d *runDriver) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(d.s.cfg.Sessions.StopGraceSeconds)*time.Second+5*time.Second)
	defer cancel()
	_ = d.sup.Shutdown(ctx)
}

// loop advances the item until it stops at a human, finishes, or ctx ends.
func (d *runDriver) loop(ctx context.Context) error {
	for {
		// A typo is refused with the nearest known ids, never driven as a
		// new item.
		sess, err := d.s.openKnown(ctx, d.req.Repo, d.req.WorkItem)
		if err != nil {
			return err
		}
		d.res.Warnings = sess.warns
		d.res.Node = sess.state.CurrentNode
		if sess.state.CurrentNode == "" {
			d.res.Waits = fmt.Sprintf("arming: an authorized `%s` on the ticket, or `the-loop graph start %s`", d.s.cfg.Keyword("start"), d.req.WorkItem)
			return nil
		}
		ev, where := d.ticket(ctx, sess)
		d.res.Where = where
		if held, err := d.held(ctx, sess, ev); err != nil || held {
			return err
		}
		if sess.state.EntryPending != "" {
			node, _, err := sess.rt.RunPendingEntry(ctx, d.req.WorkItem)
			if err != nil {
				return err
			}
			if node != "" {
				d.step(RunStep{Node: node, Action: "entered", Detail: "ran the entry chain the session's claim left"})
			}
			continue
		}
		n, _ := sess.rt.Graph.Node(sess.state.CurrentNode)
		switch {
		case n == nil:
			return fmt.Errorf("the pointer %q names no node of %s", sess.state.CurrentNode, sess.rt.Graph.Name)
		case n.Terminal || (n.IsHuman() || awaitsSignOff(n, sess.state)):
			moved, err := d.atHuman(ctx, sess, n, ev)
			if err != nil || !moved {
				return err
			}
			continue
		}
		w, waits := d.s.sessionWant(ctx, sess, d.req.WorkItem, sess.repo.Root, &d.prompts, d.takeovers)
		if w == nil {
			d.res.Waits = waits
			return nil
		}
		if stop, err := d.work(ctx, *w); err != nil || stop {
			return err
		}
	}
}

// ticket reads the item's comments when a ticket integration is
// configured, and says where the item's ticket is.
func (d *runDriver) ticket(ctx context.Context, sess *session) (*runtime.Event, string) {
	where := sess.state.Ref
	if sess.rt.Tracker == nil || sess.state.Ref == "" {
		return nil, where
	}
	ref, err := runtime.ParseTicketRef(sess.state.Ref)
	if err != nil {
		return nil, where
	}
	if is, err := sess.rt.Tracker.GetIssue(ctx, ref); err == nil && is.URL != "" {
		where = is.URL
	}
	comments, err := sess.rt.Tracker.ListComments(ctx, ref)
	if err != nil {
		d.res.Warnings = append(d.res.Warnings, fmt.Sprintf("could not read the comments of %s: %v", sess.state.Ref, err))
		return nil, where
	}
	return &runtime.Event{Comments: comments}, where
}

// held keeps the item's hold in step with the ticket's last control
// command (as the poller does), settles the operators' stop requests, and
// asks the launch rule: a held item stops the driver, which says who held
// it and how the hold lifts.
func (d *runDriver) held(ctx context.Context, sess *session, ev *runtime.Event) (bool, error) {
	if ev != nil {
		last, by := (&Poller{Svc: d.s}).lastCommand(config.Source{}, integrations.Issue{}, ev.Comments)
		if _, err := d.s.applyControl(ctx, sess, d.req.WorkItem, last, by); err != nil {
			return true, err
		}
	}
	t, err := d.s.settleStops(ctx, d.sup)
	if err != nil {
		return true, fmt.Errorf("read the session stop requests: %w", err)
	}
	d.takeovers = t
	if h := d.s.launchHold(sess, d.req.WorkItem, t); h != nil {
		d.res.Waits = holdWait(h)
		return true, nil
	}
	return false, nil
}

// atHuman evaluates a human gate once with the ticket's comments; it
// reports whether the item moved. Where it did not, the result says what
// the gate waits for.
func (d *runDriver) atHuman(ctx context.Context, sess *session, n *runtime.Node, ev *runtime.Event) (bool, error) {
	if n.Terminal {
		d.res.Finished = n.ID != "escalated"
		d.res.Waits = "nothing: the walk is finished"
		if !d.res.Finished {
			d.res.Waits = escalatedWait(sess, d.req.WorkItem)
		}
		return false, nil
	}
	from := sess.state.CurrentNode
	if ev != nil {
		rep, err := sess.rt.Advance(ctx, d.req.WorkItem, ev)
		if err != nil {
			return false, err
		}
		d.step(RunStep{Node: from, Action: "gate", Detail: rep.Status})
		after, err := d.s.open(ctx, d.req.Repo, d.req.WorkItem, "")
		if err != nil {
			return false, err
		}
		if after.state.CurrentNode != from {
			return true, nil
		}
	}
	if n.IsHuman() {
		d.res.Waits = humanWait(n)
	} else {
		d.res.Waits = "a human: " + sess.state.Parked.Reason
	}
	if ev == nil {
		d.res.Waits += " (no ticket integration is configured here, so the driver cannot read it; run the poller, or answer and run again where it is)"
	}
	return false, nil
}

// work runs the session want asks for until the item leaves its node or
// the supervisor gives up; it reports whether the driver must stop.
func (d *runDriver) work(ctx context.Context, w sessions.Want) (bool, error) {
	tick := time.NewTicker(d.req.Poll)
	defer tick.Stop()
	for {
		rep, err := d.sup.Cycle(ctx, []sessions.Want{w})
		if err != nil {
			d.res.Warnings = append(d.res.Warnings, err.Error())
		}
		for _, st := range rep.Started {
			d.step(RunStep{Node: st.Node, Action: "session started", Session: st.Session, Detail: fmt.Sprintf("attempt %d, %s", st.Attempt, st.Harness)})
		}
		for _, st := range rep.Exited {
			d.step(RunStep{Node: st.Node, Action: "session ended", Session: st.Session, Detail: st.State + " (" + st.ExitStatus + ")"})
		}
		for _, esc := range rep.Escalations {
			sess, err := d.s.open(ctx, d.req.Repo, d.req.WorkItem, "")
			if err != nil {
				return true, err
			}
			if _, err := sess.rt.Escalate(ctx, d.req.WorkItem, esc.Node, esc.Reason); err != nil {
				return true, err
			}
			d.step(RunStep{Node: esc.Node, Action: "escalated", Detail: esc.Reason})
			return false, nil
		}
		if len(rep.Held) > 0 {
			d.res.Waits = "a human: " + rep.Held[0].Reason
			return true, nil
		}
		sess, err := d.s.open(ctx, d.req.Repo, d.req.WorkItem, "")
		if err != nil {
			return true, err
		}
		if sess.state.CurrentNode != w.Node || sess.state.EntryPending != "" {
			return false, nil
		}
		if t, err := d.s.settleStops(ctx, d.sup); err == nil {
			if h := d.s.launchHold(sess, d.req.WorkItem, t); h != nil {
				d.res.Waits = holdWait(h) // an operator stopped the session: settleStops stopped it here
				return true, nil
			}
		}
		select {
		case <-ctx.Done():
			d.res.Waits = "nothing: the driver was interrupted; its session was stopped"
			return true, nil
		case <-d.sup.Changed():
		case <-tick.C:
		}
	}
}
