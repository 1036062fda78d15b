package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWorkCommandOnlyForANodeLeftToWork(t *testing.T) {
	agent := &Node{ID: "design", Command: "create-design"}
	tests := []struct {
		name   string
		node   *Node
		status string
		want   string
	}{
		{"entered, not evaluated yet", agent, "", "create-design"},
		{"blocked on its artifact", agent, string(Block), "create-design"},
		{"waiting", agent, string(Wait), "create-design"},
		{"passed, waiting for its claim", agent, string(Pass), ""},
		{"skipped by declaration", agent, string(Skip), ""},
		{"a terminal node: the walk is finished", &Node{ID: "complete", Command: "finish-tasks", Terminal: true}, "", ""},
		{"a node that names no command", &Node{ID: "self-review"}, string(Block), ""},
		{"no node", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, WorkCommand(tt.node, tt.status))
		})
	}
}
