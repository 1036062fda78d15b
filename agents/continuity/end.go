package continuity

import (
	"fmt"
	"strings"
)

// Ending kinds.
const (
	EndInterrupted = "interrupted"
	EndCompleted   = "completed"
)

// EndOptions mark how the session ends.
type EndOptions struct {
	// Kind is interrupted or completed.
	Kind string `json:"kind"`
	// Next is the exact next action (replaces the recorded one).
	Next string `json:"next,omitempty"`
	// Result is what was achieved when Kind is completed (default
	// "completed").
	Result string `json:"result,omitempty"`
}

// defaultResult is the result a completed ending records when none is given.
const defaultResult = "completed"

// End sets the ending marker. Interrupted keeps every open node and records
// the exact next action; completed appends the result (default
// "completed") and the residual
// work, classifies every open node as deferred, and makes the next session
// start fresh.
// It holds the repository's continuity lock, so calls from several
// processes never interleave.
func (s *Set) End(opts EndOptions) (UpdateResult, error) {
	return locked(s, func() (UpdateResult, error) { return s.end(opts) })
}

// end is End without the lock.
func (s *Set) end(opts EndOptions) (UpdateResult, error) {
	switch opts.Kind {
	case EndInterrupted, EndCompleted:
	default:
		return UpdateResult{}, fmt.Errorf("continuity: ending %q is not interrupted or completed", opts.Kind)
	}
	if _, err := s.EnsureIgnored(); err != nil {
		return UpdateResult{}, err
	}
	l, err := s.live()
	if err != nil {
		return UpdateResult{}, err
	}
	notes, graph, dp := *l.notes, *l.graph, *l.dp
	now := s.now()
	if next := oneLine(opts.Next); next != "" {
		dp.NextAction = next
	}
	session := graph.node(sessionNodeID(dp.Session))
	var rec Record
	if opts.Kind == EndInterrupted {
		dp.Status = StatusInterrupted
		rec = Record{At: now, Kind: kindInterrupted, Session: dp.Session, Text: "session interrupted; next action: " + dp.NextAction}
		if session != nil {
			session.Status = StatusInterrupted
		}
	} else {
		var residual []string
		for i := range graph.Nodes {
			n := &graph.Nodes[i]
			if (n.Kind == NodeTask || n.Kind == NodeBlocker) && n.Status != StatusDone && n.Status != StatusDeferred {
				residual = append(residual, fmt.Sprintf("%s %s (was %s): %s", n.Kind, n.ID, n.Status, n.Text))
				n.Status = StatusDeferred
			}
		}
		result := oneLine(opts.Result)
		if result == "" {
			result = defaultResult
		}
		text := "Result: " + result
		if len(residual) == 0 {
			text += "\nResidual work: none"
		} else {
			text += "\nResidual work (deferred):\n- " + strings.Join(residual, "\n- ")
		}
		rec = Record{At: now, Kind: kindCompleted, Session: dp.Session, Text: text}
		dp.Status = StatusCompleted
		if opts.Next == "" {
			dp.NextAction = "none: the goal is complete"
			if len(residual) > 0 {
				dp.NextAction = fmt.Sprintf("none in this set: %d deferred item(s) listed in the notes need a new session", len(residual))
			}
		}
		if session != nil {
			session.Status = StatusCompleted
		}
	}
	notes.Records = append(notes.Records, l.repairRecords(now)...)
	notes.Records = append(notes.Records, rec)
	dp.Updated = now
	if opts.Kind == EndCompleted {
		dp.LastCompleted = lastDone(notes.Records, &graph)
	}
	dp.Blockers = graph.openBlockers()
	rev := l.nextRevision()
	notes.Revision, graph.Revision, dp.Revision = rev, rev, rev
	if err := s.writeSet(notes, graph, dp); err != nil {
		return UpdateResult{}, err
	}
	return UpdateResult{
		Kind: opts.Kind, Status: dp.Status, Revision: rev, NextAction: dp.NextAction,
		Blockers: dp.Blockers, DeathPoint: s.rel(s.DeathPointPath()),
	}, nil
}
