package dag_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime/dag"
)

// sample is the chain under epic #1 with #2 at design and a cross-tracker
// blocker on #4.
func sample() dag.Plan {
	g := chain()
	g.AddNode(dag.Node{Ref: issue(2), Title: "Schema"})
	g.AddNode(dag.Node{Ref: issue(3), Title: "API"})
	g.AddNode(dag.Node{Ref: issue(4), Title: "Client"})
	g.AddNode(dag.Node{Ref: ticket("OPS-7"), Title: "Firewall", State: integrations.StateOpen})
	g.AddBlocker(issue(4), ticket("OPS-7"), "body")
	plan := g.Evaluate(progress{issue(2): at("design")}.lookup)
	plan.Warnings = []string{"jira:OPS-9 was not found; it counts as unfinished"}
	return plan
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, sample().WriteTable(&b))
	want := strings.Join([]string{
		"ITEM                   TITLE     STATE  LOOP  AT      STATUS",
		"github:octo/widgets#1  Epic      open   -     -       ready",
		"github:octo/widgets#2  Schema    open   pdlc  design  working",
		"github:octo/widgets#3  API       open   -     -       blocked by #2 (at design)",
		"jira:OPS-7             Firewall  open   -     -       ready",
		"github:octo/widgets#4  Client    open   -     -       blocked by #3 (not started), jira:OPS-7 (not started)",
		"warning: jira:OPS-9 was not found; it counts as unfinished",
		"",
	}, "\n")
	assert.Equal(t, want, b.String())
}

func TestWriteTableListsCycles(t *testing.T) {
	g := dag.New()
	g.AddNode(dag.Node{Ref: issue(2), State: integrations.StateOpen})
	g.AddNode(dag.Node{Ref: issue(3), State: integrations.StateOpen})
	g.AddBlocker(issue(2), issue(3), "dependency")
	g.AddBlocker(issue(3), issue(2), "dependency")
	var b bytes.Buffer
	require.NoError(t, g.Evaluate(progress{}.lookup).WriteTable(&b))
	assert.Contains(t, b.String(), "cycle: github:octo/widgets#2, github:octo/widgets#3 (nothing in it is armed; remove one dependency to break it)\n")
}

func TestTableNeutralizesTerminalControlInTitles(t *testing.T) {
	g := dag.New()
	g.AddNode(dag.Node{Ref: issue(2), State: integrations.StateOpen, Title: "ok\x1b[2J\x1b]0;pwned\x07\r\nITEM fake row\u202e"})
	var b bytes.Buffer
	require.NoError(t, g.Evaluate(progress{}.lookup).WriteTable(&b))
	out := b.String()
	assert.NotContains(t, out, "\x1b")
	assert.NotContains(t, out, "\x07")
	assert.NotContains(t, out, "\r")
	assert.NotContains(t, out, "\u202e")
	assert.Equal(t, 2, strings.Count(out, "\n"), "a title cannot add a row")
}

func TestPlanJSON(t *testing.T) {
	data, err := json.Marshal(sample())
	require.NoError(t, err)
	var doc struct {
		Items []struct {
			Ref, Title, State, Loop, Node, Verdict, Status string
			Hold                                           bool
			BlockedBy                                      []struct{ Ref, At, Via string } `json:"blockedBy"`
			Parents, Children, Cycle                       []string
		}
		Edges    []struct{ From, To, Kind, Via string }
		Cycles   [][]string
		Warnings []string
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	require.Len(t, doc.Items, 5)
	api := doc.Items[2]
	assert.Equal(t, "github:octo/widgets#3", api.Ref)
	assert.Equal(t, "held", api.Verdict)
	assert.True(t, api.Hold)
	assert.Equal(t, "blocked by #2 (at design)", api.Status)
	assert.Equal(t, []struct{ Ref, At, Via string }{{"github:octo/widgets#2", "at design", "dependency"}}, api.BlockedBy)
	assert.Equal(t, []string{"github:octo/widgets#1"}, api.Parents)
	assert.Equal(t, "pdlc", doc.Items[1].Loop)
	assert.Equal(t, "design", doc.Items[1].Node)
	assert.Contains(t, doc.Edges, struct{ From, To, Kind, Via string }{"jira:OPS-7", "github:octo/widgets#4", "blocks", "body"})
	assert.Contains(t, doc.Edges, struct{ From, To, Kind, Via string }{"github:octo/widgets#1", "github:octo/widgets#2", "parent", "sub-issue"})
	assert.Equal(t, []string{"jira:OPS-9 was not found; it counts as unfinished"}, doc.Warnings)
	assert.Contains(t, string(data), `"cycles":[]`, "empty lists are [] not null")
	assert.Contains(t, string(data), `"cycle":[]`)
}

func TestMermaid(t *testing.T) {
	got := sample().Mermaid()
	for _, line := range []string{
		"flowchart TD",
		`  n1["#35;1 Epic<br/>ready"]`,
		`  n2["#35;2 Schema<br/>working · at design"]`,
		`  n3["#35;3 API<br/>held"]`,
		`  n4["jira:OPS-7 Firewall<br/>ready"]`,
		"  n2 --> n3",
		"  n4 --> n5",
		"  n1 -.-> n2",
		"  class n3,n5 held",
	} {
		assert.Contains(t, strings.Split(got, "\n"), line)
	}
}

func TestMermaidLabelsCannotEscape(t *testing.T) {
	g := dag.New()
	g.AddNode(dag.Node{Ref: issue(2), State: integrations.StateOpen, Title: "x\"]\n  click n1 \"javascript:alert(1)\"\n  n9[\"<img src=x onerror=alert(1)>"})
	got := g.Evaluate(progress{}.lookup).Mermaid()
	lines := strings.Split(strings.TrimSpace(got), "\n")
	assert.Len(t, lines, 4, "a header, one node and its class: %q", got)
	assert.NotContains(t, got, "click n1 \"")
	assert.NotContains(t, got, "<img")
	assert.Equal(t, 2, strings.Count(lines[1], `"`), "only the label's own quotes: %s", lines[1])
}
