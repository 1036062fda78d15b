package runtime

import (
	"fmt"
	"sort"
	"time"
)

// A Condition is why an item is stuck outside its walk: the poller met an
// error for it (git, the tracker, the store, a session launch) and keeps
// meeting it. It is not a verdict: the walk stands where it stood, and the
// condition says what stops it and how it ends. The poller raises, updates
// and clears conditions as events in the item's log (EventConditionRaised …
// EventConditionCleared); Conditions folds the log into the set that holds
// now, which is what `graph status`, the status comment and the web view
// read.
type Condition struct {
	// Kind names the condition (one of the Condition… constants).
	Kind string `json:"kind"`
	// Since is when it was first met (RFC 3339).
	Since string `json:"since"`
	// Message says what happened, with the error met.
	Message string `json:"message"`
	// Clears says how it ends, in words ("clears by itself once a push
	// goes through").
	Clears string `json:"clears"`
	// Notified is when the people were told it lasts past
	// notify.stuckAfter ("" when not yet).
	Notified string `json:"notified,omitempty"`
}

// Condition kinds. Each is raised by one step of the poller's cycle and
// cleared when that step passes again.
const (
	// ConditionTreeMissing: the item's working tree was gone; the loop
	// re-creates it from the item's branch.
	ConditionTreeMissing = "tree-missing"
	// ConditionTreeDirty: files nobody committed stopped the tree from
	// following its branch, or the tree was broken; the loop sets the
	// files aside and re-creates the tree.
	ConditionTreeDirty = "tree-dirty"
	// ConditionTreeConflict: the item's branch and the remote's diverged;
	// a human merges them.
	ConditionTreeConflict = "tree-conflict"
	// ConditionPushRefused: the remote refuses pushes of the item's branch;
	// no session is launched against it until a push goes through.
	ConditionPushRefused = "push-refused"
	// ConditionGit: another git step on the item's tree failed.
	ConditionGit = "git"
	// ConditionTracker: the item's ticket could not be read or written.
	ConditionTracker = "tracker"
	// ConditionStore: the state store failed for the item.
	ConditionStore = "store"
	// ConditionLaunch: a session could not be prepared or started.
	ConditionLaunch = "launch"
	// ConditionCycle: any other error of the item's cycle.
	ConditionCycle = "cycle"
)

// Events of the condition log.
const (
	EventConditionRaised   = "condition.raised"
	EventConditionChanged  = "condition.changed"
	EventConditionNotified = "condition.notified"
	EventConditionCleared  = "condition.cleared"
)

// ConditionEvent is the event recording c's raise (or, with name, its
// change, notification or clearing).
func ConditionEvent(name string, c Condition) EventRecord {
	data := map[string]any{"kind": c.Kind, "message": c.Message, "clears": c.Clears, "since": c.Since}
	if c.Notified != "" {
		data["notified"] = c.Notified
	}
	return EventRecord{Name: name, Data: data}
}

// Conditions folds an item's event log into the conditions that hold at
// its end, by kind, oldest first.
func Conditions(evs []EventRecord) []Condition {
	open := map[string]*Condition{}
	for _, ev := range evs {
		kind, _ := ev.Data["kind"].(string)
		if kind == "" {
			continue
		}
		str := func(k string) string { s, _ := ev.Data[k].(string); return s }
		switch ev.Name {
		case EventConditionRaised:
			c := &Condition{Kind: kind, Since: str("since"), Message: str("message"), Clears: str("clears")}
			if c.Since == "" {
				c.Since = ev.At
			}
			open[kind] = c
		case EventConditionChanged:
			if c := open[kind]; c != nil {
				c.Message, c.Clears = str("message"), str("clears")
			}
		case EventConditionNotified:
			if c := open[kind]; c != nil {
				c.Notified = ev.At
			}
		case EventConditionCleared:
			delete(open, kind)
		}
	}
	out := make([]Condition, 0, len(open))
	for _, c := range open {
		out = append(out, *c)
	}
	SortConditions(out)
	return out
}

// SortConditions orders conditions oldest first, then by kind.
func SortConditions(cs []Condition) {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].Since != cs[j].Since {
			return cs[i].Since < cs[j].Since
		}
		return cs[i].Kind < cs[j].Kind
	})
}

// Line renders the condition as the status comment and graph status show
// it: its kind, since when and for how long (as of now), what happened and
// how it clears.
func (c Condition) Line(now time.Time) string {
	since := c.Since
	if t, err := time.Parse(time.RFC3339Nano, c.Since); err == nil {
		since = t.UTC().Format("2006-01-02 15:04:05 UTC")
		if d := now.Sub(t); d >= time.Second {
			since += fmt.Sprintf(", %s ago", d.Round(time.Second))
		}
	}
	line := fmt.Sprintf("`%s` since %s: %s", c.Kind, since, c.Message)
	if c.Clears != "" {
		line += " — " + c.Clears
	}
	return line
}
