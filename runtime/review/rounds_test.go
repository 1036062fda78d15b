package review

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const criticHeader = "| Round | Critic | Run | Findings | New findings | Fixed in |\n|---|---|---|---:|---:|---|\n"

func criticDoc(rows ...string) string {
	return "# Critic review\n\n" + criticHeader + strings.Join(rows, "\n") + "\n"
}

var recorded = []Run{
	{ID: "cr-1", Critic: "codex"},
	{ID: "cr-2", Critic: "codex"},
	{ID: "cr-3", Critic: "cursor"},
	{ID: "cr-4", Critic: "codex"},
	{ID: "cr-hung", Critic: "codex", Unavailable: "timed out after 600s and was stopped"},
}

var twoCritics = Policy{Critics: []string{"codex", "cursor"}}

func TestDecideCriticRounds(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		policy  Policy
		runs    []Run
		outcome Outcome
		counted int
		stopped int
		msgs    []string
	}{
		{
			name:    "stops on a round with no new findings",
			doc:     criticDoc("| 1 | codex | cr-1 | 3 | 3 | abc123 |", "| 2 | cursor | `cr-3` | 1 | 0 | — |"),
			outcome: Pass, counted: 2, stopped: 2,
			msgs: []string{"evidence/critic-review.md: stopped at round 2, which found no new findings (2 of up to 3 critic rounds)"},
		},
		{
			name:    "stops at the cap",
			doc:     criticDoc("| 1 | codex | cr-1 | 3 | 3 | |", "| 2 | codex | cr-2 | 2 | 2 | |", "| 3 | cursor | cr-3 | 1 | 1 | |"),
			outcome: Pass, counted: 3, stopped: 3,
			msgs: []string{"evidence/critic-review.md: stopped at the cap of 3 critic rounds; round 3 still found 1 new findings, which go to the human reviewer"},
		},
		{
			name:    "the operator's cap",
			doc:     criticDoc("| 1 | codex | cr-1 | 3 | 3 | |"),
			policy:  Policy{Cap: 1, Critics: []string{"codex"}},
			outcome: Pass, counted: 1, stopped: 1,
		},
		{
			name:    "a row with no recorded run behind it does not count",
			doc:     criticDoc("| 1 | codex | cr-1 | 3 | 3 | |", "| 2 | codex | cr-made-up | 0 | 0 | |"),
			outcome: Block, counted: 1,
			msgs: []string{
				"evidence/critic-review.md: 1 of up to 3 critic rounds count, and the last (round 1) found 3 new findings; run another round and record it",
				"evidence/critic-review.md line 6: round 2 does not count: run \"cr-made-up\" is not a critic run the loop recorded for this review; run the critic through the loop (`the-loop critic run codex`) and put the runId of its envelope there",
			},
		},
		{
			name:    "an unavailable run does not count",
			doc:     criticDoc("| 1 | codex | cr-hung | 0 | 0 | |"),
			outcome: Block,
			msgs: []string{
				"evidence/critic-review.md: no round counts yet; run a round and record it (up to 3 critic rounds)",
				"evidence/critic-review.md line 5: round 1 does not count: run cr-hung was unavailable (timed out after 600s and was stopped), and an unavailable round does not count; run another",
			},
		},
		{
			name:    "a run from another critic does not count",
			doc:     criticDoc("| 1 | cursor | cr-1 | 0 | 0 | |"),
			outcome: Block,
			msgs:    []string{"", "round 1 does not count: run cr-1 was a round of critic codex, not cursor"},
		},
		{
			name:    "one run cannot be two rounds",
			doc:     criticDoc("| 1 | codex | cr-1 | 2 | 2 | |", "| 2 | codex | cr-1 | 0 | 0 | |"),
			outcome: Block, counted: 1,
			msgs: []string{"", "round 2 does not count: run cr-1 is already round 1; each round is its own run"},
		},
		{
			name:    "an unconfigured critic does not count",
			doc:     criticDoc("| 1 | gpt | cr-1 | 0 | 0 | |"),
			outcome: Block,
			msgs:    []string{"", `round 1 does not count: critic "gpt" is not configured (configured: codex, cursor)`},
		},
		{
			name:    "no runs recorded at all",
			doc:     criticDoc("| 1 | codex | cr-1 | 0 | 0 | |"),
			runs:    []Run{},
			outcome: Block,
			msgs:    []string{"", `round 1 does not count: run "cr-1" is not a critic run the loop recorded`},
		},
		{
			name:    "empty run and critic cells",
			doc:     criticDoc("| 1 | codex |  | 0 | 0 | |", "| 2 |  | cr-1 | 0 | 0 | |"),
			outcome: Block,
			msgs:    []string{"", "round 1 does not count: its Run cell is empty", "round 2 does not count: its Critic cell is empty; name the configured critic that ran it (codex, cursor)"},
		},
		{
			name:    "an invalid row does not stop the review; a later valid one does",
			doc:     criticDoc("| 1 | codex | cr-1 | 4 | 4 | |", "| 2 | codex | cr-nope | 0 | 0 | |", "| 3 | codex | cr-2 | 1 | 0 | |"),
			outcome: Pass, counted: 2, stopped: 3,
			msgs: []string{"stopped at round 3", "round 2 does not count"},
		},
		{
			name:    "rounds after the stop are not counted",
			doc:     criticDoc("| 1 | codex | cr-1 | 0 | 0 | |", "| 2 | codex | cr-2 | 5 | 5 | |"),
			outcome: Pass, counted: 1, stopped: 1,
			msgs: []string{"stopped at round 1", "line 6: round 2 comes after the review stopped at round 1; it is not counted"},
		},
		{
			name:    "no critic configured waits for the operator",
			doc:     criticDoc("| 1 | codex | cr-1 | 0 | 0 | |"),
			policy:  Policy{},
			outcome: Wait,
			msgs:    []string{"no critic is configured, so no critic round can count; an operator adds one under `critics:` in the loop's configuration (docs/reviews.md)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.policy
			if p.Critics == nil && p.Cap == 0 && tt.outcome != Wait {
				p = twoCritics
			}
			runs := tt.runs
			if runs == nil {
				runs = recorded
			}
			v := Decide(Critic, tt.doc, p, runs)
			assert.Equal(t, tt.outcome, v.Outcome, "%v", v.Messages)
			assert.Equal(t, tt.counted, v.Counted)
			assert.Equal(t, tt.stopped, v.StoppedAt)
			require.GreaterOrEqual(t, len(v.Messages), len(tt.msgs), "%v", v.Messages)
			for i, m := range tt.msgs {
				assert.Contains(t, v.Messages[i], m)
			}
		})
	}
}

func TestDecideSelfRounds(t *testing.T) {
	self := func(rows ...string) string {
		return "## Rounds\n\n| Round | Findings | New findings | Notes |\n|---|---|---|---|\n" + strings.Join(rows, "\n") + "\n"
	}
	tests := []struct {
		name    string
		doc     string
		cap     int
		outcome Outcome
		counted int
		msgs    []string
	}{
		{"zero new findings on the first round", self("| 1 | 0 | 0 | clean |"), 0, Pass, 1,
			[]string{"evidence/self-review.md: stopped at round 1, which found no new findings (1 of up to 3 rounds)"}},
		{"converges", self("| 1 | 5 | 5 | |", "| 2 | 2 | 1 | |", "| 3 | 1 | 0 | |"), 0, Pass, 3, []string{"stopped at round 3"}},
		{"cap of 2", self("| 1 | 5 | 5 | |", "| 2 | 2 | 1 | |"), 2, Pass, 2, []string{"stopped at the cap of 2 rounds; round 2 still found 1 new findings"}},
		{"still finding", self("| 1 | 5 | 5 | |", "| 2 | 2 | 1 | |"), 0, Block, 2,
			[]string{"evidence/self-review.md: 2 of up to 3 rounds count, and the last (round 2) found 1 new findings; run another round and record it"}},
		{"self rounds need no critic run", self("| 1 | 1 | 0 | |"), 0, Pass, 1, nil},
		{"bold and code marks are read through", self("| **1** | `2` | **0** | |"), 0, Pass, 1, nil},
		{"a word instead of a number", self("| 1 | some | none | |"), 0, Block, 0,
			[]string{"no round counts yet", `line 5: round 1 does not count: its Findings cell "some" is not a whole number; write one (0 when there are none)`}},
		{"an empty count", self("| 1 | 2 |  | |"), 0, Block, 0, []string{"", "its New findings cell is empty"}},
		{"more new findings than findings", self("| 1 | 1 | 3 | |"), 0, Block, 0, []string{"", "it reports 3 new findings out of 1"}},
		{"negative", self("| 1 | -1 | 0 | |"), 0, Block, 0, []string{"", `its Findings cell "-1" is not a whole number`}},
		{"rounds out of order", self("| 1 | 2 | 2 | |", "| 3 | 0 | 0 | |"), 0, Block, 1,
			[]string{"", "round 3 does not count: its Round is 3 but it is row 2; number the rounds 1, 2, 3 … in table order"}},
		{"missing cells", self("| 1 |"), 0, Block, 0, []string{"", "its Findings cell is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Decide(Self, tt.doc, Policy{Cap: tt.cap}, nil)
			assert.Equal(t, tt.outcome, v.Outcome, "%v", v.Messages)
			assert.Equal(t, tt.counted, v.Counted)
			require.GreaterOrEqual(t, len(v.Messages), len(tt.msgs), "%v", v.Messages)
			for i, m := range tt.msgs {
				assert.Contains(t, v.Messages[i], m)
			}
		})
	}
}

func TestDecideRefusesAMissingOrMalformedRecord(t *testing.T) {
	tests := []struct {
		name, doc string
		kind      Kind
		want      string
	}{
		{"missing file", "", Critic, "evidence/critic-review.md is missing or empty; record each round as a row of a table with the columns | Round | Critic | Run | Findings | New findings |"},
		{"blank file", "\n  \n", Self, "evidence/self-review.md is missing or empty; record each round as a row of a table with the columns | Round | Findings | New findings |"},
		{"prose only", "# Self review\n\nLooked at it twice, all good.\n", Self, "evidence/self-review.md: no round table found (a table whose header has a Round column); the columns are | Round | Findings | New findings |"},
		{"a critic table without a Run column", "| Round | Critic | Findings | New findings |\n|---|---|---|---|\n| 1 | codex | 0 | 0 |\n", Critic, "the round table on line 1 has no Run column"},
		{"two columns missing", "| Round | Outcome |\n|---|---|\n| 1 | fine |\n", Critic, "has no Critic, no Run, no Findings, no New findings column"},
		{"two round tables", criticDoc("| 1 | codex | cr-1 | 0 | 0 | |") + "\n" + criticHeader + "| 1 | codex | cr-2 | 0 | 0 | |\n", Critic, "has 2 round tables (lines 3 and 7); keep every round in one table"},
		{"a duplicated column", "| Round | Findings | New findings | findings |\n|---|---|---|---|\n", Self, "has two Findings columns"},
		{"a table inside a code fence is an example, not a record", "```\n| Round | Findings | New findings |\n|---|---|---|\n| 1 | 0 | 0 |\n```\n", Self, "no round table found"},
		{"a table inside a comment is a template, not a record", "<!--\n| Round | Findings | New findings |\n|---|---|---|\n| 1 | 0 | 0 |\n-->\n", Self, "no round table found"},
		{"a header without its delimiter is not a table", "| Round | Findings | New findings |\n| 1 | 0 | 0 |\n", Self, "no round table found"},
		{"unknown kind", "x", Kind("security-review"), `review kind "security-review" is not one of`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Decide(tt.kind, tt.doc, twoCritics, recorded)
			assert.Equal(t, Block, v.Outcome)
			require.Len(t, v.Messages, 1)
			assert.Contains(t, v.Messages[0], tt.want)
			assert.Zero(t, v.Counted)
		})
	}
}

func TestDecideReadsRealWorldTables(t *testing.T) {
	// Aliased headers, alignment marks, escaped pipes, CRLF line ends and
	// rows with a trailing cell missing its outer pipe.
	doc := "Intro\r\n\r\n| round | Critic | Run ID | findings | New Findings | Notes |\r\n| :-: | --- | :--- | ---: | --: | - |\r\n" +
		"| 1 | codex | cr-1 | 2 | 2 | split on a \\| pipe |\r\n| 2 | codex | cr-2 | 0 | 0 | clean\r\n\r\nAfter the table.\r\n"
	v := Decide(Critic, doc, twoCritics, recorded)
	assert.Equal(t, Pass, v.Outcome, "%v", v.Messages)
	require.Len(t, v.Rows, 2)
	assert.Equal(t, Row{Line: 5, Round: 1, Critic: "codex", RunID: "cr-1", Findings: 2, NewFindings: 2, Counts: true}, v.Rows[0])
	assert.Equal(t, 2, v.StoppedAt)
}

func TestDecideNeverPassesOnRowsAlone(t *testing.T) {
	// However a table is written, a critic round with no run the loop
	// recorded never counts, so the review cannot pass on text alone.
	docs := []string{
		criticDoc("| 1 | codex | cr-1 | 0 | 0 | |"),
		criticDoc("| 1 | codex | CR-1 | 0 | 0 | |"),
		criticDoc("| 1 | codex | cr-1  | 0 | 0 | |", "| 2 | codex | cr-1 | 0 | 0 | |"),
		criticDoc("| 1 | Codex | cr-1 | 0 | 0 | |"),
	}
	for _, doc := range docs {
		v := Decide(Critic, doc, Policy{Critics: []string{"codex"}}, []Run{{ID: "cr-9", Critic: "codex"}})
		assert.Equal(t, Block, v.Outcome, doc)
		assert.Zero(t, v.Counted, doc)
	}
}

func TestKindFilesAndColumns(t *testing.T) {
	assert.Equal(t, "evidence/self-review.md", Self.File())
	assert.Equal(t, "evidence/critic-review.md", Critic.File())
	assert.Equal(t, []string{"Round", "Findings", "New findings"}, Self.Columns())
	assert.Equal(t, []string{"Round", "Critic", "Run", "Findings", "New findings"}, Critic.Columns())
}
