// Package review holds the round-table rules of the review chain: which
// recorded rounds count, and whether self-review and critic-review may
// stop. It is pure: the caller reads the record and the recorded runs.
package review

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/the-loop/the-loop/config"
)

// DefaultCap is the number of rounds run before the human reviewer when
// the operator sets none: the config's default for reviews:.
const DefaultCap = config.DefaultRoundCap

// Kind is which review record a round table belongs to.
type Kind string

// The two review records.
const (
	Self   Kind = "self-review"
	Critic Kind = "critic-review"
)

// File is the record's path inside the work item's spec folder.
func (k Kind) File() string { return "evidence/" + string(k) + ".md" }

// Columns are the round table's required columns, in the order documented.
func (k Kind) Columns() []string {
	if k == Critic {
		return []string{colRound, colCritic, colRun, colFindings, colNew}
	}
	return []string{colRound, colFindings, colNew}
}

const (
	colRound    = "Round"
	colCritic   = "Critic"
	colRun      = "Run"
	colFindings = "Findings"
	colNew      = "New findings"
)

// columnAliases maps a normalised header to its column.
var columnAliases = map[string]string{
	"round": colRound, "critic": colCritic, "run": colRun, "run id": colRun, "runid": colRun,
	"findings": colFindings, "new findings": colNew,
}

// Outcome is the verdict on a review record.
type Outcome string

// Outcomes: pass (the review stopped), wait (nothing the agent can do:
// an operator must act), block (the record is missing, malformed or
// rounds are still owed).
const (
	Pass  Outcome = "pass"
	Wait  Outcome = "wait"
	Block Outcome = "block"
)

// Run is a critic run the loop recorded for the work item.
type Run struct {
	ID     string
	Critic string
	// Unavailable is why the run does not count ("" when it does).
	Unavailable string
}

// Policy is what the operator configured.
type Policy struct {
	// Cap is the most rounds run before the human (0 = DefaultCap).
	Cap int
	// Critics are the configured critic names (critic-review only).
	Critics []string
	// File is the record's path as messages name it ("" = kind.File(),
	// evidence/<kind>.md); an inner loop names its own folder's record.
	File string
}

// file is the record's path as messages name it.
func (p Policy) file(kind Kind) string {
	if p.File != "" {
		return p.File
	}
	return kind.File()
}

// Row is one row of a round table as read, and whether it counts.
type Row struct {
	// Line is the row's 1-based line in the record.
	Line        int
	Round       int
	Critic      string
	RunID       string
	Findings    int
	NewFindings int
	// Counts reports that the row is a valid round backed by what the loop
	// recorded; Problem says why not.
	Counts  bool
	Problem string
}

// Verdict is the decision on one review record.
type Verdict struct {
	Outcome Outcome
	// Messages say what passed, or exactly what is missing.
	Messages []string
	// Rows are the table's rows in order.
	Rows []Row
	// Counted is the number of rounds that count, up to the stop.
	Counted int
	// StoppedAt is the round the review stopped on (0 = not stopped).
	StoppedAt int
}

// Decide reads the round table of a review record (doc is its text, ""
// when the file is missing) and decides whether the review may stop: on a
// counted round with zero new findings, or once Cap rounds count. A
// critic round counts only when it names a configured critic and a run
// the loop recorded for this item, by that critic, that was not
// unavailable, and that no earlier row already used.
func Decide(kind Kind, doc string, p Policy, runs []Run) Verdict {
	file := p.file(kind)
	if kind != Self && kind != Critic {
		return Verdict{Outcome: Block, Messages: []string{fmt.Sprintf("review kind %q is not one of self-review, critic-review", kind)}}
	}
	if kind == Critic && len(p.Critics) == 0 {
		return Verdict{Outcome: Wait, Messages: []string{"no critic is configured, so no critic round can count; an operator adds one under `critics:` in the loop's configuration (docs/reviews.md)"}}
	}
	capN := p.Cap
	if capN <= 0 {
		capN = DefaultCap
	}
	layout := "| " + strings.Join(kind.Columns(), " | ") + " |"
	if strings.TrimSpace(doc) == "" {
		return Verdict{Outcome: Block, Messages: []string{fmt.Sprintf("%s is missing or empty; record each round as a row of a table with the columns %s", file, layout)}}
	}
	t, cols, msg := roundTable(kind, doc)
	if msg != "" {
		return Verdict{Outcome: Block, Messages: []string{file + ": " + msg + "; the columns are " + layout}}
	}
	v := Verdict{}
	known := map[string]Run{}
	for _, r := range runs {
		known[r.ID] = r
	}
	used := map[string]int{}
	for i, tr := range t.rows {
		row := readRow(kind, tr, cols, i+1)
		if row.Problem == "" && kind == Critic {
			row.Problem = checkRun(row, p.Critics, known, used)
		}
		row.Counts = row.Problem == ""
		if row.Counts && kind == Critic {
			used[row.RunID] = row.Round
		}
		v.Rows = append(v.Rows, row)
	}
	return conclude(kind, file, v, capN)
}

// roundTable finds the one table whose header names a Round column and
// maps its required columns to cell indexes.
func roundTable(kind Kind, doc string) (table, map[string]int, string) {
	var found []table
	for _, t := range tables(doc) {
		for _, h := range t.header {
			if columnAliases[columnKey(h)] == colRound {
				found = append(found, t)
				break
			}
		}
	}
	switch len(found) {
	case 0:
		return table{}, nil, "no round table found (a table whose header has a Round column)"
	case 1:
	default:
		return table{}, nil, fmt.Sprintf("has %d round tables (lines %d and %d); keep every round in one table", len(found), found[0].line, found[1].line)
	}
	t := found[0]
	cols := map[string]int{}
	for i, h := range t.header {
		c, ok := columnAliases[columnKey(h)]
		if !ok {
			continue
		}
		if _, dup := cols[c]; dup {
			return table{}, nil, fmt.Sprintf("the round table on line %d has two %s columns; keep one", t.line, c)
		}
		cols[c] = i
	}
	var missing []string
	for _, c := range kind.Columns() {
		if _, ok := cols[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return table{}, nil, fmt.Sprintf("the round table on line %d has no %s column", t.line, strings.Join(missing, ", no "))
	}
	return t, cols, ""
}

// readRow reads one row's cells; Problem names the first bad cell.
func readRow(kind Kind, tr tableRow, cols map[string]int, pos int) Row {
	row := Row{Line: tr.line}
	cell := func(c string) string {
		if i := cols[c]; i < len(tr.cells) {
			return plain(tr.cells[i])
		}
		return ""
	}
	var err string
	if row.Round, err = count(cell(colRound), colRound); err != "" {
		row.Problem = err
		return row
	}
	if row.Round != pos {
		row.Problem = fmt.Sprintf("its Round is %d but it is row %d; number the rounds 1, 2, 3 … in table order", row.Round, pos)
		return row
	}
	if row.Findings, err = count(cell(colFindings), colFindings); err != "" {
		row.Problem = err
		return row
	}
	if row.NewFindings, err = count(cell(colNew), colNew); err != "" {
		row.Problem = err
		return row
	}
	if row.NewFindings > row.Findings {
		row.Problem = fmt.Sprintf("it reports %d new findings out of %d; new findings are a part of the round's findings", row.NewFindings, row.Findings)
		return row
	}
	if kind == Critic {
		row.Critic, row.RunID = cell(colCritic), cell(colRun)
	}
	return row
}

func count(s, col string) (int, string) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || s != strconv.Itoa(n) {
		if s == "" {
			return 0, fmt.Sprintf("its %s cell is empty; write a whole number (0 when there are none)", col)
		}
		return 0, fmt.Sprintf("its %s cell %q is not a whole number; write one (0 when there are none)", col, cutCell(s))
	}
	return n, ""
}

// checkRun ties a critic row to a recorded run.
func checkRun(row Row, critics []string, known map[string]Run, used map[string]int) string {
	switch {
	case row.Critic == "":
		return fmt.Sprintf("its Critic cell is empty; name the configured critic that ran it (%s)", strings.Join(critics, ", "))
	case !slices.Contains(critics, row.Critic):
		return fmt.Sprintf("critic %q is not configured (configured: %s)", cutCell(row.Critic), strings.Join(critics, ", "))
	case row.RunID == "":
		return "its Run cell is empty; run the critic through the loop (`the-loop critic run " + row.Critic + "`) and put the runId of its envelope there"
	}
	run, ok := known[row.RunID]
	switch {
	case !ok:
		return fmt.Sprintf("run %q is not a critic run the loop recorded for this review; run the critic through the loop (`the-loop critic run %s`) and put the runId of its envelope there", cutCell(row.RunID), row.Critic)
	case run.Critic != row.Critic:
		return fmt.Sprintf("run %s was a round of critic %s, not %s", row.RunID, run.Critic, row.Critic)
	case run.Unavailable != "":
		return fmt.Sprintf("run %s was unavailable (%s), and an unavailable round does not count; run another", row.RunID, run.Unavailable)
	}
	if r, dup := used[row.RunID]; dup {
		return fmt.Sprintf("run %s is already round %d; each round is its own run", row.RunID, r)
	}
	return ""
}

// conclude applies the stop rule to the rows that count.
func conclude(kind Kind, file string, v Verdict, capN int) Verdict {
	last := -1
	for i, row := range v.Rows {
		if v.StoppedAt != 0 {
			if row.Counts {
				v.Messages = append(v.Messages, fmt.Sprintf("%s line %d: round %d comes after the review stopped at round %d; it is not counted", file, row.Line, row.Round, v.StoppedAt))
			}
			continue
		}
		if !row.Counts {
			v.Messages = append(v.Messages, fmt.Sprintf("%s line %d: round %d does not count: %s", file, row.Line, row.Round, row.Problem))
			continue
		}
		v.Counted++
		last = i
		if row.NewFindings == 0 || v.Counted == capN {
			v.StoppedAt = row.Round
		}
	}
	what := "rounds"
	if kind == Critic {
		what = "critic rounds"
	}
	switch {
	case v.StoppedAt != 0 && v.Rows[last].NewFindings == 0:
		v.Outcome = Pass
		v.Messages = append([]string{fmt.Sprintf("%s: stopped at round %d, which found no new findings (%d of up to %d %s)", file, v.StoppedAt, v.Counted, capN, what)}, v.Messages...)
	case v.StoppedAt != 0:
		v.Outcome = Pass
		v.Messages = append([]string{fmt.Sprintf("%s: stopped at the cap of %d %s; round %d still found %d new findings, which go to the human reviewer", file, capN, what, v.StoppedAt, v.Rows[last].NewFindings)}, v.Messages...)
	case v.Counted == 0:
		v.Outcome = Block
		v.Messages = append([]string{fmt.Sprintf("%s: no round counts yet; run a round and record it (up to %d %s)", file, capN, what)}, v.Messages...)
	default:
		v.Outcome = Block
		v.Messages = append([]string{fmt.Sprintf("%s: %d of up to %d %s count, and the last (round %d) found %d new findings; run another round and record it", file, v.Counted, capN, what, v.Rows[last].Round, v.Rows[last].NewFindings)}, v.Messages...)
	}
	return v
}

// cutCell bounds a cell quoted back in a message.
func cutCell(s string) string {
	if len(s) > 80 {
		r := []rune(s)
		if len(r) > 80 {
			return string(r[:80]) + "…"
		}
	}
	return s
}
