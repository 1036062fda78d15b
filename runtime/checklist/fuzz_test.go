package checklist

import (
	"reflect"
	"testing"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/runtime"
)

// FuzzParse checks the checklist reader on any comment text: every token
// it reads is a row name, and whatever the boxes say, the selection skips
// only skippable nodes and opts in only opt-in nodes. Text after the
// checklist that holds no row changes nothing.
func FuzzParse(f *testing.F) {
	g := compileFuzzGraph(f)
	o := OptionsFor(g, config.Default(), "phase-selection")
	f.Add(Render(g, o))
	f.Add("- [ ] requirements-definition\n- [x] `design-critic-review`\n- [ ] spec-chain\n")
	f.Add("* [X] design.\n- [ ] design-\n - [x] implementation\n-[ ]security-review")
	f.Add("- [ ] security-review\n- [x] security-review\n- [ ] pr-sessions-never\n- [x] pr-sessions-always\n")
	f.Fuzz(func(t *testing.T, body string) {
		p := Parse(body)
		if p.Len() != len(p.Tokens()) {
			t.Fatalf("Len %d but %d tokens", p.Len(), len(p.Tokens()))
		}
		for _, tok := range p.Tokens() {
			if !validName.MatchString(tok) {
				t.Fatalf("read token %q from %q", tok, body)
			}
			if m := p.Mark(tok); m != Unticked && m != Ticked && m != Conflicting {
				t.Fatalf("token %q has mark %d", tok, m)
			}
		}
		if after := Parse(body + "\n\nThanks, looks good to me.\n"); !reflect.DeepEqual(after, p) {
			t.Fatalf("a trailing sentence changed the reading of %q", body)
		}
		sel := Resolve(g, p, o)
		for _, s := range sel.Skips {
			if n, ok := g.Node(s.Node); !ok || !n.Skippable {
				t.Fatalf("%q skips %q, which is not skippable", body, s.Node)
			}
		}
		for _, id := range sel.OptIns {
			if n, ok := g.Node(id); !ok || !n.OptIn {
				t.Fatalf("%q opts in %q, which is not an opt-in node", body, id)
			}
		}
	})
}

func compileFuzzGraph(tb testing.TB) *runtime.Graph {
	tb.Helper()
	reg, err := runtime.NewRegistry(runtime.HookSpec{Name: "noop", Func: func(*runtime.HookContext) (runtime.Result, error) { return runtime.OK("noop", nil), nil }})
	if err != nil {
		tb.Fatal(err)
	}
	g, err := runtime.Compile("test", []byte(outerYAML), reg)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}
