package classify

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// replyCase is one reply and the outcome the gate must reach.
type replyCase struct {
	class string
	body  string
	want  Outcome
}

// answer collapses an outcome to the three answers a gate gives.
func answer(o Outcome) string {
	switch {
	case o.Approves():
		return "approve"
	case o == ChangesRequested:
		return "changes"
	}
	return "wait"
}

// matrix counts, per category and overall, which answer each expected
// answer got.
type matrix struct {
	cells map[string]map[[2]string]int // category -> (want, got) -> n
	total map[[2]string]int
}

func newMatrix() *matrix {
	return &matrix{cells: map[string]map[[2]string]int{}, total: map[[2]string]int{}}
}

func (m *matrix) add(class string, want, got Outcome) {
	k := [2]string{answer(want), answer(got)}
	if m.cells[class] == nil {
		m.cells[class] = map[[2]string]int{}
	}
	m.cells[class][k]++
	m.total[k]++
}

var answers = []string{"approve", "changes", "wait"}

func (m *matrix) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-24s %5s  %-26s %-26s %-26s\n", "category", "n", "approve (ok/chg/wait)", "changes (appr/ok/wait)", "wait (appr/chg/ok)")
	classes := make([]string, 0, len(m.cells))
	for c := range m.cells {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	row := func(name string, cells map[[2]string]int) {
		n := 0
		for _, v := range cells {
			n += v
		}
		fmt.Fprintf(&b, "%-24s %5d ", name, n)
		for _, want := range answers {
			fmt.Fprintf(&b, " %-26s", fmt.Sprintf("%d/%d/%d", cells[[2]string{want, "approve"}], cells[[2]string{want, "changes"}], cells[[2]string{want, "wait"}]))
		}
		b.WriteString("\n")
	}
	for _, c := range classes {
		row(c, m.cells[c])
	}
	row("ALL", m.total)
	b.WriteString("\nconfusion matrix (rows: expected, columns: the reader's answer)\n")
	fmt.Fprintf(&b, "%-10s %8s %8s %8s\n", "", "approve", "changes", "wait")
	for _, want := range answers {
		fmt.Fprintf(&b, "%-10s %8d %8d %8d\n", want, m.total[[2]string{want, "approve"}], m.total[[2]string{want, "changes"}], m.total[[2]string{want, "wait"}])
	}
	fa := m.total[[2]string{"changes", "approve"}] + m.total[[2]string{"wait", "approve"}]
	fmt.Fprintf(&b, "false approvals: %d; approvals that approve: %s; change requests sent back: %s\n", fa,
		pct(m.total[[2]string{"approve", "approve"}], m.rowTotal("approve")), pct(m.total[[2]string{"changes", "changes"}], m.rowTotal("changes")))
	return b.String()
}

func (m *matrix) rowTotal(want string) int {
	n := 0
	for _, got := range answers {
		n += m.total[[2]string{want, got}]
	}
	return n
}

func pct(n, d int) string {
	if d == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", n, d, 100*float64(n)/float64(d))
}

// runTable classifies every case, fails each that misses its outcome, and
// returns the matrix.
func runTable(t *testing.T, cases []replyCase) *matrix {
	m := newMatrix()
	for _, tt := range cases {
		v := Classify(tt.body)
		m.add(tt.class, tt.want, v.Outcome)
		if answer(v.Outcome) != answer(tt.want) {
			t.Errorf("%s: %q: want %s, got %s (%s)", tt.class, tt.body, tt.want, v.Outcome, v.Reason)
		}
	}
	return m
}

func TestReplyTable(t *testing.T) {
	if len(replyTable) < 300 {
		t.Fatalf("the table holds %d replies; it must hold at least 300", len(replyTable))
	}
	m := runTable(t, replyTable)
	t.Logf("\n%s", m)
}
