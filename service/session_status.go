package service

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/the-loop/the-loop/sessions"
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
func (p *Poller) postStatuses(ctx context.Context, views map[sessionKey]*itemView, srep SessionsReport, held map[sessionKey]string) {
	byKey := statusesByItem(srep.Report, held)
	for key, v := range views {
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
		sig := strings.Join([]string{v.node, st.state, sid, st.waits}, "\x00")
		p.acts.mu.Lock()
		same := p.acts.posted[key] == sig
		p.acts.mu.Unlock()
		if same {
			continue
		}
		item := v.item
		if item.prov == nil || p.upsert(ctx, &item, statusMarker, p.statusBody(ctx, v, st)) != nil {
			continue
		}
		p.acts.mu.Lock()
		p.acts.posted[key] = sig
		p.acts.mu.Unlock()
	}
}

// statusesByItem indexes what the supervisor said about each item.
func statusesByItem(rep sessions.Report, held map[sessionKey]string) map[sessionKey]itemStatus {
	out := map[sessionKey]itemStatus{}
	for _, e := range rep.Exited {
		e := e
		out[sessionKey{repo: e.Repo, item: e.WorkItem}] = itemStatus{session: &e, state: e.State + " (" + e.ExitStatus + ")"}
	}
	for _, l := range rep.Live {
		l := l
		out[sessionKey{repo: l.Repo, item: l.WorkItem}] = itemStatus{session: &l, state: "running",
			waits: fmt.Sprintf("the session's claim of `%s`", l.Node)}
	}
	for _, q := range rep.Queued {
		out[sessionKey{repo: q.Repo, item: q.WorkItem}] = itemStatus{state: "queued",
			waits: fmt.Sprintf("a free session slot (position %d under sessions.max)", q.Position)}
	}
	for _, w := range rep.Waiting {
		out[sessionKey{repo: w.Repo, item: w.WorkItem}] = itemStatus{state: "relaunch pending",
			waits: fmt.Sprintf("the relaunch at %s (the last session ended: %s)", w.Until.UTC().Format("15:04:05 UTC"), w.LastExit)}
	}
	for _, h := range rep.Held {
		out[sessionKey{repo: h.Repo, item: h.WorkItem}] = itemStatus{state: "held", waits: "a human: " + h.Reason}
	}
	for _, e := range rep.Escalations {
		out[sessionKey{repo: e.Repo, item: e.WorkItem}] = itemStatus{state: "escalated", waits: "a human: " + e.Reason}
	}
	for k, why := range held {
		out[k] = itemStatus{state: "held", waits: "a human: " + why}
	}
	return out
}

// statusBody renders the status comment.
func (p *Poller) statusBody(ctx context.Context, v *itemView, st itemStatus) string {
	var b strings.Builder
	fmt.Fprintf(&b, "🤖 _the-loop_ — **status of %s**\n\n", v.key.item)
	actor := v.actor
	if actor == "" {
		actor = "agent"
	}
	fmt.Fprintf(&b, "- **node:** `%s` (%s) of %s\n", v.node, actor, v.loop)
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
			fmt.Fprintf(&b, "- **spent so far:** %d session(s), %d turns, %d tokens, $%.2f\n", sp.Sessions, sp.Turns, sp.Tokens, sp.CostUSD)
		}
	}
	fmt.Fprintf(&b, "- **waiting for:** %s\n", st.waits)
	b.WriteString("\n_The loop edits this comment in place at every transition and session event._\n")
	return b.String()
}
