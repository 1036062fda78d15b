package service

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/the-loop/the-loop/agents/sessions"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/control"
)

// sessionKey names what a session is for: a work item of a repository
// and, once pull requests get sessions of their own, one of its pull
// requests (pr 0: the item's own session). The supervisor keeps one live
// session per key.
type sessionKey struct {
	repo, item string
	prRepo     string // lower-case OWNER/REPO of pr
	pr         int
}

// polledKey is a watched issue of one source, whatever repository it
// lives in this cycle, and one of its pull requests (pr 0: the item's own
// want).
type polledKey struct {
	checkout, container, item string
	prRepo                    string
	pr                        int
}

// pollerActs is what the poller remembers between cycles about the half
// that acts: the sessions items want and what the status comments last
// said.
type pollerActs struct {
	mu       sync.Mutex
	wants    map[polledKey]sessions.Want
	prev     map[polledKey]sessions.Want
	views    map[sessionKey]*itemView
	posted   map[sessionKey]string
	syncedAt map[sessionKey]time.Time
	// imported is the visit of import-handoff each item's files were
	// imported in.
	imported map[sessionKey]string
	// pushChecked are the items whose branch was counted for commits its
	// remote lacks since their last session ended.
	pushChecked map[sessionKey]bool
	// noWalk are the tree paths the store holds no unfinished walk at, as
	// read once (this poller alone arms items in trees).
	noWalk  map[string]bool
	prompts promptCache
	// takeovers are the operators' takeovers as the last session step
	// read them (the launch rule's second half).
	takeovers takeovers
	recovered bool
	// declined remembers, per item and pull request, why a pull request got
	// no session of its own (recorded once).
	declined map[string]string
}

func (a *pollerActs) init() {
	if a.wants == nil {
		a.wants, a.prev, a.views = map[polledKey]sessions.Want{}, map[polledKey]sessions.Want{}, map[sessionKey]*itemView{}
		a.posted = map[sessionKey]string{}
		a.syncedAt, a.declined = map[sessionKey]time.Time{}, map[string]string{}
		a.imported, a.pushChecked, a.noWalk = map[sessionKey]string{}, map[sessionKey]bool{}, map[string]bool{}
	}
}

// needsSync reports whether a gate's tree must be synced before it is
// read: the ticket moved since the last sync (a reply may decide the
// gate), the ticket's time is unknown, or this poller never synced it.
func (a *pollerActs) needsSync(k sessionKey, updated time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.init()
	last, ok := a.syncedAt[k]
	return !ok || updated.IsZero() || !updated.Equal(last)
}

func (a *pollerActs) synced(k sessionKey, updated time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.init()
	a.syncedAt[k] = updated
}

// pushCheckDue reports whether item k's branch is to be counted for
// commits its remote lacks (and notes it is): once after this poller
// starts, and again after each of its sessions ends.
func (a *pollerActs) pushCheckDue(k sessionKey) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.init()
	if a.pushChecked[k] {
		return false
	}
	a.pushChecked[k] = true
	return true
}

// noWalkAt reports whether the store was read to hold no unfinished walk
// at the tree path.
func (a *pollerActs) noWalkAt(path string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.init()
	return a.noWalk[path]
}

func (a *pollerActs) setNoWalk(path string, none bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.init()
	if none {
		a.noWalk[path] = true
		return
	}
	delete(a.noWalk, path)
}

// sessionsEnded makes the items whose sessions ended due a push check.
func (a *pollerActs) sessionsEnded(exited []sessions.Status) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.init()
	for _, e := range exited {
		delete(a.pushChecked, sessionKey{repo: e.Repo, item: e.WorkItem})
	}
}

// desk delivers assignments into the supervised sessions of one
// repository (runtime.AssignmentSink): those of the item's own loop, or,
// with pr set, those of pull request prRepo#pr's loop.
type desk struct {
	sup    *sessions.Supervisor
	repo   string
	prRepo string
	pr     int
}

// Deliver implements runtime.AssignmentSink. A headless session reads its
// assignment once, as its prompt; delivering into a live session therefore
// means relieving the session that claimed its node and launching the next
// one with this assignment at once, rather than after drainSeconds. Under
// the tmux runner it is the same: the harness in the pane reads no more
// input.
func (d desk) Deliver(_ context.Context, item, node, _ string) (string, error) {
	retired, working := d.sup.Retire(d.repo, item, d.prRepo, d.pr, node)
	switch {
	case working:
		return "a live session already works " + node, nil
	case retired != "":
		return fmt.Sprintf("session %s, whose node was claimed, was relieved; the next session starts with this assignment", retired), nil
	}
	return "no session is live; the next one launched for " + node + " starts with this assignment", nil
}

// noteItem records what a started item wants from the supervisor this
// cycle and what its status comment should say. Without a supervisor it
// records only what the status comment says, which is posted while a
// condition holds.
func (p *Poller) noteItem(ctx context.Context, it *polledItem, sess *session, act ItemAction) {
	if sess == nil || sess.state.CurrentNode == "" {
		return
	}
	a := &p.acts
	key := sessionKey{repo: sess.repo.Root, item: it.id}
	v := &itemView{item: *it, key: key, node: sess.state.CurrentNode, loop: sess.rt.Graph.Name,
		entered: visitStart(sess.state, sess.state.CurrentNode), demoted: sess.state.HandoffDemoted, always: len(sess.state.HandoffDemoted) > 0}
	n, _ := sess.rt.Graph.Node(v.node)
	if n != nil {
		v.actor = n.Actor
	}
	workdir := sess.repo.Root
	a.mu.Lock()
	hold := p.Svc.launchHold(sess, it.id, a.takeovers)
	a.mu.Unlock()
	var wants []sessions.Want
	switch {
	case hold != nil:
		v.hold, v.waits = hold.Error(), holdWait(hold)
	case act.Action == "conflict":
		v.waits = "a human to resolve the working tree: " + act.Detail
	case p.conds.has(it, runtime.ConditionPushRefused):
		v.waits = "the remote to accept pushes of the item's branch: no session is launched against it (see **stuck** below)"
	case p.Svc.deps.Trees != nil && it.tree == nil:
		v.waits = "an operator: the item was armed before the loop kept working trees, so no session is launched for it"
	case p.Svc.deps.Sessions == nil:
		v.waits = p.waitsWithoutSessions(sess, n)
	default:
		a.mu.Lock()
		a.init()
		var w *sessions.Want
		w, v.waits = p.Svc.sessionWant(ctx, sess, it.id, workdir, &a.prompts, a.takeovers)
		a.mu.Unlock()
		if w != nil {
			if it.tree != nil {
				w.Writable, w.ReadOnly = it.tree.GitDirs()
			}
			wants = append(wants, *w)
		}
		var pulls []sessions.Want
		pulls, v.pulls = p.pullWants(ctx, it, sess, w != nil)
		wants = append(wants, pulls...)
	}
	if v.node == phaseSelection && hold == nil {
		if w := blockersWait(p.Svc.cfg, sess.state, executeGiven(p.Svc.cfg, it.comments, v.entered)); w != "" {
			v.waits = w
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.init()
	for _, w := range wants {
		k := polledKey{checkout: it.src.Checkout, container: it.container, item: it.id}
		if w.Own {
			k.prRepo, k.pr = strings.ToLower(w.PRRepo), w.PR
		}
		a.wants[k] = w
	}
	a.views[key] = v
}

// waitsWithoutSessions is what an item waits for where the loop launches
// no session (no harness, or `poll --once`).
func (p *Poller) waitsWithoutSessions(sess *session, n *runtime.Node) string {
	switch {
	case n == nil:
		return "its walk to be read"
	case n.Terminal:
		return "nothing: the walk is finished"
	case n.IsHuman():
		return humanWait(n)
	}
	return fmt.Sprintf("a claim of `%s` (this poller launches no session)", n.ID)
}

// noteUnarmed records the status comment of an item an authorized person
// asked to start that the loop refuses to arm (a dependency cycle, a graph
// that cannot be read): it says what holds it and what releases it,
// supervisor or not.
func (p *Poller) noteUnarmed(it *polledItem, sess *session, why string, rec *runtime.Dependencies, last control.Command, by integrations.Comment) {
	a := &p.acts
	key := sessionKey{repo: sess.repo.Root, item: it.id}
	loop := sess.rt.Graph.Name
	v := &itemView{item: *it, key: key, loop: loop, always: true, waits: unarmedWait(p.Svc.cfg, rec, why, last, by)}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.init()
	a.views[key] = v
}

// superviseSessions is the cycle's session step: it settles what an
// earlier poller left running (once), applies the operators' stop
// requests, hands the supervisor every session the items want, escalates
// the items it gave up on, settles the items' conditions and edits their
// status comments. Without a supervisor it settles the conditions and
// keeps the status comments of the items a condition or a refused arming
// holds.
func (p *Poller) superviseSessions(ctx context.Context, rep *CycleReport) {
	sup := p.Svc.deps.Sessions
	wants, views := p.collectWants(rep)
	var srep SessionsReport
	var held map[sessionKey]string
	if sup != nil {
		a := &p.acts
		// Settled once, and again after a takeover: only the sessions of
		// pollers that are gone, never another live poller's.
		if took := p.takeoverPending(); !a.recovered || took {
			a.recovered = true
			var lost []sessions.Status
			settle, err := p.settleFor(ctx)
			if err == nil {
				lost, err = sup.RecoverWhere(ctx, settle)
			}
			if err != nil {
				p.log().Warn("could not settle the sessions an earlier poller left", "err", err)
			}
			for _, l := range lost {
				p.log().Info("settled a session an earlier poller left running", "session", l.Session, "workItem", l.WorkItem, "reason", l.Reason)
			}
		}
		wants, held = p.applyStops(ctx, sup, wants, views)
		for k, v := range views {
			if v.hold != "" && held != nil {
				held[k] = v.hold
			}
		}
		var err error
		if srep.Report, err = sup.Cycle(ctx, wants); err != nil {
			p.log().Warn("session cycle", "err", err)
			srep.Errors = append(srep.Errors, err.Error())
		}
		for _, esc := range srep.Escalations {
			p.escalate(ctx, esc)
		}
		p.acts.sessionsEnded(srep.Exited)
		p.launchConditions(views, wants, srep.Report)
		rep.Sessions = &srep
	}
	for key, e := range p.settleConditions(ctx) {
		if views[key] == nil {
			// An item whose cycle failed before it could be read: its
			// status comment says why.
			views[key] = &itemView{item: e.item, key: key, node: e.node, loop: e.loop, always: true,
				waits: "the loop to get past what keeps it stuck (below)"}
		}
	}
	p.postStatuses(ctx, views, srep, held, sup != nil)
}

// launchConditions meets a session that could not start — or that the
// host cannot confine, so none is launched — as the item's launch
// condition, and passes it for an item whose session started or that wants
// none.
func (p *Poller) launchConditions(views map[sessionKey]*itemView, wants []sessions.Want, rep sessions.Report) {
	failed := map[sessionKey]string{}
	for _, f := range rep.LaunchFailed {
		failed[sessionKey{repo: f.Repo, item: f.WorkItem}] = workName(f.PRRepo, f.PR, f.Node) + ": " + f.Error
	}
	for _, h := range rep.Held {
		if h.Host {
			failed[sessionKey{repo: h.Repo, item: h.WorkItem}] = workName(h.PRRepo, h.PR, h.Node) + ": " + h.Reason
		}
	}
	waiting := map[sessionKey]bool{}
	for _, w := range rep.Waiting {
		waiting[sessionKey{repo: w.Repo, item: w.WorkItem}] = true
	}
	for key, v := range views {
		item := v.item
		switch why, ok := failed[key]; {
		case ok:
			p.conds.meet(&item, key.repo, runtime.ConditionLaunch, "a session could not be started for "+why)
		case !waiting[key]:
			p.conds.pass(&item, runtime.ConditionLaunch)
		}
	}
}

// workName names what a session works: its node, or the node of a pull
// request's loop.
func workName(prRepo string, pr int, node string) string {
	if pr <= 0 {
		return node
	}
	return fmt.Sprintf("%s of %s#%d", node, prRepo, pr)
}

// collectWants is this cycle's wants, plus last cycle's for the items this
// cycle could not read (a failed source or item): a passing outage of the
// tracker never stops a working session.
func (p *Poller) collectWants(rep *CycleReport) ([]sessions.Want, map[sessionKey]*itemView) {
	a := &p.acts
	a.mu.Lock()
	defer a.mu.Unlock()
	a.init()
	failed := map[[2]string]bool{}
	errored := map[[3]string]bool{}
	for _, s := range rep.Sources {
		if s.Error != "" {
			failed[[2]string{s.Checkout, s.Container}] = true
		}
		for _, it := range s.Items {
			if it.Action == "error" {
				errored[[3]string{s.Checkout, s.Container, it.WorkItem}] = true
			}
		}
	}
	for k, w := range a.prev {
		if _, now := a.wants[k]; !now && (failed[[2]string{k.checkout, k.container}] || errored[[3]string{k.checkout, k.container, k.item}]) {
			a.wants[k] = w
		}
	}
	out := make([]sessions.Want, 0, len(a.wants))
	for _, w := range a.wants {
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Order < out[j].Order })
	views := a.views
	a.prev, a.wants, a.views = a.wants, map[polledKey]sessions.Want{}, map[sessionKey]*itemView{}
	return out, views
}

// applyStops stops the sessions operators asked to stop (`the-loop sessions
// stop`) and keeps the launch rule's takeovers for the next cycle's items:
// the wants of items taken over on their nodes are dropped, with the
// hold's message for their status comments.
func (p *Poller) applyStops(ctx context.Context, sup *sessions.Supervisor, wants []sessions.Want, views map[sessionKey]*itemView) ([]sessions.Want, map[sessionKey]string) {
	t, err := p.Svc.settleStops(ctx, sup)
	if err != nil {
		p.log().Warn("could not read the session stop requests; launching nothing this cycle", "err", err)
		return nil, nil
	}
	p.acts.mu.Lock()
	p.acts.takeovers = t
	p.acts.mu.Unlock()
	held := map[sessionKey]string{}
	kept := wants[:0]
	for _, w := range wants {
		k := statusKey(w.Repo, w.WorkItem, w.PRRepo, w.PR, w.Own)
		var entered time.Time // a want carried over without a view: its visit is held
		if v := views[sessionKey{repo: w.Repo, item: w.WorkItem}]; v != nil {
			entered = v.visitOf(w)
		}
		if h := t.onPull(w.Repo, w.WorkItem, pullName(w.PRRepo, w.PR), w.Node, entered); h != nil {
			held[k] = h.Error()
			continue
		}
		kept = append(kept, w)
	}
	return kept, held
}

// escalate moves an item the supervisor gave up on to the escalated node,
// through the engine, with the supervisor's reason and figures: check and
// graph status show it, and the escalated node's entry chain notifies.
func (p *Poller) escalate(ctx context.Context, esc sessions.Escalation) {
	sess, err := p.Svc.open(ctx, esc.Repo, esc.WorkItem, "")
	if err == nil && esc.PR > 0 {
		// The sessions of a pull request's loop gave up: that loop escalates.
		var link runtime.PullRequestLink
		if link, err = p.Svc.innerFor(ctx, esc.Repo, esc.WorkItem, esc.PRRepo, esc.PR); err == nil {
			sess, err = p.Svc.openInner(ctx, esc.Repo, esc.WorkItem, link)
		}
	}
	if err != nil {
		p.log().Warn("could not escalate", "workItem", esc.WorkItem, "err", err)
		return
	}
	reason := esc.Reason
	if esc.Spent.Tokens > 0 || esc.Spent.CostUSD > 0 || esc.Spent.Turns > 0 {
		reason += " (spent: " + figuresText(esc.Spent) + ")"
	}
	moved, err := sess.rt.Escalate(ctx, esc.WorkItem, esc.Node, reason)
	switch {
	case err != nil:
		p.log().Warn("could not escalate", "workItem", esc.WorkItem, "err", err)
	case moved:
		p.log().Warn("escalated: its sessions need a human", "workItem", esc.WorkItem, "node", esc.Node, "reason", reason)
	}
}

// sessionEnded is signalled when a supervised session ends (nil, which
// never fires, when none are supervised).
func (p *Poller) sessionEnded() <-chan struct{} {
	if sup := p.Svc.deps.Sessions; sup != nil {
		return sup.Changed()
	}
	return nil
}

// stopSessions stops every live session when the poller stops, within
// the sessions' stop grace and a little more.
func (p *Poller) stopSessions() error {
	sup := p.Svc.deps.Sessions
	if sup == nil {
		return nil
	}
	grace := time.Duration(p.Svc.cfg.Sessions.StopGraceSeconds)*time.Second + 5*time.Second
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := sup.Shutdown(ctx); err != nil {
		p.log().Warn("sessions did not all stop", "err", err)
	}
	return nil
}
