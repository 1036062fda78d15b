package integrations

import "strings"

// Limits are a ticket system's rules for what the loop writes to it: how
// long a comment and a label may be, and whether a label may hold
// whitespace. Each provider checks a body or a label set against its
// Limits before any request.
type Limits struct {
	// System is the system's name in errors ("github", "jira").
	System string
	// Display is how messages name it ("GitHub", "Jira").
	Display string
	// MaxComment is the longest comment, in characters, marker included.
	MaxComment int
	// MaxLabel is the longest label, in characters.
	MaxLabel int
	// NoSpaceInLabels refuses a label with whitespace inside.
	NoSpaceInLabels bool
}

// MarkedBody returns body with the loop's self-marker (MarkSelfAuthored);
// an empty body, or one longer than MaxComment with the marker, is an
// ErrInvalid error for op.
func (l Limits) MarkedBody(op Op, body string) (string, error) {
	if strings.TrimSpace(body) == "" {
		return "", Invalidf(l.System, op, "the comment body is empty")
	}
	marked := MarkSelfAuthored(body)
	if n := len([]rune(marked)); n > l.MaxComment {
		return "", Invalidf(l.System, op, "the comment is %d characters with the marker; %s allows %d", n, l.Display, l.MaxComment)
	}
	return marked, nil
}

// EditedBody checks the id of the comment EditComment replaces and marks
// its new body (MarkedBody).
func (l Limits) EditedBody(op Op, id int64, body string) (string, error) {
	if id <= 0 {
		return "", Invalidf(l.System, op, "comment id %d is not positive", id)
	}
	return l.MarkedBody(op, body)
}

// CleanLabels trims labels, drops empty ones and repeats (keeping order),
// and refuses, as an ErrInvalid error for op, a label longer than MaxLabel
// or, with NoSpaceInLabels, one holding whitespace.
func (l Limits) CleanLabels(op Op, labels []string) ([]string, error) {
	seen := map[string]bool{}
	out := make([]string, 0, len(labels))
	for _, label := range labels {
		label = strings.TrimSpace(label)
		if label == "" || seen[label] {
			continue
		}
		if l.NoSpaceInLabels && strings.ContainsAny(label, " \t\r\n") {
			return nil, Invalidf(l.System, op, "label %q contains whitespace, which %s labels cannot; use - or _ instead", label, l.Display)
		}
		if len([]rune(label)) > l.MaxLabel {
			return nil, Invalidf(l.System, op, "label %q is longer than %d characters", label, l.MaxLabel)
		}
		seen[label] = true
		out = append(out, label)
	}
	return out, nil
}
