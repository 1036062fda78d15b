package sessions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/internal/proc"
	"github.com/the-loop/the-loop/store"
)

// reap records every session that has ended and decides what follows: a
// relaunch after backoff when its node is still unmet, or an escalation
// when the relaunches are spent.
func (c *cycle) reap() {
	s := c.s
	ctx, cancel := recordingContext(c.ctx)
	defer cancel()
	for key, l := range s.live {
		select {
		case <-l.h.Done():
		default:
			continue
		}
		if l.end == nil {
			l.end = c.ended(key, l)
		}
		// The end is recorded even when the cycle's context was cancelled
		// (a SIGTERM): a session is never left recorded as running. One
		// that could not be recorded stays here and is tried again.
		if err := s.d.Store.FinishSession(ctx, l.end.rec, l.end.evs...); err != nil && !errors.Is(err, store.ErrSessionNotRunning) {
			c.errs = append(c.errs, fmt.Errorf("sessions: record the end of %s: %w", l.rec.ID, err))
			continue
		}
		delete(s.live, key)
	}
}

// recordingContext bounds the recording of what already happened: it
// outlives the cancellation of ctx (the poller's SIGTERM), never its
// values.
func recordingContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
}

// ended settles what follows a session that ended, once: its figures,
// the relaunch or escalation of its key, and the record and events of its
// end (written by reap).
func (c *cycle) ended(key itemID, l *live) *ending {
	s := c.s
	exit := l.h.Exit()
	if err := l.readUsage(); err != nil {
		c.errs = append(c.errs, fmt.Errorf("sessions: read transcript of %s: %w", l.rec.ID, err))
	}
	l.release()
	l.meter.Close()
	u := l.usage()
	c.warnUnknown(l, u)
	rec := l.rec
	rec.EndedAt, rec.ExitStatus, rec.SessionUsage = c.now, exit.String(), recorded(u)
	rec.TranscriptCut = l.cut()
	rec.State, rec.Reason = store.SessionExited, "ended on its own"
	if u.Error != "" {
		rec.Reason = "ended on its own; its last error: " + clip(u.Error, 300)
	}
	if l.stopState != "" {
		rec.State, rec.Reason = l.stopState, l.stopReason
	}
	it := s.state(key)
	if f, err := c.spent(rec.Repo, rec.WorkItem); err == nil {
		*f = f.plus(u, c.now.Sub(rec.StartedAt))
	}
	evs := []store.Event{event("session.exited", rec.Node, figures(map[string]any{
		"session": rec.ID, "exit": rec.ExitStatus, "state": rec.State, "reason": rec.Reason, "attempt": rec.Attempt,
		"elapsedSeconds": int(c.now.Sub(rec.StartedAt).Seconds())}, u))}
	w, wanted := c.wants[key]
	if wanted && w.work() == recWork(rec) && (rec.State == store.SessionExited || rec.State == store.SessionTimedOut) {
		it.lastExit = c.s.exitText(rec.Harness, exit, u)
		if rec.State == store.SessionTimedOut {
			it.lastExit = "timed out (" + rec.ExitStatus + ")"
		}
		if ev, held := c.afterIdle(it, w, l); held {
			evs = append(evs, ev)
		} else if ev, held := c.afterFailure(it, w); held {
			evs = append(evs, ev)
		}
	}
	st := l.status()
	st.State, st.Reason, st.ExitStatus, st.Usage = rec.State, rec.Reason, rec.ExitStatus, u
	c.rep.Exited = append(c.rep.Exited, st)
	return &ending{rec: rec, evs: evs}
}

// afterFailure schedules the next launch of a key whose session ended (or
// could not start) with its node unmet, or holds the key and escalates
// once the relaunches are spent. It returns the refusal event when the key
// is now held.
func (c *cycle) afterFailure(it *itemState, w Want) (store.Event, bool) {
	max := c.s.cfg.Relaunch.Max
	if it.launches <= max {
		it.nextAt = c.now.Add(c.s.cfg.Backoff(it.launches))
		return store.Event{}, false
	}
	reason := fmt.Sprintf("the session for %s ended %d times with the node unmet (last: %s); no more relaunches after %d", w.work(), it.launches, it.lastExit, max)
	return c.holdItem(it, w, reason, true), true
}

// afterIdle looks at what a session that ended with its node unmet left in
// its working tree. One that made no commit is relaunched once, its
// successor told so in its prompt; the second in a row holds the key and
// escalates it. A session whose progress cannot be read is left to
// afterFailure's rule alone.
func (c *cycle) afterIdle(it *itemState, w Want, l *live) (store.Event, bool) {
	p := c.s.d.Progress
	if p == nil || l.head == "" {
		return store.Event{}, false
	}
	n, err := p.AgentCommits(c.ctx, l.workdir, l.head)
	if err != nil {
		c.s.d.Log.Warn("could not read what a session committed; it is relaunched as one that may have", "session", l.rec.ID, "err", err)
		it.idle, it.note = 0, ""
		return store.Event{}, false
	}
	if n > 0 {
		it.idle, it.note = 0, ""
		return store.Event{}, false
	}
	it.idle++
	if it.idle >= 2 {
		reason := fmt.Sprintf("the session for %s ended %d times in a row without a commit (last: %s); a session that changes nothing is relaunched once, then the item escalates",
			w.work(), it.idle, it.lastExit)
		return c.holdItem(it, w, reason, true), true
	}
	it.note = fmt.Sprintf("The previous session for %s (%s, %s) ended without a commit: nothing it did reached the branch. Do the work and commit it before you claim (the loop pushes it). "+
		"If this session also ends without a commit, the loop stops relaunching and escalates the item to a human.", w.work(), l.rec.ID, it.lastExit)
	return store.Event{}, false
}

// launch starts a session for every wanted item that has none, in arming
// order, while slots are free.
func (c *cycle) launch() {
	s := c.s
	if c.ctx.Err() != nil {
		return // shutting down: nothing new is started
	}
	position := 0
	for _, w := range c.order {
		key := w.key()
		if _, ok := s.live[key]; ok {
			continue
		}
		it := s.state(key)
		if _, err := c.spent(w.Repo, w.WorkItem); err != nil {
			c.errs = append(c.errs, err) // fail closed: no launch without the spend
			continue
		}
		if it.work != w.work() || it.visit != w.Visit {
			it.work, it.visit, it.launches, it.nextAt, it.lastExit = w.work(), w.Visit, 0, c.now, ""
			it.idle, it.note = 0, ""
			if it.holdNode {
				it.hold, it.holdNode, it.notified = "", false, false
			} else if it.hold != "" {
				// The item's own hold (its budget) outlives the node it was
				// set at, and so must its escalation: the item moved on
				// before the one from the old node landed, and the engine
				// escalates only from the node an item stands at.
				it.notified = false
			}
		}
		if c.refused(it, w) {
			continue
		}
		if c.now.Before(it.nextAt) {
			c.rep.Waiting = append(c.rep.Waiting, Waiting{Repo: w.Repo, WorkItem: w.WorkItem, Node: w.Node, PR: w.PR, PRRepo: w.PRRepo, Own: w.Own,
				Until: it.nextAt, Launches: it.launches, LastExit: it.lastExit})
			continue
		}
		if len(s.live) >= s.cfg.Max {
			position++
			c.rep.Queued = append(c.rep.Queued, Queued{Repo: w.Repo, WorkItem: w.WorkItem, Node: w.Node, PR: w.PR, PRRepo: w.PRRepo, Own: w.Own, Position: position})
			continue
		}
		c.start(w, it)
	}
}

// start prepares and launches one session and records it.
func (c *cycle) start(w Want, it *itemState) {
	s := c.s
	id := s.d.NewID()
	dir := filepath.Join(s.d.StateDir, "sessions", id)
	serveRepo := ""
	if w.key().pr > 0 {
		serveRepo = w.Repo // its own tree is not where the item lives
	}
	prompt := w.Prompt
	if it.note != "" {
		prompt = it.note + "\n\n" + prompt
	}
	launch := harness.Launch{
		SessionID: id, WorkItem: w.WorkItem, Node: w.Node, PR: w.PR, PRRepo: w.PRRepo, Prompt: prompt, Model: w.Model, Effort: w.Effort,
		Workdir: w.Workdir, ServeRepo: serveRepo, Dir: dir, Serve: s.d.Serve, ServeEnv: s.d.ServeEnv, Sensitive: s.d.Sensitive,
		Redact: s.redact, Lookup: s.d.Lookup, Terminal: s.d.Runner.Terminal()}
	var bx *box
	if s.d.Confiner.Active() {
		var err error
		if bx, err = s.openBox(c.ctx, id, dir, w, &launch); err != nil {
			c.append(w.Repo, w.WorkItem, c.holdItem(it, w, "the session could not be confined: "+err.Error(), true))
			return
		}
	}
	plan, err := harness.Prepare(w.Harness, s.d.Harnesses[w.Harness], launch)
	if err != nil {
		bx.close()
		c.append(w.Repo, w.WorkItem, c.holdItem(it, w, "the session could not be prepared: "+err.Error(), true))
		return
	}
	var attr *syscall.SysProcAttr
	if bx != nil {
		if attr, err = bx.wrap(plan, w); err != nil {
			bx.close()
			c.append(w.Repo, w.WorkItem, c.holdItem(it, w, "the session could not be confined: "+err.Error(), true))
			return
		}
	}
	transcript := filepath.Join(dir, "transcript.jsonl")
	if err := touchPrivate(transcript); err != nil {
		bx.close()
		c.launchFailed(w, "the session's transcript could not be created: "+err.Error())
		c.errs = append(c.errs, fmt.Errorf("sessions: %w", err))
		return
	}
	rl := RunnerLaunch{ID: id, Plan: plan, Transcript: transcript, Stderr: filepath.Join(dir, "stderr.log"), Attr: attr}
	var out, errw *capped
	if wr, ok := s.d.Runner.(writerRunner); ok && wr.TakesWriters() {
		if out, err = openCapped(transcript, s.cfg.MaxTranscriptBytes); err == nil {
			if errw, err = openCapped(rl.Stderr, s.cfg.MaxTranscriptBytes); err != nil {
				_ = out.Close()
			}
		}
		if err != nil {
			bx.close()
			c.errs = append(c.errs, fmt.Errorf("sessions: %w", err))
			return
		}
		rl.Out, rl.Err = out, errw
	}
	closeAll := func() {
		bx.close()
		if out != nil {
			_ = out.Close()
			_ = errw.Close()
		}
	}
	head := ""
	if s.d.Progress != nil {
		var err error
		if head, err = s.d.Progress.Head(c.ctx, w.Workdir); err != nil {
			s.d.Log.Warn("could not read the head of a session's working tree; whether it commits is not checked", "workItem", w.WorkItem, "workdir", w.Workdir, "err", err)
		}
	}
	it.launches++
	h, err := s.d.Runner.Start(c.ctx, rl)
	if err != nil {
		closeAll()
		c.launchFailed(w, "the session could not start: "+err.Error())
		it.lastExit = "could not start: " + err.Error()
		ev, held := c.afterFailure(it, w)
		if !held {
			ev = event("session.refused", w.Node, map[string]any{"reason": it.lastExit, "launches": it.launches, "retryAt": it.nextAt})
		}
		c.append(w.Repo, w.WorkItem, ev)
		return
	}
	rec := store.Session{ID: id, Repo: w.Repo, WorkItem: w.WorkItem, Node: w.Node, PR: w.PR, PRRepo: w.PRRepo, Harness: w.Harness, Runner: s.d.Runner.Name(),
		Model: plan.Model, Effort: plan.Effort, Argv: plan.Recorded, PID: h.Pid(), Attempt: it.launches, StartedAt: c.now,
		Transcript: transcript, Attach: h.Attach(), Confinement: s.d.Confiner.Layers()}
	started := map[string]any{"session": id, "harness": w.Harness, "adapter": plan.Adapter, "runner": rec.Runner,
		"model": rec.Model, "effort": rec.Effort, "argv": rec.Argv, "pid": rec.PID, "attempt": rec.Attempt, "attach": rec.Attach,
		"confinement": rec.Confinement}
	if len(plan.Notes) > 0 {
		started["notes"] = plan.Notes
	}
	if w.PR > 0 {
		started["pullRequest"], started["own"] = fmt.Sprintf("%s#%d", w.PRRepo, w.PR), w.Own
	}
	evs := []store.Event{event("session.started", w.Node, started)}
	if it.launches > 1 {
		evs = append(evs, event("session.relaunched", w.Node, map[string]any{"session": id, "attempt": it.launches, "after": it.lastExit, "noCommit": it.note != ""}))
	}
	if err := s.d.Store.StartSession(c.ctx, rec, evs...); err != nil {
		h.Stop(0) // an unrecorded session must not run
		<-h.Done()
		closeAll()
		err = fmt.Errorf("sessions: record the launch for %s %s (stopped it): %w", w.Repo, w.WorkItem, err)
		c.launchFailed(w, err.Error())
		c.errs = append(c.errs, err)
		return
	}
	name, model := w.Harness, plan.Model
	l := &live{rec: rec, h: h, own: w.key().pr > 0, out: out, errw: errw, box: bx, meter: harness.NewMeter(plan.Output),
		workdir: w.Workdir, head: head,
		price: func(u harness.Usage) harness.Usage { return s.priced(name, model, u) }}
	s.live[w.key()] = l
	go func() {
		<-h.Done()
		select {
		case s.changed <- struct{}{}:
		default:
		}
	}()
	st := l.status()
	c.rep.Started = append(c.rep.Started, st)
	s.d.Log.Info("session started", "session", id, "repo", w.Repo, "workItem", w.WorkItem, "node", w.work(), "attempt", it.launches,
		"confinement", rec.Confinement)
	for _, n := range plan.Notes {
		s.d.Log.Warn("session note", "session", id, "workItem", w.WorkItem, "harness", w.Harness, "note", n)
	}
}

// launchFailed reports a wanted session that could not be started.
func (c *cycle) launchFailed(w Want, why string) {
	c.rep.LaunchFailed = append(c.rep.LaunchFailed, LaunchFailure{Repo: w.Repo, WorkItem: w.WorkItem, Node: w.Node, PR: w.PR, PRRepo: w.PRRepo, Own: w.Own, Error: why})
}

func touchPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// warnUnknown logs, once per session, the event types its output held
// that the harness's reader does not know: read past, not failed on.
func (c *cycle) warnUnknown(l *live, u harness.Usage) {
	if l.warned || len(u.Unknown) == 0 {
		return
	}
	l.warned = true
	c.s.d.Log.Warn("harness printed events its reader does not know; they were read past", "session", l.rec.ID,
		"workItem", l.rec.WorkItem, "harness", l.rec.Harness, "events", strings.Join(u.Unknown, ", "))
}

// exitText is how a session ended, as the relaunch and escalation say it:
// its exit status, what its CLI documents that status to mean, and a
// refusal for rate or quota.
func (s *Supervisor) exitText(name string, exit proc.ExitStatus, u harness.Usage) string {
	out := exit.String()
	if exit.Code > 1 {
		if what := harness.ExitMeaning(s.d.Harnesses[name], exit.Code); what != "" {
			out += " (" + what + ")"
		}
	}
	if u.RateLimited {
		out += ", rate limited"
	}
	return out
}

// clip bounds s to n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
