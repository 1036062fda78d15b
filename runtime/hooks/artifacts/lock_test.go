package artifacts

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

const draftDesign = "---\ntype: design   # kind\nstatus: draft\napprovedBy: []\noverrides:\n    - none\n---\n# Design\n\n## Architecture\r\ntrailing spaces   \n\n\n"

func feedback(outcome string, comments any) runtime.Result {
	return runtime.OK("classify-feedback", map[string]any{"outcome": outcome, "comments": comments})
}

func lockContext(t *testing.T, results ...runtime.Result) *runtime.HookContext {
	hc := hooktest.NewContext(t, &runtime.Node{ID: "design-approval"}, map[string]any{"artifacts": []any{"design.md", "testing-plan.md", "requirements.md|bugfix.md"}})
	hc.Results = results
	return hc
}

func TestLockArtifactsWritesTheApproval(t *testing.T) {
	comments := []integrations.Comment{{Author: "alice", Body: "approved"}, {Author: "@bob", Body: "lgtm but nit"}, {Author: "alice", Body: "again"}}
	hc := lockContext(t, runtime.OK("notify", nil), feedback("approved-with-comments", comments))
	hooktest.WriteArtifact(t, hc, "design.md", draftDesign)
	hooktest.WriteArtifact(t, hc, "bugfix.md", "# Bugfix\nno front matter\n")

	r, err := LockArtifacts(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
	assert.Equal(t, []string{"docs/specs/issue-1/design.md", "docs/specs/issue-1/bugfix.md"}, r.Data["locked"])
	assert.Equal(t, []string{"alice", "bob"}, r.Data["approvedBy"])

	assert.Equal(t,
		"---\ntype: design   # kind\nstatus: approved\napprovedBy: [alice, bob]\noverrides:\n    - none\n---\n# Design\n\n## Architecture\r\ntrailing spaces   \n\n\n",
		hooktest.ReadArtifact(t, hc, "design.md"), "only status and approvedBy change; the body is byte-for-byte")
	assert.Equal(t, "---\nstatus: approved\napprovedBy: [alice, bob]\n---\n# Bugfix\nno front matter\n", hooktest.ReadArtifact(t, hc, "bugfix.md"))

	// The lock satisfies validate-artifacts' locked check.
	hc.Node = &runtime.Node{ID: "design", Produces: []string{"design.md"}}
	hc.Params = map[string]any{"locked": true}
	v, err := ValidateArtifacts(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, v.Status, hooktest.Texts(v))
}

func TestLockArtifactsAcceptsDecodedComments(t *testing.T) {
	comments := []map[string]any{{"author": "carol"}, {"Author": "dave"}, {"author": map[string]any{"login": "erin"}}}
	hc := lockContext(t, feedback("approved", comments))
	hooktest.WriteArtifact(t, hc, "design.md", draftDesign)
	r, err := LockArtifacts(hc)
	require.NoError(t, err)
	assert.Equal(t, []string{"carol", "dave", "erin"}, r.Data["approvedBy"])

	hc = lockContext(t, feedback("approved", []any{map[string]any{"author": "frank"}, integrations.Comment{Author: "gina"}}))
	hooktest.WriteArtifact(t, hc, "design.md", draftDesign)
	r, err = LockArtifacts(hc)
	require.NoError(t, err)
	assert.Equal(t, []string{"frank", "gina"}, r.Data["approvedBy"])
}

func TestLockArtifactsSkipsWithoutAnApproval(t *testing.T) {
	tests := []struct {
		name    string
		results []runtime.Result
		want    string
	}{
		{"no decision", []runtime.Result{runtime.OK("notify", nil)}, "no gate decision in this chain; nothing to lock"},
		{"changes requested", []runtime.Result{feedback("changes-requested", []integrations.Comment{{Author: "alice"}})}, "changes were requested; nothing is locked"},
		{"the last decision counts", []runtime.Result{feedback("approved", nil), feedback("changes-requested", nil)}, "changes were requested; nothing is locked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := lockContext(t, tt.results...)
			hooktest.WriteArtifact(t, hc, "design.md", draftDesign)
			r, err := LockArtifacts(hc)
			require.NoError(t, err)
			assert.Equal(t, runtime.Skip, r.Status)
			assert.Equal(t, []string{tt.want}, hooktest.Texts(r))
			assert.Equal(t, draftDesign, hooktest.ReadArtifact(t, hc, "design.md"))
		})
	}
}

func TestLockArtifactsUnderCheckVerifiesAndNeverWrites(t *testing.T) {
	hc := lockContext(t, feedback("approved", []integrations.Comment{{Author: "alice"}}))
	hc.ReadOnly = true
	p := hooktest.WriteArtifact(t, hc, "design.md", draftDesign)
	hooktest.WriteArtifact(t, hc, "testing-plan.md", "---\nstatus: approved\n---\n")
	before, err := os.Stat(p)
	require.NoError(t, err)

	r, err := LockArtifacts(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Block, r.Status)
	assert.Equal(t, []string{"artifact is not locked — front-matter says status: draft, expected status: approved (docs/specs/issue-1/design.md)"}, hooktest.Texts(r))
	assert.Equal(t, draftDesign, hooktest.ReadArtifact(t, hc, "design.md"))
	after, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, before.ModTime(), after.ModTime())

	hooktest.WriteArtifact(t, hc, "design.md", "---\nstatus: approved\napprovedBy: [alice]\n---\n")
	r, err = LockArtifacts(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Equal(t, []string{"docs/specs/issue-1/design.md", "docs/specs/issue-1/testing-plan.md"}, r.Data["locked"])
}

func TestLockArtifactsRefusesWhatItCannotLock(t *testing.T) {
	hc := lockContext(t, feedback("approved", []integrations.Comment{{Author: "alice"}}))
	broken := "---\nstatus: [draft\n---\nbody\n"
	hooktest.WriteArtifact(t, hc, "design.md", broken)
	r, err := LockArtifacts(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Block, r.Status)
	require.Len(t, r.Messages, 1)
	assert.Contains(t, r.Messages[0].Text, "artifact could not be locked: the front matter is not a closed YAML mapping")
	assert.Equal(t, broken, hooktest.ReadArtifact(t, hc, "design.md"))

	hc = lockContext(t, feedback("approved", nil))
	hooktest.WriteArtifact(t, hc, "design.md", draftDesign)
	r, err = LockArtifacts(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Block, r.Status)
	assert.Equal(t, []string{"the classify-feedback decision names no approver, so the artifact cannot be locked (docs/specs/issue-1/design.md)"}, hooktest.Texts(r))
	assert.Equal(t, draftDesign, hooktest.ReadArtifact(t, hc, "design.md"))
}

func TestLockArtifactsIsIdempotentAndSkipsWhenNothingIsPresent(t *testing.T) {
	hc := lockContext(t, feedback("approved", []integrations.Comment{{Author: "alice"}}))
	r, err := LockArtifacts(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Skip, r.Status)
	assert.Equal(t, []string{"no artifact to lock"}, hooktest.Texts(r))

	hooktest.WriteArtifact(t, hc, "design.md", draftDesign)
	_, err = LockArtifacts(hc)
	require.NoError(t, err)
	once := hooktest.ReadArtifact(t, hc, "design.md")
	_, err = LockArtifacts(hc)
	require.NoError(t, err)
	assert.Equal(t, once, hooktest.ReadArtifact(t, hc, "design.md"))
}

func TestLockArtifactsRefusesTraversal(t *testing.T) {
	hc := lockContext(t, feedback("approved", []integrations.Comment{{Author: "alice"}}))
	hc.Params = map[string]any{"artifacts": []any{"../../../outside.md"}}
	outside := hooktest.WriteArtifact(t, hc, "../../../outside.md", "---\nstatus: draft\n---\n")
	r, err := LockArtifacts(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Block, r.Status)
	assert.False(t, r.Retriable)
	b, err := os.ReadFile(outside)
	require.NoError(t, err)
	assert.Equal(t, "---\nstatus: draft\n---\n", string(b))
}

// The lock ties the approval to the bytes it approved: their hash goes into
// the gate's decision, which the engine signs.
func TestLockArtifactsRecordsTheLockedHashInTheDecision(t *testing.T) {
	dec := &runtime.Decision{Kind: runtime.KindGate, Outcome: "approved"}
	res := feedback("approved", []integrations.Comment{{Author: "alice"}})
	res.Data["decision"] = dec
	hc := lockContext(t, res)
	hooktest.WriteArtifact(t, hc, "design.md", "# Design\n")
	r, err := LockArtifacts(hc)
	require.NoError(t, err)
	require.Equal(t, runtime.Pass, r.Status)
	locked, err := os.ReadFile(filepath.Join(hc.WorkItem.SpecDir, "design.md"))
	require.NoError(t, err)
	assert.Equal(t, handoff.HashLF(locked), LockedHashOf(dec, "design.md"))
}
