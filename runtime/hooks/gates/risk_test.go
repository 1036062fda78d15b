package gates

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

const gateLockYAML = `
name: test-loop
nodes:
  - id: requirements-approval
    actor: human
    exit:
      - classify-feedback
      - hook: lock-artifacts
        with: {artifacts: [requirements.md|bugfix.md]}
  - id: design-approval
    actor: human
    exit:
      - classify-feedback
      - hook: lock-artifacts
        with: {artifacts: [design.md, testing-plan.md]}
  - {id: human-approval, actor: human, terminal: true}
edges:
  - {from: requirements-approval, to: design-approval, on: approved}
  - {from: design-approval, to: human-approval, on: approved}
`

func gateLockGraph(t *testing.T) *runtime.Graph {
	t.Helper()
	g := hooktest.Compile(t, "test-loop", []byte(gateLockYAML))
	return g
}

func TestRiskTier(t *testing.T) {
	const lockedReq = "---\nriskTier: 1\nstatus: approved\n---\n"
	approvedBy := func(via string) map[string]*runtime.Decision {
		return map[string]*runtime.Decision{"requirements-approval": {Kind: runtime.KindGate, Outcome: "approved", Via: via, By: "@alice",
			Data: map[string]any{"lockedHashes": map[string]any{"requirements.md": handoff.HashLF([]byte(lockedReq))}}}}
	}
	tests := []struct {
		name      string
		files     map[string]string
		decisions map[string]*runtime.Decision
		want      int
	}{
		{"nothing declared", nil, nil, 3},
		{"declared higher stands", map[string]string{"requirements.md": "---\nriskTier: 5\n---\n"}, nil, 5},
		{"declared lower, unlocked, is not honoured", map[string]string{"requirements.md": "---\nriskTier: 1\nstatus: draft\n---\n"}, nil, 3},
		{"declared lower, approved by front matter only", map[string]string{"requirements.md": "---\nriskTier: 1\nstatus: approved\n---\n"}, nil, 3},
		{"declared lower, locked by a human gate", map[string]string{"requirements.md": lockedReq}, approvedBy("comment"), 1},
		{"tier lowered after the approval is not honoured", map[string]string{"requirements.md": "---\nriskTier: 1\nstatus: approved\n---\nedited after approval\n"}, approvedBy("comment"), 3},
		{"an autonomous decision does not lock", map[string]string{"requirements.md": "---\nriskTier: 1\nstatus: approved\n---\n"}, approvedBy("risk-tier"), 3},
		{"changes requested does not lock", map[string]string{"requirements.md": "---\nriskTier: 1\nstatus: approved\n---\n"},
			map[string]*runtime.Decision{"requirements-approval": {Outcome: "changes-requested", Via: "comment"}}, 3},
		{"bugfix.md is read when requirements.md is absent", map[string]string{"bugfix.md": "---\nriskTier: 4\n---\n"}, nil, 4},
		{"design.md declares last", map[string]string{"design.md": "---\nriskTier: 5\n---\n"}, nil, 5},
		{"first existing wins", map[string]string{"requirements.md": "---\nriskTier: 4\n---\n", "design.md": "---\nriskTier: 5\n---\n"}, nil, 4},
		{"junk tier is ignored", map[string]string{"requirements.md": "---\nriskTier: high\n---\n"}, nil, 3},
		{"out of range tier is ignored", map[string]string{"requirements.md": "---\nriskTier: 9\n---\n"}, nil, 3},
		{"schema path raises", map[string]string{"tasks.md": "- [ ] edit `store/schema.sql`\n"}, nil, 4},
		{"workflow path raises", map[string]string{"design.md": "We touch .github/workflows/ci.yml."}, nil, 4},
		{"the-loop folder raises", map[string]string{"tasks.md": "update .the-loop/harness-config.yaml"}, nil, 4},
		{"auth folder raises", map[string]string{"design.md": "see internal/auth/token.go"}, nil, 4},
		{"secret file raises", map[string]string{"tasks.md": "rotate deploy/secrets.yaml"}, nil, 4},
		{"credential file raises", map[string]string{"tasks.md": "read ~/.aws/credentials."}, nil, 4},
		{"prose mention does not raise", map[string]string{"design.md": "The schema of the table and the auth flow stay as they are; no secret changes."}, nil, 3},
		{"a lower declared tier cannot undo a sensitive path", map[string]string{"requirements.md": "---\nriskTier: 2\n---\n", "tasks.md": "edit api/schema.json"}, nil, 4},
		{"a higher declared tier beats the raise", map[string]string{"requirements.md": "---\nriskTier: 5\n---\n", "tasks.md": "edit api/schema.json"}, nil, 5},
		{"unreadable design is treated as sensitive", map[string]string{"design.md": "\xff\xfe not utf-8"}, nil, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc, _ := hooktest.GateContext(t, nil, nil)
			hc.Graph = gateLockGraph(t)
			for name, text := range tt.files {
				hooktest.WriteArtifact(t, hc, name, text)
			}
			if tt.decisions != nil {
				hc.State.Decisions = tt.decisions
			}
			assert.Equal(t, tt.want, RiskTier(hc))
		})
	}
}
