package continuity

import (
	"os"
	"path/filepath"
	"sort"
)

// Status states.
const (
	StateNone     = "none"
	StateUnusable = "unusable"
)

// StatusReport is the read-only view of the live continuity set.
type StatusReport struct {
	// State is none, active, interrupted, completed or unusable.
	State         string     `json:"state"`
	Started       string     `json:"started,omitempty"`
	Repository    string     `json:"repository"`
	Session       string     `json:"session,omitempty"`
	Goal          string     `json:"goal,omitempty"`
	Phase         string     `json:"phase,omitempty"`
	Updated       string     `json:"updated,omitempty"`
	LastCompleted string     `json:"lastCompleted,omitempty"`
	NextAction    string     `json:"nextAction,omitempty"`
	Blockers      []string   `json:"blockers,omitempty"`
	OpenTasks     []string   `json:"openTasks,omitempty"`
	Revision      int        `json:"revision"`
	DeathPoint    string     `json:"deathPoint"`
	Rejection     *Rejection `json:"rejection,omitempty"`
	Preserved     []string   `json:"preserved,omitempty"`
}

// Status reads the live set without writing anything.
func (s *Set) Status() (StatusReport, error) {
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
