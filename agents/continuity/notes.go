package continuity

import (
	"fmt"
	"strings"
	"time"

	"github.com/the-loop/the-loop/internal/lazyre"
)

// Record kinds in notes.md. The first five are what Update accepts.
const (
	KindDecision    = "decision"
	KindDiscovery   = "discovery"
	KindTask        = "task"
	KindBlocker     = "blocker"
	KindPhase       = "phase"
	kindStart       = "start"
	kindResumed     = "resumed"
	kindScope       = "scope"
	kindInterrupted = "interrupted"
	kindCompleted   = "completed"
	kindRepaired    = "repaired"
)

var recordKinds = map[string]bool{
	KindDecision: true, KindDiscovery: true, KindTask: true, KindBlocker: true, KindPhase: true,
	kindStart: true, kindResumed: true, kindScope: true, kindInterrupted: true, kindCompleted: true,
	kindRepaired: true,
}

// Record is one timestamped entry in notes.md.
type Record struct {
	At      time.Time `json:"at"`
	Kind    string    `json:"kind"`
	Session string    `json:"session"`
	Node    string    `json:"node,omitempty"`
	Status  string    `json:"status,omitempty"`
	Text    string    `json:"text"`
	Why     string    `json:"why,omitempty"`
	Files   []string  `json:"files,omitempty"`
}

// Notes is the rationale log: a header and append-only records.
type Notes struct {
	Repository string    `json:"repository"`
	Goal       string    `json:"goal"`
	Scope      string    `json:"scope,omitempty"`
	Session    string    `json:"session"`
	Started    time.Time `json:"started"`
	Records    []Record  `json:"records"`
	Revision   int       `json:"revision"`
}

func (n Notes) render() []byte {
	var b strings.Builder
	b.WriteString(headerLine("notes") + "\n# Continuity notes\n\n")
	writeField(&b, "repository", n.Repository)
	writeField(&b, "goal", n.Goal)
	writeField(&b, "scope", n.Scope)
	writeField(&b, "started", formatTime(n.Started))
	writeField(&b, "session", n.Session)
	b.WriteString("\n## Log\n")
	for _, r := range n.Records {
		b.WriteString("\n### " + formatTime(r.At) + " " + r.Kind)
		if r.Node != "" {
			b.WriteString(" " + r.Node)
		}
		if r.Status != "" {
			b.WriteString(" [" + r.Status + "]")
		}
		b.WriteString(" (session " + r.Session + ")\n")
		// Text lines are quoted so no user text can pose as structure.
		for _, line := range strings.Split(strings.TrimRight(strings.ReplaceAll(r.Text, "\r\n", "\n"), "\n"), "\n") {
			b.WriteString(strings.TrimRight("> "+line, " ") + "\n")
		}
		if r.Why != "" {
			writeField(&b, "why", r.Why)
		}
		if len(r.Files) > 0 {
			writeField(&b, "files", strings.Join(r.Files, ", "))
		}
	}
	b.WriteString("\n" + endLine("notes", n.Revision) + "\n")
	return []byte(b.String())
}

var recordHeadRE = lazyre.New(`^### (\S+) ([a-z]+)(?: ([A-Za-z0-9][A-Za-z0-9._-]*))?(?: \[([a-z]+)\])? \(session (\S+)\)$`)

// parseNotes reads notes.md, classifying any problem.
func parseNotes(data []byte) (Notes, error) {
	const file = NotesFile
	lines, rev, err := splitDoc(file, "notes", data)
	if err != nil {
		return Notes{}, err
	}
	n := Notes{Revision: rev}
	inLog := false
	var cur *Record
	var text []string
	flush := func() {
		if cur != nil {
			cur.Text = strings.Join(text, "\n")
		}
		text = nil
	}
	bad := func(line string) error {
		return &fileError{ReasonCorrupt, file, fmt.Sprintf("unexpected line %q", line)}
	}
	for _, line := range lines {
		switch {
		case line == "" || strings.HasPrefix(line, "# "):
			continue
		case line == "## Log":
			inLog = true
			continue
		}
		if !inLog {
			f, ok := parseField(line)
			if !ok {
				return n, bad(line)
			}
			switch f.key {
			case "repository":
				n.Repository = f.value
			case "goal":
				n.Goal = f.value
			case "scope":
				n.Scope = f.value
			case "session":
				n.Session = f.value
			case "started":
				if n.Started, err = parseTime(file, "started", f.value); err != nil {
					return n, err
				}
			default:
				return n, &fileError{ReasonCorrupt, file, fmt.Sprintf("unknown header field %q", f.key)}
			}
			continue
		}
		if m := recordHeadRE().FindStringSubmatch(line); m != nil {
			at, err := parseTime(file, "record time", m[1])
			if err != nil {
				return n, err
			}
			if !recordKinds[m[2]] {
				return n, &fileError{ReasonCorrupt, file, fmt.Sprintf("unknown record kind %q", m[2])}
			}
			flush()
			n.Records = append(n.Records, Record{At: at, Kind: m[2], Node: m[3], Status: m[4], Session: m[5]})
			cur = &n.Records[len(n.Records)-1]
			continue
		}
		if cur == nil {
			return n, bad(line)
		}
		if line == ">" || strings.HasPrefix(line, "> ") {
			text = append(text, strings.TrimPrefix(strings.TrimPrefix(line, ">"), " "))
			continue
		}
		f, ok := parseField(line)
		if !ok {
			return n, bad(line)
		}
		switch f.key {
		case "why":
			cur.Why = f.value
		case "files":
			cur.Files = splitList(f.value)
		default:
			return n, &fileError{ReasonCorrupt, file, fmt.Sprintf("unknown record field %q", f.key)}
		}
	}
	flush()
	if n.Repository == "" || n.Goal == "" || n.Session == "" {
		return n, &fileError{ReasonCorrupt, file, "header lacks repository, goal or session"}
	}
	return n, nil
}
