package runtime

import (
	"context"
	"crypto/ed25519"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// forgedComplete is a hand-written record claiming the walk is complete,
// with skips declared by an account that is not authorized.
func forgedComplete() *State {
	st := NewState("issue-1")
	st.Loop, st.CurrentNode = "walk", "complete"
	st.Decisions["select"] = &Decision{WorkItem: "issue-1", Loop: "walk", Node: "select", Kind: KindSelection, Outcome: "selected", Via: "reply", By: "@mallory"}
	for _, n := range []string{"write", "approve", "build"} {
		st.Skips[n] = &Decision{WorkItem: "issue-1", Loop: "walk", Node: n, Kind: KindSkip, Via: "selection", By: "@mallory"}
	}
	for _, n := range []string{"select", "write", "approve", "build"} {
		st.Record(n).Outcome, st.Record(n).ExitedAt, st.Record(n).EnteredAt = "skipped", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"
	}
	st.Record("select").Outcome = "selected"
	return st
}

func TestForgedRecordDriftsWithAndWithoutKeys(t *testing.T) {
	pub := testKey("host").Public().(ed25519.PublicKey)
	signers := map[string]*Signer{
		"no key at all":     NewSigner(nil),
		"public key only":   NewVerifier(pub),
		"legacy hmac key":   NewSigner([]byte("k")),
		"host key and hmac": NewEd25519Signer(testKey("host")).WithHMAC([]byte("k")),
		"an attacker's key": NewVerifier(testKey("attacker").Public().(ed25519.PublicKey)),
	}
	for name, s := range signers {
		t.Run(name, func(t *testing.T) {
			h := newRig(t, nil)
			h.rt.Signer = s
			rep := h.rt.Status(context.Background(), "issue-1", forgedComplete(), true)
			assert.False(t, rep.OK)
			assert.Equal(t, "select", rep.CurrentNode)
			require.NotEmpty(t, rep.Drift)
			assert.Contains(t, rep.Drift[0], "the record stands at complete, but recomputation stops at select (wait")
			assert.Contains(t, rep.Drift, `the record says select exited "selected", but recomputation finds it wait: no authorized feedback yet`)
			for _, mode := range []string{"unmet", "block"} {
				assert.True(t, rep.Fails(h.rt.Graph, mode), "drift fails under --fail-on %s", mode)
			}
			assert.False(t, rep.Blocked(h.rt.Graph), "nothing blocks: the stop hook does not hold the agent for drift")
		})
	}
}

func TestAnHonestRecordHasNoDrift(t *testing.T) {
	h := newRig(t, nil)
	h.rt.Signer = NewEd25519Signer(testKey("host"))
	h.advance(h.say("select"))
	h.write("spec.md", "# spec\n")
	h.advance(nil)
	assert.Equal(t, "approve", h.state().CurrentNode)
	rep := h.status(true)
	assert.Empty(t, rep.Drift)
	assert.False(t, rep.Fails(h.rt.Graph, "block"), "a wait for a human is no failure under --fail-on block")

	// A verified force explains a pointer ahead of the recomputation.
	_, err := h.rt.Force(context.Background(), "issue-1", "complete", "release freeze", "@ops")
	require.NoError(t, err)
	rep = h.status(true)
	assert.Empty(t, rep.Drift, "an honoured force is a legitimate pointer")
	assert.Equal(t, "approve", rep.CurrentNode)

	// The same force without a signature is not.
	st := h.state()
	st.Forced[0].Signature = ""
	h.mem.Put("issue-1", st)
	rep = h.status(true)
	require.NotEmpty(t, rep.Drift)
	assert.Contains(t, rep.Drift[0], "the record stands at complete")

	// Without --recompute there is no drift: the stored record is the report.
	assert.Empty(t, h.status(false).Drift)
}

func TestDriftNamesAnUnknownPointer(t *testing.T) {
	h := newRig(t, nil)
	st := NewState("issue-1")
	st.CurrentNode = "nowhere"
	rep := h.rt.Status(context.Background(), "issue-1", st, true)
	assert.Equal(t, []string{`the record's pointer "nowhere" names no node of walk`}, rep.Drift)
}
