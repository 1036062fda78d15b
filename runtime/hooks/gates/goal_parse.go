package gates

import (
	"strings"
)

// Goal is a contribution's stated goal and its success criteria.
type Goal struct {
	Goal     string   `json:"goal"`
	Criteria []string `json:"criteria"`
}

// gateDecoration is what may surround a label ("## **Goal:**", "> _Goal_:").
const gateDecoration = " \t#>*_"

// gateLabel splits a line into a decorated label and the text after its
// colon. ok is false when the line has no colon.
func gateLabel(line string) (label, rest string, colon bool) {
	l := strings.TrimLeft(line, gateDecoration)
	before, after, found := strings.Cut(l, ":")
	if !found {
		return strings.ToLower(strings.Trim(l, gateDecoration)), "", false
	}
	return strings.ToLower(strings.Trim(before, gateDecoration)), strings.Trim(after, gateDecoration), true
}

// gatePlaceholder reports template filler that states nothing: an empty
// text, an ellipsis, TODO/TBD, or a "<…>" slot left as it was.
func gatePlaceholder(s string) bool {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") {
		return true
	}
	t = strings.Trim(t, ".…[] ")
	return t == "" || strings.EqualFold(t, "todo") || strings.EqualFold(t, "tbd")
}

// gateBullet returns a bullet line's text ("- x", "* [ ] x"), or false.
func gateBullet(line string) (string, bool) {
	t := strings.TrimLeft(line, " \t>")
	if !strings.HasPrefix(t, "- ") && !strings.HasPrefix(t, "* ") {
		return "", false
	}
	t = strings.TrimSpace(t[2:])
	for _, box := range []string{"[ ]", "[x]", "[X]"} {
		if strings.HasPrefix(t, box) {
			t = strings.TrimSpace(t[len(box):])
			break
		}
	}
	return t, true
}

// gateBullets reads the bullet list after lines[from]: leading blank lines
// are skipped; the first blank line after a bullet, or any other line, ends
// it. Placeholder bullets are dropped.
func gateBullets(lines []string, from int) []string {
	var out []string
	started := false
	for _, line := range lines[from:] {
		if strings.TrimSpace(line) == "" {
			if started {
				break
			}
			continue
		}
		text, ok := gateBullet(line)
		if !ok {
			break
		}
		started = true
		if !gatePlaceholder(text) {
			out = append(out, text)
		}
	}
	return out
}

// ParseGoal reads a goal statement from one comment: a line "Goal: <text>"
// (any case, tolerating "#", ">", "*", "_" decoration such as **Goal:**)
// and a line "Success criteria:" (colon optional) followed by at least one
// "- " or "* " bullet (a [ ] or [x] box is allowed). Both are required, and
// template filler ("…", "TBD") states nothing.
func ParseGoal(body string) (Goal, bool) {
	lines := strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	var g Goal
	for i, line := range lines {
		label, rest, colon := gateLabel(line)
		switch {
		case label == "goal" && colon && g.Goal == "" && !gatePlaceholder(rest):
			g.Goal = rest
		case label == "success criteria" && g.Criteria == nil && strings.TrimSpace(rest) == "":
			if c := gateBullets(lines, i+1); len(c) > 0 {
				g.Criteria = c
			}
		}
	}
	return g, g.Goal != "" && len(g.Criteria) > 0
}
