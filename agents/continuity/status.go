package continuity

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Status states.
const (
	StateNone     = "none"
	StateUnusable = "unusable"
)

// nothingDone is the last completed item while no entry is done yet.
const nothingDone = "none"

// StatusReport is the read-only view of the live continuity set.
type StatusReport struct {
	// State is none, active, interrupted, completed or unusable.
	State      string `json:"state"`
	Started    string `json:"started,omitempty"`
	Repository string `json:"repository"`
	Session    string `json:"session,omitempty"`
	Goal       string `json:"goal,omitempty"`
	Phase      string `json:"phase,omitempty"`
	Updated    string `json:"updated,omitempty"`
	// LastCompleted is the newest entry that is done: a finished task or
	// blocker, a decision, or the completed goal; "none" when nothing is.
	LastCompleted string     `json:"lastCompleted,omitempty"`
	NextAction    string     `json:"nextAction,omitempty"`
	Blockers      []string   `json:"blockers,omitempty"`
	OpenTasks     []string   `json:"openTasks,omitempty"`
	Revision      int        `json:"revision"`
	DeathPoint    string     `json:"deathPoint"`
	Rejection     *Rejection `json:"rejection,omitempty"`
	Preserved     []string   `json:"preserved,omitempty"`
}

// Status reads the live set without writing anything (beyond finishing a
// write that a killed process left part-way).
// It holds the repository's continuity lock, so calls from several
// processes never interleave.
func (s *Set) Status() (StatusReport, error) {
	return locked(s, func() (StatusReport, error) { return s.status() })
}

// status is Status without the lock.
func (s *Set) status() (StatusReport, error) {
	rep := StatusReport{State: StateNone, Repository: s.Identity, DeathPoint: s.rel(s.DeathPointPath())}
	l := s.load(s.Dir())
	switch {
	case l.absent:
	case l.rejection != nil && l.rejection.Reason != ReasonCompleted:
		rep.State, rep.Rejection = StateUnusable, l.rejection
	default:
		rep.State = l.dp.Status
	}
	if l.dp != nil {
		rep.Started, rep.Session, rep.Goal, rep.Phase = l.dp.Started, l.dp.Session, l.dp.Goal, l.dp.Phase
		rep.Updated, rep.LastCompleted, rep.NextAction = formatTime(l.dp.Updated), l.dp.LastCompleted, l.dp.NextAction
		rep.Blockers, rep.Revision = l.dp.Blockers, l.dp.Revision
	}
	if l.notes != nil && l.graph != nil {
		// The notes and graph decide what is done; the death point's label
		// may predate a reopened task.
		rep.LastCompleted = lastDone(l.notes.Records, l.graph)
	}
	if l.graph != nil {
		for _, n := range l.graph.Nodes {
			if n.Kind == NodeTask && (n.Status == StatusOpen || n.Status == StatusBlocked) {
				rep.OpenTasks = append(rep.OpenTasks, n.ID+" ["+n.Status+"]: "+n.Text)
			}
		}
	}
	rep.Preserved = s.preservedDirs()
	return rep, nil
}

// preservedDirs lists kept rejected sets, relative to the repository root.
func (s *Set) preservedDirs() []string {
	entries, err := os.ReadDir(filepath.Join(s.Dir(), RejectedDir))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, s.rel(filepath.Join(s.Dir(), RejectedDir, e.Name())))
		}
	}
	sort.Strings(out)
	return out
}

// lastDone names the newest notes entry that is done now: a task or
// blocker recorded done and still done in the graph, a decision, or the
// completed goal. Open, blocked, reopened and deferred items never count,
// and neither do discoveries or phase boundaries (they finish nothing).
func lastDone(records []Record, g *TaskGraph) string {
	for i := len(records) - 1; i >= 0; i-- {
		r := records[i]
		switch r.Kind {
		case kindCompleted:
			result := strings.TrimPrefix(strings.SplitN(r.Text, "\n", 2)[0], "Result: ")
			if result == "" || result == defaultResult {
				return "goal completed"
			}
			return "goal completed: " + nodeText(result)
		case KindDecision:
			return fmt.Sprintf("decision %s: %s", r.Node, doneText(r, g))
		case KindTask, KindBlocker:
			if n := g.node(r.Node); r.Status == StatusDone && n != nil && n.Status == StatusDone {
				return fmt.Sprintf("%s %s (done): %s", r.Kind, r.Node, doneText(r, g))
			}
		}
	}
	return nothingDone
}

// doneText is the node's current text, else the record's own summary.
func doneText(r Record, g *TaskGraph) string {
	if n := g.node(r.Node); n != nil && n.Text != "" {
		return n.Text
	}
	return nodeText(r.Text)
}
