package continuity

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/the-loop/the-loop/internal/atomicfile"
)

// Rejection explains why an existing continuity set was not resumed.
type Rejection struct {
	Reason Reason `json:"reason"`
	Detail string `json:"detail"`
	// PreservedAt is where the rejected files were moved, relative to the
	// repository root (set once a fresh start moved them aside).
	PreservedAt string `json:"preservedAt,omitempty"`
	// RecoveredGoal is the goal a fresh start can carry over.
	RecoveredGoal string `json:"recoveredGoal,omitempty"`
	// Emergency is true when only the minimal death point was flushed.
	Emergency bool `json:"emergency,omitempty"`
}

// Message is the one-line human form of the rejection.
func (r *Rejection) Message() string {
	reason := string(r.Reason)
	if r.Reason == ReasonOtherProject {
		reason = "other project"
	}
	msg := fmt.Sprintf("previous continuity set rejected (%s): %s", reason, r.Detail)
	if r.PreservedAt != "" {
		msg += "; kept at " + r.PreservedAt
	}
	return msg
}

// loaded is what is on disk in one continuity directory.
type loaded struct {
	absent    bool
	dp        *DeathPoint
	notes     *Notes
	graph     *TaskGraph
	rejection *Rejection
	// torn is set when all three files parse but their revisions disagree:
	// an update was cut short between its writes (by an older release, or
	// by a hand edit).
	torn bool
	// repair, once live accepted a torn set, is the note the next write
	// records about it.
	repair string
}

// nextRevision is one past the newest revision of any part.
func (l loaded) nextRevision() int {
	return max(l.dp.Revision, l.notes.Revision, l.graph.Revision) + 1
}

// repairRecords is the note a write adds about a torn set it repaired.
func (l loaded) repairRecords(at time.Time) []Record {
	if l.repair == "" {
		return nil
	}
	return []Record{{At: at, Kind: kindRepaired, Session: l.dp.Session, Text: l.repair}}
}

// usable reports a set that may be resumed.
func (l loaded) usable() bool { return !l.absent && l.rejection == nil }

func readOptional(path string) ([]byte, bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	return data, true, nil
}

// load reads and classifies the set in dir against the current identity.
func (s *Set) load(dir string) loaded {
	type part struct {
		data    []byte
		present bool
		err     error
	}
	read := func(name string) part {
		d, ok, err := readOptional(filepath.Join(dir, name))
		return part{d, ok, err}
	}
	dpP, notesP, graphP := read(DeathPointFile), read(NotesFile), read(GraphFile)
	if !dpP.present && !notesP.present && !graphP.present {
		return loaded{absent: true}
	}
	var l loaded
	reject := func(reason Reason, format string, args ...any) loaded {
		l.rejection = &Rejection{Reason: reason, Detail: fmt.Sprintf(format, args...)}
		if l.dp != nil && l.dp.Status != StatusCompleted && strings.EqualFold(l.dp.Repository, s.Identity) {
			l.rejection.RecoveredGoal = l.dp.Goal
		} else if l.dp == nil && l.notes != nil && strings.EqualFold(l.notes.Repository, s.Identity) {
			l.rejection.RecoveredGoal = l.notes.Goal
		}
		return l
	}
	fromErr := func(err error) loaded {
		var fe *fileError
		if errors.As(err, &fe) {
			return reject(fe.Reason, "%s", fe.Error())
		}
		return reject(ReasonCorrupt, "%v", err)
	}
	for _, p := range []struct {
		name string
		part part
	}{{DeathPointFile, dpP}, {NotesFile, notesP}, {GraphFile, graphP}} {
		if p.part.err != nil {
			return reject(ReasonCorrupt, "%s is unreadable: %v", p.name, p.part.err)
		}
	}
	if notesP.present {
		if n, err := parseNotes(notesP.data); err == nil {
			l.notes = &n
		}
	}
	if !dpP.present {
		return reject(ReasonIncomplete, "%s is missing", DeathPointFile)
	}
	dp, err := parseDeathPoint(dpP.data)
	if err != nil {
		return fromErr(err)
	}
	l.dp = &dp
	if !strings.EqualFold(dp.Repository, s.Identity) {
		return reject(ReasonOtherProject, "recorded for %s, but this repository is %s", dp.Repository, s.Identity)
	}
	if !notesP.present || !graphP.present {
		missing := NotesFile
		if notesP.present {
			missing = GraphFile
		} else if !graphP.present {
			missing = NotesFile + " and " + GraphFile
		}
		l = reject(ReasonIncomplete, "%s missing", missing)
		if dp.minimal() {
			l.rejection.Emergency = true
			l.rejection.Detail += "; only the emergency death point was flushed, so notes and graph are rebuilt from it"
		}
		return l
	}
	notes, err := parseNotes(notesP.data)
	if err != nil {
		return fromErr(err)
	}
	l.notes = &notes
	graph, err := parseGraph(graphP.data)
	if err != nil {
		return fromErr(err)
	}
	l.graph = &graph
	if !strings.EqualFold(notes.Repository, s.Identity) {
		return reject(ReasonOtherProject, "notes recorded for %s, but this repository is %s", notes.Repository, s.Identity)
	}
	if dp.Status == StatusCompleted {
		return reject(ReasonCompleted, "session %s completed its goal at %s; a new session starts fresh", dp.Session, formatTime(dp.Updated))
	}
	if dp.Revision != notes.Revision || dp.Revision != graph.Revision {
		l.torn = true
		return reject(ReasonStale, "death point is at revision %d but notes are at %d and the graph at %d: an update did not finish", dp.Revision, notes.Revision, graph.Revision)
	}
	if limit := s.staleAfter(); s.now().Sub(dp.Updated) > limit {
		return reject(ReasonStale, "last updated %s, more than %d days ago", formatTime(dp.Updated), int(limit/(24*time.Hour)))
	}
	return l
}

func (s *Set) staleAfter() time.Duration {
	if s.StaleAfter <= 0 {
		return DefaultStaleAfter
	}
	return s.StaleAfter
}

// preserve moves every file of a rejected set into rejected/<stamp>-<reason>/
// and returns that directory relative to the repository root.
func (s *Set) preserve(rej *Rejection) (string, error) {
	base := filepath.Join(s.Dir(), RejectedDir, s.now().Format("20060102T150405Z")+"-"+string(rej.Reason))
	target := base
	for i := 2; ; i++ {
		if _, err := os.Stat(target); errors.Is(err, os.ErrNotExist) {
			break
		}
		target = fmt.Sprintf("%s-%d", base, i)
	}
	if err := os.MkdirAll(target, 0o755); err != nil {
		return "", fmt.Errorf("continuity: keep rejected set: %w", err)
	}
	entries, err := os.ReadDir(s.Dir())
	if err != nil {
		return "", fmt.Errorf("continuity: keep rejected set: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if err := os.Rename(filepath.Join(s.Dir(), e.Name()), filepath.Join(target, e.Name())); err != nil {
			return "", fmt.Errorf("continuity: keep rejected set: move %s: %w", e.Name(), err)
		}
	}
	atomicfile.SyncDir(target)
	atomicfile.SyncDir(s.Dir())
	return s.rel(target), nil
}
