package continuity

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/the-loop/the-loop/internal/atomicfile"
)

// Start modes.
const (
	ModeFresh   = "fresh"
	ModeResumed = "resumed"
)

// InitOptions are the facts a fresh start records. Only Goal is required,
// and only when no earlier set offers one to recover.
type InitOptions struct {
	Goal      string `json:"goal"`
	Scope     string `json:"scope,omitempty"`
	Rationale string `json:"rationale,omitempty"`
	Next      string `json:"next,omitempty"`
}

// StartResult reports whether the session resumed or started fresh.
type StartResult struct {
	Mode       string      `json:"mode"`
	Session    string      `json:"session"`
	Goal       string      `json:"goal"`
	Status     string      `json:"status"`
	NextAction string      `json:"nextAction"`
	DeathPoint string      `json:"deathPoint"`
	Resumed    string      `json:"resumedFrom,omitempty"`
	Rejected   *Rejection  `json:"rejected,omitempty"`
	Ignore     IgnoreProof `json:"ignore"`
}

// ErrNoGoal is returned when a fresh start has no goal to record.
var ErrNoGoal = errors.New("continuity: no resumable continuity set and no goal to start a fresh one: pass the goal (the-loop continuity init --goal TEXT)")

// Init resumes the live set when it is resumable, and otherwise starts a
// fresh one for opts.Goal (or the goal recovered from a rejected set).
func (s *Set) Init(opts InitOptions) (StartResult, error) {
	return locked(s, func() (StartResult, error) { return s.start(opts) })
}

// Resume resumes the live set when it is resumable; otherwise it starts
// fresh from the goal a rejected set still records, or fails with ErrNoGoal.
func (s *Set) Resume() (StartResult, error) {
	return locked(s, func() (StartResult, error) { return s.start(InitOptions{}) })
}

func (s *Set) start(opts InitOptions) (StartResult, error) {
	proof, err := s.EnsureIgnored()
	if err != nil {
		return StartResult{}, err
	}
	l := s.load(s.Dir())
	var res StartResult
	if l.usable() {
		res, err = s.resume(l, opts)
	} else {
		res, err = s.fresh(l.rejection, opts)
	}
	res.Ignore = proof
	return res, err
}

func newHandle(now time.Time) string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		copy(b, fmt.Sprintf("%04d", now.Nanosecond()%10000))
	}
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b)
}

// ShortHandle is the last dash-separated part of a session handle.
func ShortHandle(h string) string {
	if i := strings.LastIndexByte(h, '-'); i >= 0 && i < len(h)-1 {
		return h[i+1:]
	}
	return h
}

func sessionNodeID(handle string) string { return "session-" + ShortHandle(handle) }

func (s *Set) fresh(rej *Rejection, opts InitOptions) (StartResult, error) {
	goal := oneLine(opts.Goal)
	if goal == "" && rej != nil {
		goal = rej.RecoveredGoal
	}
	if goal == "" {
		if rej != nil {
			return StartResult{Rejected: rej}, fmt.Errorf("%w (%s)", ErrNoGoal, rej.Message())
		}
		return StartResult{}, ErrNoGoal
	}
	if err := os.MkdirAll(s.Dir(), 0o755); err != nil {
		return StartResult{}, fmt.Errorf("continuity: create %s: %w", s.rel(s.Dir()), err)
	}
	if rej != nil {
		at, err := s.preserve(rej)
		if err != nil {
			return StartResult{Rejected: rej}, err
		}
		rej.PreservedAt = at
	}
	now := s.now()
	handle := newHandle(now)
	dp := DeathPoint{
		Status: StatusActive, Started: ModeFresh, Repository: s.Identity, Session: handle,
		Harness: s.Harness, Goal: goal, Updated: now, NextAction: initNextAction,
	}
	if err := s.writeFile(DeathPointFile, dp.render()); err != nil {
		return StartResult{}, err
	}
	if s.afterEmergency != nil {
		s.afterEmergency()
	}
	text := "Goal: " + goal
	if opts.Scope != "" {
		text += "\nScope: " + oneLine(opts.Scope)
	}
	if rej != nil {
		text += "\nStarted fresh: " + rej.Message()
	}
	notes := Notes{
		Repository: s.Identity, Goal: goal, Scope: oneLine(opts.Scope), Session: handle, Started: now, Revision: 1,
		Records: []Record{{At: now, Kind: kindStart, Session: handle, Text: text, Why: oneLine(opts.Rationale)}},
	}
	graph := TaskGraph{Revision: 1, Nodes: []Node{{ID: sessionNodeID(handle), Kind: NodeSession, Status: StatusActive, Text: "session " + handle + " started fresh"}}}
	next := oneLine(opts.Next)
	if next == "" {
		next = "record the first task"
	}
	dp.Revision, dp.LastCompleted, dp.NextAction = 1, "initialized continuity state (fresh)", next
	if err := s.writeSet(notes, graph, dp); err != nil {
		return StartResult{}, err
	}
	return StartResult{
		Mode: ModeFresh, Session: handle, Goal: goal, Status: dp.Status, NextAction: dp.NextAction,
		DeathPoint: s.rel(s.DeathPointPath()), Rejected: rej,
	}, nil
}

func (s *Set) resume(l loaded, opts InitOptions) (StartResult, error) {
	old, notes, graph := *l.dp, *l.notes, *l.graph
	now := s.now()
	handle := newHandle(now)
	notes.Records = append(notes.Records, Record{
		At: now, Kind: kindResumed, Session: handle,
		Text: fmt.Sprintf("resumed from session %s (%s, last updated %s); next action was: %s", old.Session, old.Status, formatTime(old.Updated), old.NextAction),
	})
	if g := oneLine(opts.Goal); g != "" && g != notes.Goal {
		notes.Records = append(notes.Records, Record{At: now, Kind: kindScope, Session: handle, Text: "goal restated: " + g, Why: oneLine(opts.Rationale)})
	}
	prev := graph.node(sessionNodeID(old.Session))
	if prev == nil {
		graph.Nodes = append(graph.Nodes, Node{ID: sessionNodeID(old.Session), Kind: NodeSession, Text: "session " + old.Session})
		prev = &graph.Nodes[len(graph.Nodes)-1]
	}
	prev.Status = StatusResumed
	prevID := prev.ID
	graph.Nodes = append(graph.Nodes, Node{ID: sessionNodeID(handle), Kind: NodeSession, Status: StatusActive, Text: "session " + handle + " resumed " + old.Session})
	graph.addEdge(prevID, sessionNodeID(handle), EdgeSequence)
	dp := old
	dp.Status, dp.Started, dp.Session, dp.Harness, dp.Updated = StatusActive, ModeResumed, handle, s.Harness, now
	dp.LastCompleted = "resumed session " + ShortHandle(old.Session)
	if next := oneLine(opts.Next); next != "" {
		dp.NextAction = next
	}
	dp.Blockers = graph.openBlockers()
	rev := old.Revision + 1
	notes.Revision, graph.Revision, dp.Revision = rev, rev, rev
	if err := s.writeSet(notes, graph, dp); err != nil {
		return StartResult{}, err
	}
	return StartResult{
		Mode: ModeResumed, Session: handle, Goal: dp.Goal, Status: dp.Status, NextAction: dp.NextAction,
		DeathPoint: s.rel(s.DeathPointPath()), Resumed: old.Session,
	}, nil
}

// writeFile writes one continuity file atomically, naming it on failure.
func (s *Set) writeFile(name string, data []byte) error {
	if err := atomicfile.Write(filepath.Join(s.Dir(), name), data, 0o644); err != nil {
		return fmt.Errorf("continuity: failed to write %s (earlier files are intact): %w", name, err)
	}
	return nil
}
