package continuity

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Session states a death point can record.
const (
	StatusActive      = "active"
	StatusInterrupted = "interrupted"
	StatusCompleted   = "completed"
)

// initNextAction is the next action of the minimal (emergency) death point.
const initNextAction = "initialize continuity state"

// DeathPoint is where the session stopped: the one file a fresh session
// reads first.
type DeathPoint struct {
	Status        string    `json:"status"`
	Started       string    `json:"started"`
	Repository    string    `json:"repository"`
	Session       string    `json:"session"`
	Harness       string    `json:"harness"`
	Goal          string    `json:"goal"`
	Updated       time.Time `json:"updated"`
	Phase         string    `json:"phase,omitempty"`
	LastCompleted string    `json:"lastCompleted,omitempty"`
	NextAction    string    `json:"nextAction"`
	Blockers      []string  `json:"blockers,omitempty"`
	Revision      int       `json:"revision"`
}

// minimal reports the emergency marker a fresh start flushes before the
// other two files exist.
func (d DeathPoint) minimal() bool {
	return d.Revision == 0 && d.Status == StatusActive && d.NextAction == initNextAction
}

func (d DeathPoint) render() []byte {
	var b strings.Builder
	b.WriteString(headerLine("death point") + "\n# Death point\n\n")
	writeField(&b, "status", d.Status)
	writeField(&b, "started", d.Started)
	writeField(&b, "repository", d.Repository)
	writeField(&b, "session", d.Session)
	writeField(&b, "harness", d.Harness)
	writeField(&b, "goal", d.Goal)
	writeField(&b, "updated", formatTime(d.Updated))
	writeField(&b, "phase", d.Phase)
	writeField(&b, "last-completed", d.LastCompleted)
	writeField(&b, "next-action", d.NextAction)
	if len(d.Blockers) == 0 {
		writeField(&b, "blockers", "none")
	}
	for _, bl := range d.Blockers {
		writeField(&b, "blocker", bl)
	}
	b.WriteString("\n" + endLine("death point", d.Revision) + "\n")
	return []byte(b.String())
}

// parseDeathPoint reads a death point, classifying any problem.
func parseDeathPoint(data []byte) (DeathPoint, error) {
	const file = DeathPointFile
	lines, rev, err := splitDoc(file, "death point", data)
	if err != nil {
		return DeathPoint{}, err
	}
	d := DeathPoint{Revision: rev}
	seen := map[string]bool{}
	for _, line := range lines {
		if line == "" || strings.HasPrefix(line, "# ") {
			continue
		}
		f, ok := parseField(line)
		if !ok {
			return d, &fileError{ReasonCorrupt, file, fmt.Sprintf("unexpected line %q", line)}
		}
		seen[f.key] = true
		switch f.key {
		case "status":
			d.Status = f.value
		case "started":
			d.Started = f.value
		case "repository":
			d.Repository = f.value
		case "session":
			d.Session = f.value
		case "harness":
			d.Harness = f.value
		case "goal":
			d.Goal = f.value
		case "updated":
			if d.Updated, err = parseTime(file, "updated", f.value); err != nil {
				return d, err
			}
		case "phase":
			d.Phase = f.value
		case "last-completed":
			d.LastCompleted = f.value
		case "next-action":
			d.NextAction = f.value
		case "blockers":
		case "blocker":
			d.Blockers = append(d.Blockers, f.value)
		default:
			return d, &fileError{ReasonCorrupt, file, fmt.Sprintf("unknown field %q", f.key)}
		}
	}
	for _, key := range []string{"status", "repository", "session", "goal", "updated", "next-action"} {
		if !seen[key] {
			return d, &fileError{ReasonCorrupt, file, fmt.Sprintf("missing field %q", key)}
		}
	}
	switch d.Status {
	case StatusActive, StatusInterrupted, StatusCompleted:
	default:
		return d, &fileError{ReasonCorrupt, file, "status " + strconv.Quote(d.Status) + " is not active, interrupted or completed"}
	}
	if d.Session == "" || d.Repository == "" {
		return d, &fileError{ReasonCorrupt, file, "session and repository must not be empty"}
	}
	return d, nil
}
