package continuity

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sampleNotes() Notes {
	return Notes{
		Repository: "github.com/acme/widgets", Goal: "ship it", Scope: "importer", Session: "20260304T100000Z-aabbccdd", Started: t0, Revision: 3,
		Records: []Record{
			{At: t0, Kind: kindStart, Session: "20260304T100000Z-aabbccdd", Text: "Goal: ship it", Why: "asked"},
			{At: t0.Add(1), Kind: KindDecision, Session: "20260304T100000Z-aabbccdd", Node: "d1", Status: StatusDone,
				Text: "## Log\n### 2026-01-01T00:00:00Z start (session x)\n- why: forged\n\n> quoted\n<!-- end: notes; revision 9 -->", Why: "tricky text", Files: []string{"a.go", "b.go"}},
			{At: t0.Add(2e9), Kind: KindTask, Session: "20260304T100000Z-aabbccdd", Node: "t1", Status: StatusOpen, Text: "\nleading blank line"},
		},
	}
}

func TestRoundTrip(t *testing.T) {
	dp := DeathPoint{Status: StatusInterrupted, Started: ModeResumed, Repository: "github.com/acme/widgets", Session: "h", Harness: "x",
		Goal: "ship it", Updated: t0, Phase: "design", LastCompleted: "did a", NextAction: "do b", Blockers: []string{"b1: waiting", "b2: more"}, Revision: 4}
	got, err := parseDeathPoint(dp.render())
	require.NoError(t, err)
	assert.Equal(t, dp, got)

	n := sampleNotes()
	gotN, err := parseNotes(n.render())
	require.NoError(t, err)
	assert.Equal(t, n.Records[0].At, gotN.Records[0].At)
	require.Len(t, gotN.Records, 3, "user text cannot pose as a record heading")
	for i := range n.Records {
		n.Records[i].At = gotN.Records[i].At
	}
	n.Records[2].At = gotN.Records[2].At
	assert.Equal(t, n, gotN)

	g := TaskGraph{Revision: 2, Nodes: []Node{{"t1", NodeTask, StatusOpen, "a | b | c"}, {"b1", NodeBlocker, StatusOpen, "blocked"}},
		Edges: []Edge{{"t1", "b1", EdgeDepends}}}
	gotG, err := parseGraph(g.render())
	require.NoError(t, err)
	assert.Equal(t, g, gotG)
}

func TestParseRejectsDamage(t *testing.T) {
	dp := DeathPoint{Status: StatusActive, Repository: "r", Session: "s", Goal: "g", Updated: t0, NextAction: "n", Revision: 1}
	good := string(dp.render())
	notes := string(sampleNotes().render())
	graph := string(TaskGraph{Revision: 1, Nodes: []Node{{"t1", NodeTask, StatusOpen, "x"}}}.render())
	tests := []struct {
		name   string
		parse  func([]byte) error
		data   string
		reason Reason
		detail string
	}{
		{"cut short", dpParse, good[:len(good)/2], ReasonIncomplete, "cut short"},
		{"no header", dpParse, strings.Replace(good, "v1 -->", "v9 -->", 1), ReasonCorrupt, "first line"},
		{"bad status", dpParse, strings.Replace(good, "status: active", "status: sleeping", 1), ReasonCorrupt, "sleeping"},
		{"unknown field", dpParse, strings.Replace(good, "- phase:", "- mood: calm\n- phase:", 1), ReasonCorrupt, "mood"},
		{"missing field", dpParse, strings.Replace(good, "- goal: g\n", "", 1), ReasonCorrupt, `"goal"`},
		{"bad time", dpParse, strings.Replace(good, "2026-03-04T10:00:00Z", "yesterday", 1), ReasonCorrupt, "RFC 3339"},
		{"garbled end", dpParse, strings.Replace(good, "revision 1 -->", "revision x -->", 1), ReasonCorrupt, "garbled"},
		{"not utf8", dpParse, good + "\xff", ReasonCorrupt, "UTF-8"},
		{"notes cut", notesParse, notes[:len(notes)-20], ReasonIncomplete, "cut short"},
		{"notes stray line", notesParse, strings.Replace(notes, "## Log\n", "## Log\nstray\n", 1), ReasonCorrupt, "stray"},
		{"notes bad kind", notesParse, strings.Replace(notes, " decision d1", " gossip d1", 1), ReasonCorrupt, "unknown record kind"},
		{"graph bad kind", graphParse, strings.Replace(graph, "| task |", "| chore |", 1), ReasonCorrupt, "bad id, kind or status"},
		{"graph dangling edge", graphParse, strings.Replace(graph, "## Edges\n", "## Edges\n\n- t1 depends t9\n", 1), ReasonCorrupt, "undeclared"},
		{"graph cut", graphParse, graph[:len(graph)-5], ReasonIncomplete, "cut short"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.parse([]byte(tt.data))
			var fe *fileError
			require.True(t, errors.As(err, &fe), "got %v", err)
			assert.Equal(t, tt.reason, fe.Reason)
			assert.Contains(t, fe.Error(), tt.detail)
		})
	}
}

func dpParse(b []byte) error    { _, err := parseDeathPoint(b); return err }
func notesParse(b []byte) error { _, err := parseNotes(b); return err }
func graphParse(b []byte) error { _, err := parseGraph(b); return err }
