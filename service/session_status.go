package service

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/the-loop/the-loop/agents/sessions"
	"github.com/the-loop/the-loop/runtime"
)

// SessionsReport is the session step of a poll cycle.
type SessionsReport struct {
	sessions.Report
	// Errors are problems of the step itself (a store it could not read).
	Errors []string `json:"errors,omitempty"`
}

// itemView is a started item as the status comment describes it.
type itemView struct {
	item  polledItem
	key   sessionKey
	node  string
	actor string
	loop  string
	// waits says what the item waits for when it wants no session.
	waits string
	// hold is the launch rule's hold on the item ("" when none).
	hold string
	// entered is when the item's visit of node began.
	entered time.Time
	// pulls are its pull request loops.
	pulls []prLine
	// always posts the status comment even where the loop launches no
	// session (an item refused arming, or one with a condition).
	always bool
	// demoted are the handoff's files the import-handoff check refused,
	// and the node each sent the walk back to.
	demoted []runtime.Demotion
}

// visitOf is when the visit of the node w asks a session for began: the
// item's own node, or a node of one of its pull requests' loops (zero when
// the view does not know it).
func (v *itemView) visitOf(w sessions.Want) time.Time {
	if w.PR <= 0 {
		if v.node == w.Node {
			return v.entered
		}
		return time.Time{}
	}
	for _, l := range v.pulls {
		if l.key.pr == w.PR && l.key.prRepo == strings.ToLower(w.PRRepo) && l.node == w.Node {
			return l.entered
		}
	}
	return time.Time{}
}

// statusMarker keys the one status comment the loop keeps on each item.
const statusMarker = "<!-- the-loop:status -->"

// itemStatus is what the status comment says about an item this cycle.
type itemStatus struct {
	session *sessions.Status
	state   string // the session's state, or why there is none
	waits   string
}

// postStatuses edits each item's status comment when what it says changed
// — a transition or a session event — never on the figures alone, so the
// ticket gets one comment kept current, not a stream.
func (p *Poller) postStatuses(ctx context.Context, views map[sessionKey]*itemView, srep SessionsReport, held map[sessionKey]string, all bool) {
	byKey := statusesByItem(srep.Report, held)
	for key, v := range views {
		conds := p.conditionsOf(key.repo, key.item)
		p.acts.mu.Lock()
		was := p.acts.posted[key]
		p.acts.mu.Unlock()
		if !all && !v.always && len(conds) == 0 && was == "" {
			continue // no session launched here, and nothing to say
		}
		st := byKey[key]
		if st.waits == "" {
			st.waits = v.waits
		}
		if st.state == "" {
			st.state = "none"
		}
		sid := ""
		if st.session != nil {
			sid = st.session.Session
		}
		pulls := pullLines(v, byKey)
		sig := strings.Join([]string{v.node, st.state, sid, st.waits, pulls, conditionSig(conds), demotionLines(v.demoted)}, "\x00")
		if was == sig {
			continue
		}
		item := v.item
		if item.prov == nil || p.upsert(ctx, &item, statusMarker, p.statusBody(ctx, v, st, pulls, conds)) != nil {
			continue
		}
		p.acts.mu.Lock()
		p.acts.posted[key] = sig
		p.acts.mu.Unlock()
	}
}

// statusKey keys what the supervisor says about a session: the item's,
// or a pull request's session of its own.
func statusKey(repo, item, prRepo string, pr int, own bool) sessionKey {
	if !own || pr <= 0 {
		return sessionKey{repo: repo, item: item}
	}
	return sessionKey{repo: repo, item: item, prRepo: strings.ToLower(prRepo), pr: pr}
}

// claimOf names the claim a live session is expected to make.
func claimOf(node, prRepo string, pr int) string {
	if pr <= 0 {
		return fmt.Sprintf("the session's claim of `%s`", node)
	}
	return fmt.Sprintf("the session's claim of `%s` of %s#%d", node, prRepo, pr)
}

// statusesByItem indexes what the supervisor said about each item and each
// pull request's session of its own.
func statusesByItem(rep sessions.Report, held map[sessionKey]string) map[sessionKey]itemStatus {
	out := map[sessionKey]itemStatus{}
	for _, e := range rep.Exited {
		e := e
		out[statusKey(e.Repo, e.WorkItem, e.PRRepo, e.PR, e.Own)] = itemStatus{session: &e, state: e.State + " (" + e.ExitStatus + ")"}
	}
	for _, l := range rep.Live {
		l := l
		out[statusKey(l.Repo, l.WorkItem, l.PRRepo, l.PR, l.Own)] = itemStatus{session: &l, state: "running", waits: claimOf(l.Node, l.PRRepo, l.PR)}
	}
	for _, q := range rep.Queued {
		out[statusKey(q.Repo, q.WorkItem, q.PRRepo, q.PR, q.Own)] = itemStatus{state: "queued",
			waits: fmt.Sprintf("a free session slot (position %d under sessions.max)", q.Position)}
	}
	for _, w := range rep.Waiting {
		out[statusKey(w.Repo, w.WorkItem, w.PRRepo, w.PR, w.Own)] = itemStatus{state: "relaunch pending",
			waits: fmt.Sprintf("the relaunch at %s (the last session ended: %s)", w.Until.UTC().Format("15:04:05 UTC"), w.LastExit)}
	}
	for _, h := range rep.Held {
		out[statusKey(h.Repo, h.WorkItem, h.PRRepo, h.PR, h.Own)] = itemStatus{state: "held", waits: "a human: " + h.Reason}
	}
	for _, e := range rep.Escalations {
		out[statusKey(e.Repo, e.WorkItem, e.PRRepo, e.PR, e.Own)] = itemStatus{state: "escalated", waits: "a human: " + e.Reason}
	}
	for k, why := range held {
		out[k] = itemStatus{state: "held", waits: "a human: " + why}
	}
	return out
}

// demotionLines says why the walk of a handed-off item went back: each
// carried file the import-handoff check refused, and the phase that
// writes it again.
func demotionLines(ds []runtime.Demotion) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "- **handoff:** `%s` was not taken from the handoff (%s); the walk went back to `%s` to write it, and the phases after it run again\n",
			d.Artifact, oneLine(d.Reason), d.Node)
	}
	return b.String()
}

// pullLines renders the item's pull request loops for its status comment:
// where each stands, and its own session or what it waits for.
func pullLines(v *itemView, byKey map[sessionKey]itemStatus) string {
	var b strings.Builder
	for _, l := range v.pulls {
		fmt.Fprintf(&b, "- **pull request %s:** `%s` of pdlc-pr-loop", l.pull, l.node)
		if l.fix != "" {
			fmt.Fprintf(&b, " (%s)", l.fix)
		}
		st, ok := byKey[l.key]
		switch {
		case l.own && ok && st.session != nil:
			fmt.Fprintf(&b, " — its own session `%s` %s", st.session.Session, st.state)
		case l.own && ok:
			fmt.Fprintf(&b, " — its own session: %s; waiting for %s", st.state, st.waits)
		case l.waits != "":
			fmt.Fprintf(&b, " — waiting for %s", l.waits)
		case l.own:
			b.WriteString(" — its own session")
		default:
			b.WriteString(" — worked by the item's session")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// statusBody renders the status comment.
func (p *Poller) statusBody(ctx context.Context, v *itemView, st itemStatus, pulls string, conds []runtime.Condition) string {
	var b strings.Builder
	fmt.Fprintf(&b, "🤖 _the-loop_ — **status of %s**\n\n", v.key.item)
	actor := v.actor
	if actor == "" {
		actor = "agent"
	}
	if v.node == "" {
		fmt.Fprintf(&b, "- **node:** not armed yet (%s)\n", v.loop)
	} else {
		fmt.Fprintf(&b, "- **node:** `%s` (%s) of %s\n", v.node, actor, v.loop)
	}
	if s := st.session; s != nil {
		fmt.Fprintf(&b, "- **session:** `%s` %s — attempt %d, harness %s, %s elapsed\n", s.Session, st.state, s.Attempt, s.Harness,
			p.Svc.now().Sub(s.StartedAt).Round(time.Second))
		if s.Attach != "" {
			fmt.Fprintf(&b, "- **take over:** `%s` on the loop's host\n", s.Attach)
		}
	} else {
		fmt.Fprintf(&b, "- **session:** %s\n", st.state)
	}
	if db, err := p.Svc.writableStore(ctx); err == nil {
		if sp, err := db.ItemSpend(ctx, v.key.repo, v.key.item); err == nil && sp.Sessions > 0 {
			by, _ := db.ItemSpendByHarness(ctx, v.key.repo, v.key.item)
			b.WriteString(spentLines(sp, by))
		}
	}
	fmt.Fprintf(&b, "- **waiting for:** %s\n", st.waits)
	b.WriteString(conditionLines(conds, p.Svc.now()))
	b.WriteString(demotionLines(v.demoted))
	b.WriteString(pulls)
	b.WriteString("\n_The loop edits this comment in place at every transition and session event._\n")
	return b.String()
}
