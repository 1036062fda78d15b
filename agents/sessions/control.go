package sessions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/the-loop/the-loop/store"
)

// ErrNotLive reports a session id that is not a live session here.
var ErrNotLive = errors.New("no such live session")

// Stop ends a live session on an operator's word. Its item is held — not
// relaunched — until Reset, so a human can take the work over.
func (s *Supervisor) Stop(ctx context.Context, id, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, l := range s.live {
		if l.rec.ID != id {
			continue
		}
		if reason == "" {
			reason = "stopped by an operator"
		}
		l.stop(store.SessionStopped, reason, s.cfg.StopGrace())
		it := s.items[key]
		if it == nil {
			it = &itemState{work: recWork(l.rec)}
			s.items[key] = it
		}
		it.hold, it.holdNode, it.notified = "held after an operator stopped session "+id+": "+reason, true, false
		return nil
	}
	return fmt.Errorf("session %s: %w", id, ErrNotLive)
}

// Retire ends the live session working the loop a claim just moved on —
// item's own loop (pr 0), or pull request prRepo#pr's — when it works a
// node other than node of that loop, since node's assignment was
// delivered: the next cycle launches a session with the new assignment
// instead of waiting out drainSeconds. Nothing is held. It returns the
// retired session's id ("" when there was none to retire) and whether a
// session already works node.
func (s *Supervisor) Retire(repo, item, prRepo string, pr int, node string) (retired string, working bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, l := range s.live {
		if key.repo != repo || key.item != item || l.rec.PR != pr || !strings.EqualFold(l.rec.PRRepo, prRepo) || l.stopState != "" {
			continue
		}
		if l.rec.Node == node {
			return "", true
		}
		l.stop(store.SessionStopped, fmt.Sprintf("its node %s was claimed and the assignment of %s was delivered", recWork(l.rec), workName(prRepo, pr, node)), s.cfg.StopGrace())
		return l.rec.ID, false
	}
	return "", false
}

// Reset lifts the holds of an item's sessions (its own and its pull
// requests') and forgets their relaunch counts, so the next cycle may
// launch for it again (a budget that is still spent holds it again at
// once).
func (s *Supervisor) Reset(repo, item string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, it := range s.items {
		if key.repo == repo && key.item == item {
			it.hold, it.holdNode, it.notified = "", false, false
			it.launches, it.lastExit, it.nextAt = 0, "", s.d.Now()
		}
	}
}

// Forgive forgets the failed launches of an item's sessions (its own and
// its pull requests') that are not held: they ended for a cause outside
// them — a remote that refused their pushes — so they are not counted
// towards the relaunches before an escalation, and the next may start at
// once. A hold stays.
func (s *Supervisor) Forgive(repo, item string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, it := range s.items {
		if key.repo == repo && key.item == item && it.hold == "" {
			it.launches, it.lastExit, it.nextAt = 0, "", s.d.Now()
		}
	}
}

// Shutdown stops every live session and records how each ended. It
// returns when all have ended and are recorded, or when ctx ends first: a
// session still running then is recorded lost, saying it may still run,
// so no session is ever left recorded as running.
func (s *Supervisor) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	for _, l := range s.live {
		if l.end == nil {
			l.stop(store.SessionStopped, "the supervisor shut down", s.cfg.StopGrace())
		}
	}
	pending := make([]Handle, 0, len(s.live))
	for _, l := range s.live {
		pending = append(pending, l.h)
	}
	s.mu.Unlock()
	var late error
	for _, h := range pending {
		select {
		case <-h.Done():
			continue
		case <-ctx.Done():
			late = fmt.Errorf("sessions: shutdown: %w", ctx.Err())
		}
		break
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &cycle{s: s, ctx: context.WithoutCancel(ctx), now: s.d.Now(), wants: map[itemID]Want{}}
	c.reap()
	rctx, cancel := recordingContext(ctx)
	defer cancel()
	for key, l := range s.live {
		if l.end != nil {
			continue // ended, its record not written: reported in c.errs
		}
		rec := l.rec
		rec.EndedAt, rec.State, rec.ExitStatus = c.now, store.SessionLost, "unknown"
		rec.Reason = fmt.Sprintf("the supervisor shut down and its process (pid %d) did not end within the stop grace; it may still run", rec.PID)
		if err := l.readUsage(); err != nil {
			c.errs = append(c.errs, fmt.Errorf("sessions: read transcript of %s: %w", rec.ID, err))
		}
		l.release()
		u := l.usage()
		rec.SessionUsage, rec.TranscriptCut = recorded(u), l.cut()
		ev := event("session.exited", rec.Node, figures(map[string]any{"session": rec.ID, "state": rec.State, "reason": rec.Reason}, u))
		if err := s.d.Store.FinishSession(rctx, rec, ev); err != nil && !errors.Is(err, store.ErrSessionNotRunning) {
			c.errs = append(c.errs, fmt.Errorf("sessions: record %s as lost: %w", rec.ID, err))
			continue
		}
		s.d.Log.Warn("a session outlived the shutdown", "session", rec.ID, "pid", rec.PID, "workItem", rec.WorkItem)
		delete(s.live, key)
	}
	return errors.Join(append([]error{late}, c.errs...)...)
}

// Recover settles the sessions the store still records as running from an
// earlier supervisor: each is reclaimed (stopped) when its process is
// proven to be that session's, then recorded as lost with the figures its
// transcript holds. Call it once, before the first Cycle.
func (s *Supervisor) Recover(ctx context.Context) ([]Status, error) {
	return s.RecoverWhere(ctx, nil)
}

// RecoverWhere is Recover for the running sessions settle accepts (nil:
// all): a poller sharing its store with others settles only those whose
// owner is gone, never another live poller's.
func (s *Supervisor) RecoverWhere(ctx context.Context, settle func(store.Session) bool) ([]Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.d.Store.ListSessions(ctx, store.SessionFilter{State: store.SessionRunning})
	if err != nil {
		return nil, fmt.Errorf("sessions: recover: %w", err)
	}
	mine := map[string]bool{}
	for _, l := range s.live {
		mine[l.rec.ID] = true
	}
	var out []Status
	var errs []error
	for _, rec := range recs {
		if mine[rec.ID] || settle != nil && !settle(rec) {
			continue
		}
		runner := s.d.Runner
		if rec.Runner != runner.Name() {
			runner = s.runnerFor(rec.Runner)
		}
		reason := "the supervisor restarted while it ran; its process was gone"
		if runner == nil {
			reason = fmt.Sprintf("the supervisor restarted while it ran; its %s runner is not available to stop it", rec.Runner)
		} else if stopped, err := runner.Reclaim(ctx, rec); err != nil {
			errs = append(errs, fmt.Errorf("sessions: reclaim %s: %w", rec.ID, err))
			reason = "the supervisor restarted while it ran; stopping it failed: " + err.Error()
		} else if stopped {
			reason = "the supervisor restarted while it ran; it was stopped"
		}
		m := s.meterFor(rec.Harness)
		if b, err := os.ReadFile(rec.Transcript); err == nil {
			_, _ = m.Write(b)
			m.Close()
		}
		u := s.priced(rec.Harness, rec.Model, m.Usage())
		rec.EndedAt, rec.State, rec.Reason, rec.ExitStatus = s.d.Now(), store.SessionLost, reason, "unknown"
		rec.SessionUsage = recorded(u)
		ev := event("session.exited", rec.Node, figures(map[string]any{"session": rec.ID, "state": rec.State, "reason": reason}, u))
		if err := s.d.Store.FinishSession(ctx, rec, ev); err != nil && !errors.Is(err, store.ErrSessionNotRunning) {
			errs = append(errs, fmt.Errorf("sessions: record %s as lost: %w", rec.ID, err))
			continue
		}
		out = append(out, Status{Session: rec.ID, Repo: rec.Repo, WorkItem: rec.WorkItem, Node: rec.Node, PR: rec.PR, PRRepo: rec.PRRepo, Harness: rec.Harness,
			Runner: rec.Runner, PID: rec.PID, Attempt: rec.Attempt, StartedAt: rec.StartedAt, State: rec.State, Reason: reason,
			Usage: u, Transcript: rec.Transcript, Attach: rec.Attach})
	}
	return out, errors.Join(errs...)
}

// runnerFor returns a runner able to reclaim a session of another kind.
func (s *Supervisor) runnerFor(name string) Runner {
	switch name {
	case RunnerProcess:
		return ProcessRunner{}
	case RunnerTmux:
		return &TmuxRunner{Dir: filepath.Join(s.d.StateDir, "tmux")}
	}
	return nil
}
