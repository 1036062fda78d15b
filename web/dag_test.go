package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime/dag"
	"github.com/the-loop/the-loop/service"
)

func ghRef(n int) integrations.Ref {
	return integrations.Ref{System: "github", Owner: "octo", Repo: "widgets", Number: n}
}

// planOf is a parent (#1) with two children; #3 waits for #2.
func planOf(title string) service.PlanResult {
	p := dag.Plan{Home: ghRef(1),
		Items: []dag.Status{
			{Node: dag.Node{Ref: ghRef(1), Title: "Parent " + title}, Verdict: dag.VerdictWorking, Progress: dag.Progress{Armed: true, Node: "implementation", Started: true}, Children: []integrations.Ref{ghRef(2), ghRef(3)}},
			{Node: dag.Node{Ref: ghRef(2), Title: "Schema " + title}, Verdict: dag.VerdictWorking, Progress: dag.Progress{Armed: true, Node: "design", Started: true}, Parents: []integrations.Ref{ghRef(1)}},
			{Node: dag.Node{Ref: ghRef(3), Title: "API"}, Verdict: dag.VerdictHeld, Hold: true, Parents: []integrations.Ref{ghRef(1)},
				Blockers: []dag.Blocker{{Ref: ghRef(2), At: "at design", Via: "dependency"}}},
		},
		Edges: []dag.Edge{{From: ghRef(2), To: ghRef(3), Kind: dag.KindBlocks, Via: "dependency"}, {From: ghRef(1), To: ghRef(2), Kind: dag.KindParent}, {From: ghRef(1), To: ghRef(3), Kind: dag.KindParent}},
	}
	return service.PlanResult{Plan: p, Root: "github:octo/widgets#1"}
}

// TestDAGPage: the plan page draws every item with its state and every
// edge, lists what blocks each, escapes titles, and passes its item to the
// core; without an item it says how to name one.
func TestDAGPage(t *testing.T) {
	b := &fakeBackend{plan: planOf(hostile)}
	h := newTestHandler(t, b)
	c := signedInCookie(t, h)
	w := get(t, h, "/ui/dag?item=github%3Aocto%2Fwidgets%231", c)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	body := w.Body.String()
	assert.Equal(t, service.PlanRequest{Item: "github:octo/widgets#1"}, b.gotPlan)
	for _, want := range []string{
		`<g class="node working" data-node="#1" data-state="working · at implementation"`,
		`<g class="node blocked" data-node="#3" data-state="held"`,
		`<tr data-ref="#3">`,
		`<a href="https://github.com/octo/widgets/issues/2" rel="noreferrer">#2</a> (at design; dependency)`,
		`Parent &lt;script&gt;`,
	} {
		assert.Contains(t, body, want)
	}
	assert.Equal(t, 3, strings.Count(body, `<path class="edge`), "every edge is drawn")
	assert.NotContains(t, body, "<script>")

	w = get(t, h, "/ui/dag", c)
	assert.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), "name the plan&#39;s item")

	empty := &fakeBackend{plan: service.PlanResult{Root: "github:octo/widgets#9"}}
	h = newTestHandler(t, empty)
	w = get(t, h, "/ui/dag?item=%239", signedInCookie(t, h))
	assert.Equal(t, http.StatusOK, w.Code, "a plan with nothing in it renders")
}
