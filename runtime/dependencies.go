package runtime

import (
	"slices"
	"strings"
)

// The verdicts a dependency record carries: the dag package's, plus
// DepUnread for a graph that could not be read.
const (
	DepReady    = "ready"
	DepHeld     = "held"
	DepCycle    = "cycle"
	DepUnknown  = "unknown"
	DepWorking  = "working"
	DepComplete = "complete"
	DepClosed   = "closed"
	DepUnread   = "unread"
)

// Dependencies is what the poller last read of a work item's place in its
// dependency graph: the recorded fact the await-blockers hook holds the item
// on at phase selection. The poller rewrites it only when what it says
// changes (Since is when that was), so the portable record does not churn;
// when the poller last read it is kept in the store beside it.
type Dependencies struct {
	// Verdict is one of the Dep* verdicts.
	Verdict string `json:"verdict"`
	// Hold: the item may not leave phase selection.
	Hold bool `json:"hold"`
	// Status is the line check and graph status print, e.g.
	// "blocked by #2 (at design)".
	Status string `json:"status"`
	// Blockers are the unfinished items it waits for, qualified
	// (github:OWNER/REPO#N, jira:KEY-N), with where each stands.
	Blockers []DependencyBlocker `json:"blockers,omitempty"`
	// Since is when the poller first read what this records (RFC 3339).
	Since string `json:"since"`
}

// DependencyBlocker is one unfinished blocker.
type DependencyBlocker struct {
	Ref string `json:"ref"`
	// At says where it stands: "at design", "not started", "in a cycle".
	At string `json:"at"`
}

// Holds reports whether d keeps an item that has not started at phase
// selection. Every part of the record that names a reason to wait holds on
// its own — a verdict that waits, the hold flag, a listed blocker — so a
// record edited to say more than the poller read can only add a hold, and
// one edited to say less is never read where a release is decided (the
// poller records a fresh read before every gate evaluation).
func (d *Dependencies) Holds() bool {
	if d == nil {
		return false
	}
	switch d.Verdict {
	case DepHeld, DepCycle, DepUnknown, DepUnread:
		return true
	}
	return d.Hold || len(d.Blockers) > 0
}

// Same reports whether d and o record the same read (Since aside).
func (d *Dependencies) Same(o *Dependencies) bool {
	if d == nil || o == nil {
		return d == o
	}
	return d.Verdict == o.Verdict && d.Hold == o.Hold && d.Status == o.Status && slices.Equal(d.Blockers, o.Blockers)
}

// Message is the record's status line ("" for nil): its Status, else its
// blockers.
func (d *Dependencies) Message() string {
	switch {
	case d == nil:
		return ""
	case d.Status != "":
		return d.Status
	case len(d.Blockers) > 0:
		parts := make([]string, 0, len(d.Blockers))
		for _, b := range d.Blockers {
			parts = append(parts, b.Ref+" ("+b.At+")")
		}
		return "blocked by " + strings.Join(parts, ", ")
	}
	return d.Verdict
}

// DependencyReport is the dependency line of a check report: the recorded
// read, with when the poller last read it.
type DependencyReport struct {
	Dependencies
	// ReadAt is when the poller last read the graph (RFC 3339), from the
	// store; "" when this store holds no read of it (the record came from
	// the portable record, or another host's poller).
	ReadAt string `json:"readAt,omitempty"`
	// Age is how long before the report ReadAt was, e.g. "3m" ("" when
	// ReadAt is unknown); printed, never part of the JSON.
	Age string `json:"-"`
}
