package dag_test

import (
	"testing"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime/dag"
)

// project500 is a 500-item project: one epic, children in ten layers, each
// waiting for up to three items of the layer before.
func project500() []integrations.Relations {
	const n = 500
	items := make([]integrations.Relations, n)
	for i := range items {
		items[i].Item = integrations.Related{Ref: issue(i + 1), Title: "item", State: integrations.StateOpen}
	}
	for i := 1; i < n; i++ {
		items[0].Children = append(items[0].Children, integrations.Related{Ref: issue(i + 1), Via: "sub-issue"})
		if layer := i / 50; layer > 0 {
			for j := range 3 {
				b := (layer-1)*50 + (i*7+j*13)%50 + 1
				items[i].BlockedBy = append(items[i].BlockedBy, integrations.Related{Ref: issue(b + 1), Via: "dependency"})
			}
		}
	}
	return items
}

// BenchmarkFromRelations500 is the floor: building the graph only.
func BenchmarkFromRelations500(b *testing.B) {
	items := project500()
	for b.Loop() {
		dag.FromRelations(items)
	}
}

// BenchmarkEvaluate500 builds and evaluates the graph.
func BenchmarkEvaluate500(b *testing.B) {
	items := project500()
	look := progress{issue(2): at("design")}.lookup
	for b.Loop() {
		dag.FromRelations(items).Evaluate(look)
	}
}
