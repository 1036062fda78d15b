package service

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/the-loop/the-loop/runtime"
)

// Settling the conditions at the end of a cycle: what each item met,
// what it passed, the events they make and the note of an item stuck for
// too long.

// settleConditions ends the cycle's part of the rule: raises what was met,
// updates what changed, clears what passed, tells people of what lasted
// past notify.stuckAfter, and records each transition as an event and a
// log line. It returns the items whose conditions changed or hold, by the
// key their status comment is kept under.
func (p *Poller) settleConditions(ctx context.Context) map[sessionKey]*itemConditions {
	b := &p.conds
	now := p.Svc.now().UTC()
	after := p.Svc.cfg.StuckAfter()
	if ctx.Err() != nil {
		// A cycle cut short (SIGTERM, polling.cycleTimeoutSeconds) met
		// its own end, not the items' faults: nothing it saw is kept.
		b.mu.Lock()
		for _, e := range b.items {
			e.met, e.passed, e.completed, e.touched = map[string]string{}, map[string]bool{}, false, false
		}
		b.mu.Unlock()
		return nil
	}
	b.mu.Lock()
	entries := make([]*itemConditions, 0, len(b.items))
	for _, e := range b.items {
		if e.touched || len(e.open) > 0 {
			entries = append(entries, e)
		}
	}
	b.mu.Unlock()
	out := map[sessionKey]*itemConditions{}
	for _, e := range entries {
		p.loadConditions(ctx, e)
		b.mu.Lock()
		evs, notify := p.settleItem(e, now, after)
		met := len(e.open) > 0
		e.met, e.passed, e.completed, e.touched = map[string]string{}, map[string]bool{}, false, false
		b.mu.Unlock()
		for _, c := range notify {
			p.notifyStuck(ctx, e, c, now)
		}
		if len(evs) > 0 {
			if err := p.Svc.appendRaw(ctx, e.repo, e.item.id, evs); err != nil {
				p.log().Warn("could not record the item's conditions", "workItem", e.item.id, "err", err)
			}
		}
		if met || len(evs) > 0 {
			out[sessionKey{repo: e.repo, item: e.item.id}] = e
		}
	}
	return out
}

// settleItem applies one item's cycle to its conditions (the book is
// locked). It returns the events to record and the conditions to tell
// people of.
func (p *Poller) settleItem(e *itemConditions, now time.Time, after time.Duration) ([]runtime.EventRecord, []runtime.Condition) {
	var evs []runtime.EventRecord
	stamp := now.Format(time.RFC3339)
	kinds := make([]string, 0, len(e.met))
	for k := range e.met {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, kind := range kinds {
		msg := oneLine(e.met[kind])
		c := e.open[kind]
		switch {
		case c == nil:
			c = &runtime.Condition{Kind: kind, Since: stamp, Message: msg, Clears: clearsBy[kind]}
			e.open[kind] = c
			evs = append(evs, runtime.ConditionEvent(runtime.EventConditionRaised, *c))
			p.log().Warn("the item is stuck", "workItem", e.item.id, "condition", kind, "message", msg, "clears", c.Clears)
		case c.Message != msg:
			c.Message = msg
			evs = append(evs, runtime.ConditionEvent(runtime.EventConditionChanged, *c))
			p.log().Warn("the item is still stuck", "workItem", e.item.id, "condition", kind, "message", msg)
		}
	}
	for kind, c := range e.open {
		if _, met := e.met[kind]; met {
			continue
		}
		if e.passed[kind] || (e.completed && !slices.Contains(clearedByPass, kind)) {
			delete(e.open, kind)
			ev := runtime.ConditionEvent(runtime.EventConditionCleared, *c)
			if since, err := time.Parse(time.RFC3339Nano, c.Since); err == nil {
				ev.Data["lastedSeconds"] = int(now.Sub(since).Seconds())
			}
			evs = append(evs, ev)
			p.log().Info("the item is no longer stuck", "workItem", e.item.id, "condition", kind, "since", c.Since)
		}
	}
	var notify []runtime.Condition
	for _, c := range e.open {
		since, err := time.Parse(time.RFC3339Nano, c.Since)
		if c.Notified != "" || after <= 0 || err != nil || now.Sub(since) < after {
			continue
		}
		c.Notified = stamp
		ev := runtime.ConditionEvent(runtime.EventConditionNotified, *c)
		ev.Data["afterSeconds"] = int(after.Seconds())
		evs = append(evs, ev)
		notify = append(notify, *c)
	}
	return evs, notify
}

// loadConditions reads, once, the conditions that held for the item when
// this poller started (so their age survives a restart).
func (p *Poller) loadConditions(ctx context.Context, e *itemConditions) {
	p.conds.mu.Lock()
	done, repo, id := e.loaded, e.repo, e.item.id
	p.conds.mu.Unlock()
	if done || repo == "" || id == "" {
		return
	}
	evs, err := p.Svc.eventsRaw(ctx, repo, id)
	if err != nil {
		return // the store failing is itself met; read again next cycle
	}
	p.conds.mu.Lock()
	defer p.conds.mu.Unlock()
	for _, c := range runtime.Conditions(evs) {
		if e.open[c.Kind] == nil {
			c := c
			e.open[c.Kind] = &c
		}
	}
	e.loaded = true
}

// notifyStuck tells people that the item has been stuck past
// notify.stuckAfter: a notice to Slack where one is configured (and
// subscribed to item-stuck), and always a warning in the log.
func (p *Poller) notifyStuck(ctx context.Context, e *itemConditions, c runtime.Condition, now time.Time) {
	lasted := "a while"
	if since, err := time.Parse(time.RFC3339Nano, c.Since); err == nil {
		lasted = now.Sub(since).Round(time.Second).String()
	}
	ref := ""
	if e.item.ref.System != "" {
		ref = " (" + e.item.ref.String() + ")"
	}
	text := fmt.Sprintf("the-loop: %s%s has been stuck for %s: %s — %s", e.item.id, ref, lasted, c.Kind+": "+c.Message, c.Clears)
	p.log().Warn("the item has been stuck past notify.stuckAfter", "workItem", e.item.id, "condition", c.Kind, "since", c.Since)
	n := p.Svc.deps.Notifier
	if n == nil {
		return
	}
	if evs := p.Svc.cfg.Integrations.Slack.Events; len(evs) > 0 && !slices.Contains(evs, EventItemStuck) {
		return
	}
	if err := n.Notify(ctx, EventItemStuck, text); err != nil {
		p.log().Warn("could not tell people the item is stuck", "workItem", e.item.id, "err", err)
	}
}

// conditionLines renders the conditions for a status comment, as of now.
func conditionLines(conds []runtime.Condition, now time.Time) string {
	var b strings.Builder
	for _, c := range conds {
		fmt.Fprintf(&b, "- **stuck:** %s\n", c.Line(now))
	}
	return b.String()
}

// conditionSig is what of the conditions changes a status comment: their
// kinds and messages, never their age.
func conditionSig(conds []runtime.Condition) string {
	parts := make([]string, 0, len(conds))
	for _, c := range conds {
		parts = append(parts, c.Kind+"="+c.Message+"="+c.Notified)
	}
	return strings.Join(parts, "\x01")
}
