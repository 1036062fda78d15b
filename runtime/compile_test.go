package runtime

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testRegistry(t *testing.T, hooks map[string]HookFunc) *Registry {
	t.Helper()
	specs := make([]HookSpec, 0, len(hooks))
	for n, fn := range hooks {
		specs = append(specs, HookSpec{Name: n, Func: fn})
	}
	r, err := NewRegistry(specs...)
	require.NoError(t, err)
	return r
}

const baseGraph = `
version: 1
name: t
start: a
skipSets:
  tail: [b]
nodes:
  - id: a
    exit: [ok]
  - id: b
    skippable: true
    exit: [ok]
  - id: done
    terminal: true
edges:
  - {from: a, to: b, on: pass}
  - {from: b, to: done, on: pass}
  - {from: b, to: done, on: skipped}
`

func TestCompileValid(t *testing.T) {
	reg := testRegistry(t, map[string]HookFunc{"ok": passHook(nil)})
	g, err := Compile("t", []byte(baseGraph), reg)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "done"}, g.IDs())
	to, ok := g.Next("a", "pass")
	assert.True(t, ok)
	assert.Equal(t, "b", to)
	assert.Equal(t, 3, g.Nodes[0].MaxAttempts)
	assert.Equal(t, []string{"b"}, g.SkipSets["tail"])
}

func TestCompileFaults(t *testing.T) {
	reg := testRegistry(t, map[string]HookFunc{"ok": passHook(nil)})
	tests := []struct {
		name, from, to, want string
	}{
		{"unknown node in an edge", "{from: b, to: done, on: pass}", "{from: b, to: nowhere, on: pass}", `edge to names undeclared node "nowhere"`},
		{"unknown hook", "exit: [ok]\n  - id: b", "exit: [not-a-hook]\n  - id: b", `unknown hook "not-a-hook"; registered hooks are: ok`},
		{"duplicate id", "- id: b\n", "- id: a\n", `duplicate node id "a"`},
		{"skippable without skipped edge", "  - {from: b, to: done, on: skipped}\n", "", `node "b" is skippable but declares no edge for the outcome 'skipped'`},
		{"opt-in in a skip set", "skippable: true", "optIn: true", `which is an opt-in node`},
		{"unreachable node", "  - {from: a, to: b, on: pass}\n", "  - {from: a, to: done, on: pass}\n", `node "b" is unreachable`},
		{"missing start node", "start: a", "start: zz", `start node "zz" is not declared`},
		{"empty alternative", "  - id: a\n", "  - id: a\n    produces: 'x.md||y.md'\n", "empty alternative"},
		{"unknown node key", "  - id: a\n", "  - id: a\n    onlyWhenSkipped: x.md\n", `unknown key "onlyWhenSkipped"`},
		{"bad actor", "  - id: a\n", "  - id: a\n    actor: robot\n", `actor "robot" is not one of`},
		{"required and skippable", "    skippable: true\n", "    skippable: true\n    required: true\n", "both required and skippable"},
		{"quoted boolean is refused", "    skippable: true\n", "    skippable: \"false\"\n", "cannot unmarshal"},
		{"dead end", "    terminal: true\n", "\n", `node "done" is a dead end`},
		{"skip set widens vocabulary", "tail: [b]", "tail: [a]", `names "a", which is not a declared skippable node`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(baseGraph, tt.from, tt.to, 1)
			require.NotEqual(t, baseGraph, src, "the fixture edit must apply")
			_, err := Compile("t", []byte(src), reg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestCompileAcceptsBooleanOnKeyAndFirstEdgeWins(t *testing.T) {
	reg := testRegistry(t, map[string]HookFunc{"ok": passHook(nil)})
	src := strings.Replace(baseGraph, "  - {from: a, to: b, on: pass}\n", "  - {from: a, to: b, true: pass}\n  - {from: a, to: done, on: pass}\n", 1)
	g, err := Compile("t", []byte(src), reg)
	require.NoError(t, err)
	to, _ := g.Next("a", "pass")
	assert.Equal(t, "b", to, "the first declared edge wins")
}

func TestCompileRefusesARecordOutsideTheSpecFolder(t *testing.T) {
	base := "nodes:\n  - {id: a, terminal: true}\nrecords: [%s]\n"
	for _, tt := range []struct{ records, want string }{
		{`"../x.md"`, `record "../x.md" must name one file inside the spec folder`},
		{`"/etc/x.md"`, `record "/etc/x.md" must name one file`},
		{`"a.md|b.md"`, `record "a.md|b.md" must name one file`},
		{`"./a.md"`, `record "./a.md" must name one file`},
		{`a.md, a.md`, `record "a.md" is listed twice`},
	} {
		_, err := Compile("g", []byte(fmt.Sprintf(base, tt.records)), testRegistry(t, nil))
		assert.ErrorContains(t, err, tt.want, tt.records)
	}
	g, err := Compile("g", []byte(fmt.Sprintf(base, "evidence/self-review.md")), testRegistry(t, nil))
	require.NoError(t, err)
	assert.True(t, g.IsRecord("./evidence/self-review.md"))
	assert.False(t, g.IsRecord("evidence/critic-review.md"))
}
