package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAllDecisionsListsEveryKindInAStableOrder(t *testing.T) {
	st := NewState("issue-1")
	st.Decisions["b-gate"] = &Decision{Node: "b-gate"}
	st.Decisions["a-gate"] = &Decision{Node: "a-gate"}
	st.Skips["design"] = &Decision{Node: "design"}
	st.OptIns["brainstorming"] = &Decision{Node: "brainstorming"}
	st.Forced = []*Decision{{Node: "z-forced"}, {Node: "y-forced"}}
	var nodes []string
	for _, d := range st.AllDecisions() {
		nodes = append(nodes, d.Node)
	}
	assert.Equal(t, []string{"a-gate", "b-gate", "design", "brainstorming", "z-forced", "y-forced"}, nodes)
}
