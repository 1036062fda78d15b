package continuity

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/the-loop/the-loop/internal/lazyre"
)

// Reason says why a continuity set cannot be resumed.
type Reason string

// The rejection reasons a resume check can report.
const (
	ReasonCorrupt      Reason = "corrupt"
	ReasonStale        Reason = "stale"
	ReasonIncomplete   Reason = "incomplete"
	ReasonCompleted    Reason = "completed"
	ReasonOtherProject Reason = "other-project"
)

// fileError is a problem with one file of the set.
type fileError struct {
	Reason Reason
	File   string
	Detail string
}

func (e *fileError) Error() string { return e.File + ": " + e.Detail }

const timeLayout = time.RFC3339

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func headerLine(kind string) string { return "<!-- the-loop continuity: " + kind + " v1 -->" }

func endLine(kind string, revision int) string {
	return fmt.Sprintf("<!-- end: %s; revision %d -->", kind, revision)
}

var endRE = lazyre.New(`^<!-- end: ([a-z -]+); revision (\d+) -->$`)

// splitDoc validates a file's header and end marker and returns the lines in
// between and the revision. A missing end marker means the file was cut
// short (incomplete); a bad header or a garbled marker means corrupt.
func splitDoc(file, kind string, data []byte) ([]string, int, error) {
	if !utf8.Valid(data) {
		return nil, 0, &fileError{ReasonCorrupt, file, "not valid UTF-8"}
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) == 0 || lines[0] != headerLine(kind) {
		return nil, 0, &fileError{ReasonCorrupt, file, fmt.Sprintf("first line is not %q", headerLine(kind))}
	}
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "<!-- end:") || !strings.HasSuffix(last, "-->") {
		return nil, 0, &fileError{ReasonIncomplete, file, "no end marker: the file was cut short"}
	}
	m := endRE().FindStringSubmatch(last)
	if m == nil || m[1] != kind {
		return nil, 0, &fileError{ReasonCorrupt, file, fmt.Sprintf("garbled end marker %q", last)}
	}
	rev, err := strconv.Atoi(m[2])
	if err != nil {
		return nil, 0, &fileError{ReasonCorrupt, file, fmt.Sprintf("revision %q is not a number", m[2])}
	}
	return lines[1 : len(lines)-1], rev, nil
}

// field is one "- key: value" line.
type field struct{ key, value string }

var fieldRE = regexp.MustCompile(`^- ([a-z][a-z-]*):(?: (.*))?$`)

func parseField(line string) (field, bool) {
	m := fieldRE.FindStringSubmatch(line)
	if m == nil {
		return field{}, false
	}
	return field{m[1], strings.TrimSpace(m[2])}, true
}

func writeField(b *strings.Builder, key, value string) {
	b.WriteString("- " + key + ":")
	if v := oneLine(value); v != "" {
		b.WriteString(" " + v)
	}
	b.WriteString("\n")
}

// oneLine folds line breaks and tabs into single spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func parseTime(file, key, value string) (time.Time, error) {
	t, err := time.Parse(timeLayout, value)
	if err != nil {
		return time.Time{}, &fileError{ReasonCorrupt, file, fmt.Sprintf("%s %q is not an RFC 3339 timestamp", key, value)}
	}
	return t.UTC(), nil
}

var idRE = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// validID reports a node id: letters, digits, dot, dash, underscore.
func validID(id string) bool { return idRE().MatchString(id) }

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
