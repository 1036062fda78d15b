package runtime

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testEd25519Key() ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("receipts test key"))
	return ed25519.NewKeyFromSeed(seed[:])
}

// A critic round the loop recorded is a signed receipt in the state: check
// --recompute honours it; a receipt pasted into the record, unsigned or
// copied from another work item, is not.
func TestCriticRunReceiptsAreSignedAndVerified(t *testing.T) {
	h := newRig(t, nil)
	h.rt.Signer = NewEd25519Signer(testEd25519Key())
	ctx := context.Background()
	h.advance(h.say("select"))

	run := CriticRun{ID: "cr-20260301T100000Z-1a2b3c4d5e6f", Critic: "codex", Node: "write"}
	require.NoError(t, h.rt.RecordCriticRun(ctx, "issue-1", NewCriticRunReceipt(run, "p", "o")))
	late := CriticRun{ID: "cr-20260301T100500Z-0f9e8d7c6b5a", Critic: "codex", Node: "write", Unavailable: "timed out after 1s and was stopped"}
	require.NoError(t, h.rt.RecordCriticRun(ctx, "issue-1", NewCriticRunReceipt(late, "p", "")))

	st := h.state()
	require.Len(t, st.CriticRuns, 2)
	assert.NotEmpty(t, st.CriticRuns[0].Signature)
	view := Trusted(st, h.rt.Signer, true)
	assert.Equal(t, []CriticRun{run, late}, view.State.CriticRunsAt("write"))
	assert.Empty(t, view.State.CriticRunsAt("approve"), "runs are kept apart by node")

	forged := NewCriticRunReceipt(CriticRun{ID: "cr-made-up", Critic: "codex", Node: "write"}, "p", "o")
	forged.WorkItem = "issue-1"
	copied := st.CriticRuns[0]
	foreign := *copied
	foreign.WorkItem = "issue-2"
	st.CriticRuns = append(st.CriticRuns, forged, &foreign)
	view = Trusted(st, h.rt.Signer, true)
	assert.Equal(t, []CriticRun{run, late}, view.State.CriticRunsAt("write"), "an unsigned or foreign receipt never counts")
	assert.Equal(t, 2, view.Dropped)
	assert.Len(t, view.Findings["write"], 2)
}

func TestTestRunReceiptsKeepTheLatestRunOfANode(t *testing.T) {
	h := newRig(t, nil)
	h.rt.Signer = NewEd25519Signer(testEd25519Key())
	st := NewState("issue-1")
	fail := TestRun{Outcome: TestsFailed, Commit: "abc", Commands: []TestCommand{{Key: "test", Command: "go test ./...", Exit: "exit 1"}}}
	h.rt.recordReceipts(st, "build", []Result{OK("verify-tests", map[string]any{ReceiptKey: fail.Receipt()})})
	pass := TestRun{Outcome: TestsPassed, Commit: "def", Dirty: true, Evidence: "evidence/tests-build.md", EvidenceSHA256: "e",
		Commands: []TestCommand{{Key: "lint", Command: "golangci-lint run", Exit: "exit 0"}, {Key: "test", Command: "go test ./...", Exit: "exit 0"}}}
	evs := h.rt.recordReceipts(st, "build", []Result{{Status: Block, Data: map[string]any{ReceiptKey: pass.Receipt()}}})
	require.Len(t, evs, 1)
	assert.Equal(t, "tests.ran", evs[0].Name)

	b, err := st.Marshal()
	require.NoError(t, err)
	back, err := ParseState(b, "issue-1")
	require.NoError(t, err)
	got, ok := Trusted(back, h.rt.Signer, true).State.TestRunAt("build")
	require.True(t, ok)
	pass.Node, pass.At = "build", got.At
	assert.Equal(t, pass, got, "the latest run replaces the one before, and survives the portable record")

	back.TestRuns["build"].Outcome = TestsPassed
	back.TestRuns["build"].Data["commit"] = "forged"
	_, ok = Trusted(back, h.rt.Signer, true).State.TestRunAt("build")
	assert.False(t, ok, "an edited receipt no longer verifies")
}
