package continuity

import (
	"fmt"
	"time"
)

// Receipt identifies the source a brief was built from.
type Receipt struct {
	Harness    string   `json:"harness"`
	Project    string   `json:"project"`
	Session    string   `json:"session"`
	Handle     string   `json:"handle"`
	Timestamp  string   `json:"timestamp"`
	Age        string   `json:"age"`
	AgeKnown   bool     `json:"ageKnown"`
	Warning    string   `json:"warning,omitempty"`
	Visibility string   `json:"visibility,omitempty"`
	Notices    []string `json:"notices,omitempty"`
}

// sourceAge returns the age of a source timestamp. A zero or future
// timestamp has unknown age.
func sourceAge(ts, now time.Time) (string, bool, time.Duration) {
	switch {
	case ts.IsZero():
		return "unknown (invalid timestamp)", false, 0
	case ts.After(now):
		return "unknown (timestamp is in the future)", false, 0
	}
	d := now.Sub(ts)
	return formatAge(d), true, d
}

func formatAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh %dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	default:
		return fmt.Sprintf("%dd %dh", int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
	}
}

func ageWarning(d time.Duration, known bool) string {
	if !known || d <= AgeWarning {
		return ""
	}
	return fmt.Sprintf("this work is %s old, more than seven days; re-check it against the repository before relying on it", formatAge(d))
}

func (r Receipt) lines() []string {
	out := []string{
		"- harness: " + r.Harness,
		"- project: " + r.Project,
		"- session: " + r.Session,
		"- timestamp: " + r.Timestamp,
		"- age: " + r.Age,
	}
	if r.Warning != "" {
		out = append(out, "- warning: "+r.Warning)
	}
	if r.Visibility != "" {
		out = append(out, "- visibility: "+r.Visibility)
	}
	for _, n := range r.Notices {
		out = append(out, "- notice: "+n)
	}
	return out
}
