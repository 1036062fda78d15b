package mermaid

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// lines joins diagram lines with newlines.
func lines(ls ...string) string { return strings.Join(ls, "\n") }

// validCase is a diagram mermaid renders.
type validCase struct{ name, src string }

// invalidCase is a diagram mermaid refuses, with what Check says about it.
type invalidCase struct {
	name string
	src  string
	want []Finding
}

var validFlowcharts = []validCase{
	{"header only", "flowchart TD"},
	{"graph without direction", "graph\n  A --> B"},
	{"header and statements on one line", "graph TD; A-->B; B-->C"},
	{"every node shape", lines("flowchart LR",
		"  a[square] --> b(round) --> c([stadium]) --> d[[subroutine]]",
		"  e[(cylinder)] --> f((circle)) --> g(((double))) --> h>odd]",
		"  i{diamond} --> j{{hexagon}} --> k[/lean right/] --> l[\\lean left\\]",
		"  m[/trapezoid\\] --> n[\\inverted/] --> o(-ellipse-)")},
	{"quoted labels hold brackets and backticks", lines("flowchart TD",
		`  A["run go test (all) [fast] {x} | y"] --> B("f(x)")`,
		"  C[\"run `go test`\"] --> D{\"ok?\"}")},
	{"markdown-string labels", lines("flowchart TD",
		"  A[\"`**bold** and _it_`\"] --> B(\"`line one",
		"  line two`\")")},
	{"a quoted label spans lines", "flowchart TD\n  A[\"one\ntwo\"] --> B"},
	{"edge labels of both kinds", lines("flowchart LR",
		"  A -->|yes| B",
		"  A -- no --> C",
		`  A -->|"quoted | pipe"| D`,
		"  A == thick ==> E",
		"  A -. dotted .-> F",
		`  A -- "quoted text" --> G`)},
	{"every link kind", lines("flowchart LR",
		"  A --> B --- C -.-> D -.- E ==> F === G ~~~ H",
		"  A --x B --o C <--> D x--x E o--o F",
		"  A ----> B ==> C -..-> D",
		"  A e1@--> B")},
	{"chains and ampersands", "flowchart LR\n  A & B --> C & D --> E"},
	{"subgraphs", lines("flowchart TB",
		"  subgraph one [The first]",
		"    direction LR",
		"    a1 --> a2",
		"  end",
		`  subgraph "quoted title"`,
		"    b1",
		"  end",
		"  subgraph three",
		"    subgraph nested[\"inner\"]",
		"      c1",
		"    end",
		"  end",
		"  one --> three")},
	{"styling statements", lines("flowchart LR",
		"  A:::warn --> B",
		"  classDef warn fill:#f96,stroke:#333,stroke-width:2px",
		"  class A,B warn",
		"  style B fill:#bbf",
		"  linkStyle 0 stroke:#ff3",
		`  click A "https://example.com" "tip"`)},
	{"comments, directives and front matter", lines("---",
		"title: a graph",
		"---",
		"%%{init: {\"theme\": \"dark\"}}%%",
		"%% a comment",
		"flowchart TD",
		"  %% another",
		"  A --> B")},
	{"plain text after a quoted label", "flowchart TD\n  A[\"quoted\" tail] --> B[\"x\" ]"},
	{"a subgraph direction TD", "flowchart TD\n  subgraph s\n    direction TD\n    a\n  end"},
	{"accessibility", lines("flowchart TD", "  accTitle: the title", "  accDescr { a", "  multi-line description }", "  A --> B")},
	{"shape data", lines("flowchart TD", `  A@{ shape: rect, label: "x } y" } --> B`)},
	{"ids with punctuation and unicode", "flowchart TD\n  node.one --> node_two --> café --> x-ray --> endpoint"},
	{"entity codes in labels", "flowchart TD\n  A[\"say #quot;hi#quot;\"] --> B[a #59; b]"},
	{"closing brackets inside quoted labels", "flowchart TD\n  A[\"a ] b\"] --> B{\"c } d\"} --> C(\"e ) f\")"},
	{"links between subgraphs", "flowchart TD\n  subgraph s1\n    a\n  end\n  subgraph s2\n    b\n  end\n  s1 --> s2"},
}

var invalidFlowcharts = []invalidCase{
	{"unclosed node", "flowchart TD\n  A[open --> B\n  C --> D",
		[]Finding{{2, "node A: the label opened here is never closed with ]"}}},
	{"unclosed node at the end", "flowchart TD\n  A --> B(never",
		[]Finding{{2, "node B: the label opened here is never closed with )"}}},
	{"unclosed quote", "flowchart TD\n  A[\"open] --> B\n  C --> D",
		[]Finding{{2, "node A: the quote opened here is never closed"}}},
	{"unclosed markdown string", "flowchart TD\n  A[\"`open\"] --> B",
		[]Finding{{2, "node A: the markdown string opened here (\"`) is never closed with `\""}}},
	{"bracket in an unquoted label", "flowchart TD\n  A[call f(x)] --> B",
		[]Finding{{2, `node A: the label contains "(" — put the whole label in quotes`}}},
	{"text before a quoted label", "flowchart TD\n  A[tail \"quoted\"] --> B",
		[]Finding{{2, `node A: the label contains "\"" — put the whole label in quotes`}}},
	{"two quoted parts", "flowchart TD\n  A[\"a\" \"b\"] --> B",
		[]Finding{{2, "node A: a label holds one quoted part — put the whole label inside one pair of quotes"}}},
	{"a trailing comment", "flowchart TD\n  A --> B %% note",
		[]Finding{{2, `unexpected "%% note" — a statement ends at a newline or ;`}}},
	{"empty label", "flowchart TD\n  A[] --> B", []Finding{{2, "node A: the label is empty"}}},
	{"wrong closer", "flowchart TD\n  A((circle) --> B",
		[]Finding{{2, `node A: the label contains ")" — put the whole label in quotes`}}},
	{"space before a bracket", "flowchart TD\n  A [x] --> B",
		[]Finding{{2, "node A: a space before its label bracket — write A[…"}}},
	{"two nodes without a link", "flowchart TD\n  A B", []Finding{{2, `unexpected "B" — a statement ends at a newline or ;`}}},
	{"a link with no target", "flowchart TD\n  A -->", []Finding{{2, "a link needs a node after it"}}},
	{"link text never closed", "flowchart TD\n  A -- text B",
		[]Finding{{2, "the text of the link opened here is never closed with -->"}}},
	{"pipe text never closed", "flowchart TD\n  A -->|yes B",
		[]Finding{{2, "link text: the label opened here is never closed with |"}}},
	{"subgraph never closed", "flowchart TD\n  subgraph one\n  A --> B",
		[]Finding{{2, "subgraph opened here is never closed with end"}}},
	{"end without subgraph", "flowchart TD\n  A --> B\n  end", []Finding{{3, "end without an open subgraph"}}},
	{"end as a node id", "flowchart TD\n  A --> end-user",
		[]Finding{{2, `node id "end-user" starts with the keyword end, which closes a subgraph — rename the node`}}},
	{"bad header direction", "flowchart sideways\n  A --> B",
		[]Finding{{1, `unknown flowchart direction "sideways" — use TB, TD, BT, RL or LR`}}},
	{"bad subgraph direction", "flowchart TD\n  subgraph s\n  direction XY\n  end",
		[]Finding{{3, `direction must be TB, TD, BT, RL or LR (found "XY")`}}},
	{"style without arguments", "flowchart TD\n  style A", []Finding{{2, "style needs a target and its arguments"}}},
	{"findings keep going after a bad line", "flowchart TD\n  A[x --> B\n  C{y --> D",
		[]Finding{{2, "node A: the label opened here is never closed with ]"}, {3, "node C: the label opened here is never closed with }"}}},
	{"empty link text", "flowchart TD\n  A -- --> B", []Finding{{2, "the link text is empty"}}},
	{"subgraph title never closed", "flowchart TD\n  subgraph one [The first\n    a\n  end",
		[]Finding{{2, "subgraph title: the label opened here is never closed with ]"}, {4, "end without an open subgraph"}}},
	{"lone backtick in a markdown string", "flowchart TD\n  A[\"`a ` b`\"] --> B",
		[]Finding{{2, "node A: a markdown string cannot contain \"`\" — it ends only at `\""}}},
}

func TestValidFlowcharts(t *testing.T) { testValid(t, validFlowcharts) }

func TestInvalidFlowcharts(t *testing.T) { testInvalid(t, invalidFlowcharts) }

func testValid(t *testing.T, cases []validCase) {
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			res := Check(tt.src)
			assert.True(t, res.Checked)
			assert.Empty(t, res.Findings)
		})
	}
}

func testInvalid(t *testing.T, cases []invalidCase) {
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			res := Check(tt.src)
			assert.True(t, res.Checked)
			assert.Equal(t, tt.want, res.Findings)
		})
	}
}

var validSequences = []validCase{
	{"every statement kind", lines("sequenceDiagram",
		"  title Checkout",
		"  autonumber",
		"  participant A as Alice",
		"  actor B",
		"  box Aqua Backend",
		"    participant Web-Server",
		"    participant DB",
		"  end",
		"  A->>B: hello",
		"  B-->>A: hi back #35; not a comment",
		"  A-)B: async; B-xA: lost",
		"  A->>+Web-Server: request",
		"  Web-Server-->>-A: response",
		"  A<<->>B: both ways",
		"  activate A",
		"  deactivate A",
		"  Note right of A: thinking",
		"  Note over A,B: agreed",
		"  loop every minute",
		"    A->>DB: poll # trailing comment",
		"  end",
		"  alt ok",
		"    A->>B: fine",
		"  else failure",
		"    A->>B: retry",
		"  end",
		"  par one",
		"    A->>B: x",
		"  and two",
		"    A->>DB: y",
		"  end",
		"  critical commit",
		"    A->>DB: write",
		"  option timeout",
		"    A->>A: give up",
		"  end",
		"  rect rgb(200, 150, 255)",
		"    A->>B: boxed",
		"  end",
		"  %% comment",
		"  create participant C",
		"  Note over A: notes do not count",
		"  A->>C: made",
		"  destroy C",
		"  C-->>A: gone")},
	{"a message on the header line", "sequenceDiagram A->>B: x"},
	{"an empty message text", "sequenceDiagram\n  A->>B:"},
	{"a quoted alias and a message to oneself", "sequenceDiagram\n  participant A as \"Alice (web)\"\n  A->>A: self"},
}

var invalidSequences = []invalidCase{
	{"a created participant's first message goes elsewhere", "sequenceDiagram\n  create participant C\n  C->>A: y",
		[]Finding{{2, "C is created here, so the next message must go to it"}}},
	{"a destroyed participant's last message is someone else's", "sequenceDiagram\n  A->>B: x\n  destroy B\n  A->>C: y",
		[]Finding{{3, "B is destroyed here, so the next message must be sent by or to it"}}},
	{"message without text", "sequenceDiagram\n  A->>B", []Finding{{2, "the message from A to B needs ': text'"}}},
	{"unknown statement", "sequenceDiagram\n  A says hi", []Finding{{2, `"A says hi" is not a sequence statement (a message needs an arrow such as ->>; a ';' ends a statement)`}}},
	{"a semicolon in a message", "sequenceDiagram\n  A->>B: one; two", []Finding{{2, `"two" is not a sequence statement (a message needs an arrow such as ->>; a ';' ends a statement)`}}},
	{"unclosed loop", "sequenceDiagram\n  loop forever\n  A->>B: x", []Finding{{2, "loop opened here is never closed with end"}}},
	{"alt never closed", "sequenceDiagram\n  alt ok\n  A->>B: y", []Finding{{2, "alt opened here is never closed with end"}}},
	{"stray end", "sequenceDiagram\n  A->>B: x\n  end", []Finding{{3, "end without an open block"}}},
	{"else outside alt", "sequenceDiagram\n  loop l\n  else x\n  end", []Finding{{3, "else belongs inside alt … end"}}},
	{"participant without a name", "sequenceDiagram\n  participant", []Finding{{2, "participant needs a name"}}},
	{"note without placement", "sequenceDiagram\n  Note A: x", []Finding{{2, "a note is placed left of, right of or over a participant"}}},
	{"note without text", "sequenceDiagram\n  Note over A", []Finding{{2, "a note needs ': text' after its participant"}}},
	{"a note has no multi-line form", "sequenceDiagram\n  Note left of A\n  more\n  end",
		[]Finding{{2, "a note needs ': text' after its participant"}, {3, `"more" is not a sequence statement (a message needs an arrow such as ->>; a ';' ends a statement)`}, {4, "end without an open block"}}},
	{"a message inside a box", "sequenceDiagram\n  box\n  A->>B: x\n  end", []Finding{{3, "a box holds only participant and actor lines"}}},
}

func TestValidSequenceDiagrams(t *testing.T) { testValid(t, validSequences) }

func TestInvalidSequenceDiagrams(t *testing.T) { testInvalid(t, invalidSequences) }

func TestTypesThatAreNotParsedAreNamed(t *testing.T) {
	for _, src := range []string{"stateDiagram-v2\n  [*] --> S", "pie title Pets\n  \"Dogs\" : 3", "classDiagram\n  A <|-- B", "gantt"} {
		res := Check(src)
		word, _, _ := strings.Cut(src, "\n")
		word, _, _ = strings.Cut(word, " ")
		assert.False(t, res.Checked, src)
		assert.Empty(t, res.Findings, src)
		assert.Equal(t, "mermaid diagram type "+word+" is not checked", res.UncheckedNote(), src)
	}
	res := Check("flowchart TD\n  A --> B")
	assert.Equal(t, "", res.UncheckedNote(), "a parsed type carries no note")
}

func TestWhatIsNotADiagram(t *testing.T) {
	assert.Equal(t, Result{Empty: true}, Check("\n  \n%% only a comment\n"))
	assert.Equal(t, Result{Findings: []Finding{{0, `does not start with a diagram type (found "A --> B")`}}}, Check("A --> B"))
	assert.Equal(t, Result{Findings: []Finding{{1, "front matter opened here is never closed with ---"}}}, Check("---\ntitle: x\nflowchart TD"))
	assert.Equal(t, Result{Findings: []Finding{{1, "directive %%{ opened here is never closed with }%%"}}}, Check("%%{init: {}\nflowchart TD"))
}

// BenchmarkCheckUnclosedLabels: a text of labels that all run to its end is
// checked in one pass, not one pass per label.
func BenchmarkCheckUnclosedLabels(b *testing.B) {
	src := "flowchart TD\n" + strings.Repeat("  A>never closed\n", 5000)
	for b.Loop() {
		Check(src)
	}
}

// BenchmarkCheckFlowchart is a floor: a well-formed diagram of the same size.
func BenchmarkCheckFlowchart(b *testing.B) {
	src := "flowchart TD\n" + strings.Repeat("  A>closed] --> B\n", 5000)
	for b.Loop() {
		Check(src)
	}
}
