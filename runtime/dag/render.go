package dag

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/relations"
)

// maxTitle bounds a title in the table and the diagram.
const maxTitle = 60

// WriteTable writes the plan as an aligned table, one item a line, then the
// cycles and warnings:
//
//	ITEM                   TITLE   STATE  LOOP  AT      STATUS
//	github:octo/widgets#2  Schema  open   pdlc  design  working
//	github:octo/widgets#3  API     open   -     -       blocked by #2 (at design)
//
// Titles come from the trackers: control characters are replaced, so a
// title cannot move the cursor or rewrite the terminal.
func (p Plan) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ITEM\tTITLE\tSTATE\tLOOP\tAT\tSTATUS")
	for _, s := range p.Items {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.Ref, cleanText(s.Title), s.State, dash(s.Progress.Loop), dash(s.Progress.Node), cleanText(s.Message()))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write plan table: %w", err)
	}
	var b strings.Builder
	for _, c := range p.Cycles {
		parts := make([]string, 0, len(c))
		for _, r := range c {
			parts = append(parts, r.String())
		}
		fmt.Fprintf(&b, "cycle: %s (nothing in it is armed; remove one dependency to break it)\n", strings.Join(parts, ", "))
	}
	for _, warn := range p.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", cleanText(warn))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write plan table: %w", err)
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return cleanText(s)
}

// CleanText keeps a tracker-supplied string on one line, without control
// or bidirectional characters, and bounded: what the loop records or prints
// of a title or a tracker's word.
func CleanText(s string) string { return cleanText(s) }

// Line is Message made safe to record and print (see CleanText).
func (s Status) Line() string { return cleanText(s.Message()) }

// cleanText keeps a tracker-supplied string on one line, without control
// characters, and bounded.
func cleanText(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxTitle*2 {
		s = string(r[:maxTitle*2-1]) + "…"
	}
	return s
}

// jsonPlan is the JSON document of a plan.
type jsonPlan struct {
	Items    []jsonItem `json:"items"`
	Edges    []jsonEdge `json:"edges"`
	Cycles   [][]string `json:"cycles"`
	Warnings []string   `json:"warnings"`
}

type jsonItem struct {
	Ref      string        `json:"ref"`
	Title    string        `json:"title"`
	State    string        `json:"state"`
	Reason   string        `json:"reason,omitempty"`
	Loop     string        `json:"loop,omitempty"`
	Node     string        `json:"node,omitempty"`
	Armed    bool          `json:"armed"`
	Started  bool          `json:"started"`
	Verdict  Verdict       `json:"verdict"`
	Hold     bool          `json:"hold"`
	Status   string        `json:"status"`
	Blockers []jsonBlocker `json:"blockedBy"`
	Cycle    []string      `json:"cycle"`
	Parents  []string      `json:"parents"`
	Children []string      `json:"children"`
}

type jsonBlocker struct {
	Ref string `json:"ref"`
	At  string `json:"at"`
	Via string `json:"via"`
}

type jsonEdge struct {
	From string   `json:"from"`
	To   string   `json:"to"`
	Kind EdgeKind `json:"kind"`
	Via  string   `json:"via"`
}

// MarshalJSON writes the plan with qualified references and empty lists
// as [] (never null).
func (p Plan) MarshalJSON() ([]byte, error) {
	doc := jsonPlan{Items: []jsonItem{}, Edges: []jsonEdge{}, Cycles: [][]string{}, Warnings: append([]string{}, p.Warnings...)}
	for _, s := range p.Items {
		it := jsonItem{
			Ref: s.Ref.String(), Title: s.Title, State: string(s.State), Reason: s.Reason,
			Loop: s.Progress.Loop, Node: s.Progress.Node, Armed: s.Progress.Armed, Started: s.Progress.Started,
			Verdict: s.Verdict, Hold: s.Hold, Status: s.Message(),
			Blockers: []jsonBlocker{}, Cycle: strs(s.Cycle), Parents: strs(s.Parents), Children: strs(s.Children),
		}
		for _, b := range s.Blockers {
			it.Blockers = append(it.Blockers, jsonBlocker{Ref: b.Ref.String(), At: b.At, Via: b.Via})
		}
		doc.Items = append(doc.Items, it)
	}
	for _, e := range p.Edges {
		doc.Edges = append(doc.Edges, jsonEdge{From: e.From.String(), To: e.To.String(), Kind: e.Kind, Via: e.Via})
	}
	for _, c := range p.Cycles {
		doc.Cycles = append(doc.Cycles, strs(c))
	}
	return json.Marshal(doc)
}

func strs(refs []integrations.Ref) []string {
	out := make([]string, 0, len(refs))
	for _, r := range refs {
		out = append(out, r.String())
	}
	return out
}

// Mermaid renders the plan as a mermaid flowchart: an arrow from each
// blocker to the item waiting for it, a dotted arrow from a parent to each
// child, and one class per verdict. Labels are escaped, so a title cannot
// end its label or add directives.
func (p Plan) Mermaid() string {
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	id := map[string]string{}
	for i, s := range p.Items {
		id[relations.Key(s.Ref)] = fmt.Sprintf("n%d", i+1)
		label := relations.Short(s.Ref, p.Home)
		if s.Title != "" {
			label += " " + bounded(cleanText(s.Title))
		}
		fmt.Fprintf(&b, "  %s[\"%s<br/>%s\"]\n", id[relations.Key(s.Ref)], mermaidText(label), mermaidText(mermaidStatus(s)))
	}
	for _, e := range p.Edges {
		from, to := id[relations.Key(e.From)], id[relations.Key(e.To)]
		if e.Kind == KindParent {
			fmt.Fprintf(&b, "  %s -.-> %s\n", from, to)
		} else {
			fmt.Fprintf(&b, "  %s --> %s\n", from, to)
		}
	}
	for _, v := range []struct {
		verdict Verdict
		style   string
	}{
		{VerdictComplete, "fill:#d4edda,stroke:#28a745"},
		{VerdictWorking, "fill:#d1ecf1,stroke:#17a2b8"},
		{VerdictReady, "fill:#ffffff,stroke:#17a2b8"},
		{VerdictHeld, "fill:#fff3cd,stroke:#ffc107"},
		{VerdictCycle, "fill:#f8d7da,stroke:#dc3545"},
		{VerdictClosed, "fill:#e2e3e5,stroke:#6c757d"},
		{VerdictUnknown, "fill:#e2e3e5,stroke:#dc3545,stroke-dasharray:4"},
	} {
		var ids []string
		for _, s := range p.Items {
			if s.Verdict == v.verdict {
				ids = append(ids, id[relations.Key(s.Ref)])
			}
		}
		if len(ids) > 0 {
			fmt.Fprintf(&b, "  classDef %s %s\n  class %s %s\n", v.verdict, v.style, strings.Join(ids, ","), v.verdict)
		}
	}
	return b.String()
}

func bounded(s string) string {
	if r := []rune(s); len(r) > maxTitle {
		return string(r[:maxTitle-1]) + "…"
	}
	return s
}

func mermaidStatus(s Status) string {
	switch {
	case s.Verdict == VerdictHeld:
		return "held"
	case s.Progress.Node != "" && s.Verdict != VerdictComplete:
		return string(s.Verdict) + " · at " + s.Progress.Node
	}
	return string(s.Verdict)
}

// mermaidText escapes a label: quotes, angle brackets, ampersands and '#'
// become mermaid entity codes, so nothing in it is read as syntax.
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '"', '<', '>', '&', '#', ';', '`', '[', ']', '{', '}', '(', ')', '|':
			fmt.Fprintf(&b, "#%d;", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
