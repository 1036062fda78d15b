package artifacts

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

// What a later node is declared to fill is read from the graph: after
// design-approval, verification fills testing-plan.md's Verification
// results and ticks its boxes; nothing after requirements-approval fills
// requirements.md.
func TestLaterFillsAreTheLaterNodesDeclarations(t *testing.T) {
	g := hooktest.CompileShipped(t, "pdlc-work-item-loop")
	gate := func(id string) *runtime.Node { n, ok := g.Node(id); require.True(t, ok); return n }
	sections, ticks := laterFills(g, gate("design-approval"), "testing-plan.md")
	assert.Equal(t, []string{"Verification results"}, sections)
	assert.True(t, ticks)
	sections, ticks = laterFills(g, gate("design-approval"), "design.md")
	assert.Empty(t, sections)
	assert.False(t, ticks)
	sections, ticks = laterFills(g, gate("requirements-approval"), "requirements.md")
	assert.Empty(t, sections)
	assert.False(t, ticks)

	plan := "---\nstatus: approved\n---\n# Plan\n\n## Test matrix\n\n| a |\n\n## Evidence plan\n\n- [ ] run\n\n## Verification results\n\npending\n"
	filled := "---\nstatus: approved\n---\n# Plan\n\n## Test matrix\n\n| a |\n\n## Evidence plan\n\n- [x] run\n\n## Verification results\n\n| go test | pass |\n"
	changed := "---\nstatus: approved\nriskTier: 1\n---\n# Plan\n\n## Test matrix\n\n| a |\n\n## Evidence plan\n\n- [ ] run\n\n## Verification results\n\npending\n"
	n := gate("design-approval")
	assert.Equal(t, boundHash(g, n, "testing-plan.md", []byte(plan)), boundHash(g, n, "testing-plan.md", []byte(filled)), "filling what verification fills keeps the approved form")
	assert.NotEqual(t, boundHash(g, n, "testing-plan.md", []byte(plan)), boundHash(g, n, "testing-plan.md", []byte(changed)), "the front matter is bound")
	assert.NotEqual(t, boundHash(g, n, "design.md", []byte(plan)), boundHash(g, n, "design.md", []byte(filled)), "design.md is bound to its bytes")
}

// BindApproval records what a gate locks as it stands, and refuses an
// artifact that does not carry the lock.
func TestBindApprovalBindsOnlyLockedArtifacts(t *testing.T) {
	g := hooktest.CompileShipped(t, "pdlc-work-item-loop")
	gate, _ := g.Node("requirements-approval")
	dir := t.TempDir()
	write := func(text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "requirements.md"), []byte(text), 0o644))
	}
	write("# Requirements\n\nR1.\n")
	d := &runtime.Decision{Node: gate.ID, Kind: runtime.KindGate, Outcome: runtime.OutcomeApproved}
	_, err := BindApproval(g, gate, dir, d)
	assert.ErrorContains(t, err, "requirements.md: artifact is not locked")
	assert.Nil(t, d.Data)

	write("---\nstatus: approved\n---\n# Requirements\n\nR1.\n")
	names, err := BindApproval(g, gate, dir, d)
	require.NoError(t, err)
	assert.Equal(t, []string{"requirements.md"}, names)
	assert.NotEmpty(t, LockedHashOf(d, "requirements.md"))

	human, _ := g.Node("human-approval")
	other := &runtime.Decision{Node: human.ID}
	names, err = BindApproval(g, human, dir, other)
	require.NoError(t, err)
	assert.Empty(t, names, "a gate that locks nothing binds nothing")
	assert.Nil(t, other.Data)
}
