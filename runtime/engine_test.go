package runtime

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
)

const walkGraph = `
version: 1
name: walk
start: select
nodes:
  - id: select
    actor: human
    required: true
    exit: [gate]
  - id: intake
    requiresHandoff: true
    exit: [ok]
  - id: write
    skippable: true
    produces: spec.md
    entry: [note-entry]
    exit:
      - hook: needs-file
        with: {file: spec.md}
  - id: approve
    actor: human
    skippable: true
    exit: [gate]
  - id: build
    skippable: true
    produces: spec.md
    exit:
      - hook: needs-file
        with: {file: spec.md, planned: true}
  - id: complete
    terminal: true
  - id: escalated
    actor: human
    terminal: true
    entry: [note-entry]
edges:
  - {from: select, to: intake, on: selected}
  - {from: intake, to: write, on: pass}
  - {from: intake, to: write, on: skipped}
  - {from: write, to: approve, on: pass}
  - {from: write, to: approve, on: skipped}
  - {from: approve, to: build, on: approved}
  - {from: approve, to: write, on: changes-requested}
  - {from: approve, to: build, on: skipped}
  - {from: build, to: complete, on: pass}
  - {from: build, to: complete, on: skipped}
`

type rig struct {
	t       *testing.T
	rt      *Runtime
	mem     *MemoryPersister
	entries []string
	// pendingSeen is the saved EntryPending each note-entry run read.
	pendingSeen []string
	// posted are the comments post-request posted.
	posted []integrations.Comment
}

func newRig(t *testing.T, key []byte) *rig { return newRigOf(t, key, walkGraph) }

// newRigOf is newRig over another graph (the walk's hooks, plus
// post-request, an entry hook that posts a comment as a review request does).
func newRigOf(t *testing.T, key []byte, graph string) *rig {
	t.Helper()
	h := &rig{t: t, mem: NewMemoryPersister()}
	repo := t.TempDir()
	hooks := map[string]HookFunc{
		"ok": passHook(nil),
		"post-request": func(hc *HookContext) (Result, error) {
			id := lastCommentID.Add(1)
			c := integrations.Comment{ID: id, Author: "the-loop-bot", Body: "review request", URL: fmt.Sprintf("https://example.test/c#%d", id)}
			h.posted = append(h.posted, c)
			return OK("", map[string]any{PostedKey: c}), nil
		},
		"note-entry": func(hc *HookContext) (Result, error) {
			st, _, _ := h.mem.Load(hc.Context, hc.WorkItem.ID)
			h.entries = append(h.entries, hc.NodeID()+"@"+st.CurrentNode)
			h.pendingSeen = append(h.pendingSeen, st.EntryPending)
			return OK("", nil), nil
		},
		"needs-file": func(hc *HookContext) (Result, error) {
			name := hc.Param("file")
			if _, err := os.Stat(filepath.Join(hc.WorkItem.SpecDir, name)); err != nil {
				if hc.BoolParam("planned") && hc.SkippedArtifacts[name] {
					return Skipped("", "absence is planned"), nil
				}
				return Blocked("", Errorf(hc.RelSpecDir+"/"+name, "required artifact is missing")), nil
			}
			return OK("", nil), nil
		},
		"gate": func(hc *HookContext) (Result, error) {
			if d, ok := hc.State.Decisions[hc.NodeID()]; ok {
				return OK("", map[string]any{"outcome": d.Outcome}), nil
			}
			if hc.Event != nil {
				for _, c := range hc.Event.Comments {
					outcome := map[string]string{"approve": "approved", "select": "selected", "change": "changes-requested"}[c.Body]
					if outcome != "" && c.Author == "owner" {
						return OK("", map[string]any{"outcome": outcome, "decision": &Decision{Outcome: outcome, By: "@owner", Via: "comment", CommentURL: c.URL}}), nil
					}
				}
			}
			return Waiting("", "no authorized feedback yet"), nil
		},
	}
	g, err := Compile("walk", []byte(graph), testRegistry(t, hooks))
	require.NoError(t, err)
	h.rt = &Runtime{Graph: g, Persist: h.mem, Signer: NewSigner(key), Repo: repo, SpecRoot: "docs/specs"}
	require.NoError(t, os.MkdirAll(h.rt.SpecDir("issue-1"), 0o755))
	return h
}

// lastCommentID numbers the comments the rigs say, as a ticket system
// numbers its comments.
var lastCommentID atomic.Int64

func (h *rig) say(body string) *Event {
	id := lastCommentID.Add(1)
	return &Event{Comments: []integrations.Comment{{ID: id, Author: "owner", Body: body, URL: fmt.Sprintf("https://example.test/c#%d", id), CreatedAt: time.Now().Add(2 * time.Second)}}}
}

func (h *rig) advance(ev *Event) NodeReport {
	rep, err := h.rt.Advance(context.Background(), "issue-1", ev)
	require.NoError(h.t, err)
	return rep
}

func (h *rig) state() *State {
	st, _, err := h.mem.Load(context.Background(), "issue-1")
	require.NoError(h.t, err)
	return st
}

func (h *rig) write(name, body string) {
	require.NoError(h.t, os.WriteFile(filepath.Join(h.rt.SpecDir("issue-1"), name), []byte(body), 0o644))
}

func (h *rig) status(recompute bool) Report {
	return h.rt.Status(context.Background(), "issue-1", h.state(), recompute)
}

func node(rep Report, id string) NodeReport {
	for _, n := range rep.Nodes {
		if n.Node == id {
			return n
		}
	}
	return NodeReport{}
}

func TestStartIsIdempotentAndPersistsBeforeEntry(t *testing.T) {
	h := newRig(t, nil)
	ctx := context.Background()
	res, err := h.rt.Start(ctx, "issue-1", StartOptions{})
	require.NoError(t, err)
	assert.True(t, res.Started)
	assert.Equal(t, "select", res.Node)
	again, err := h.rt.Start(ctx, "issue-1", StartOptions{})
	require.NoError(t, err)
	assert.False(t, again.Started)
	assert.Equal(t, "select", again.Node)

	h.advance(h.say("select"))
	assert.Equal(t, "write", h.state().CurrentNode)
	assert.Contains(t, h.entries, "write@write", "the entry chain must see the saved pointer")
	assert.Equal(t, "skipped", h.state().Nodes["intake"].Outcome, "a no-handoff item routes around requiresHandoff nodes")
}

func TestSameFailureTwiceEscalates(t *testing.T) {
	h := newRig(t, nil)
	h.advance(h.say("select"))
	first := h.advance(nil)
	assert.Equal(t, "block", first.Status)
	assert.Equal(t, 1, first.Attempts)
	h.write("notes.md", "an attempt that changed something but not the failing check")
	second := h.advance(nil)
	assert.Equal(t, StatusEscalated, second.Status)
	st := h.state()
	assert.Equal(t, "escalated", st.CurrentNode, "escalation parks the item at escalated")
	require.NotNil(t, st.Escalation)
	assert.Equal(t, "write", st.Escalation.From)
	assert.Contains(t, st.Escalation.Reason, "same check twice")
	require.NotNil(t, st.Parked)
	assert.Contains(t, h.entries, "escalated@escalated", "the escalated node's entry chain notifies")
}

func TestMaxAttemptsEscalates(t *testing.T) {
	h := newRig(t, nil)
	h.advance(h.say("select"))
	h.rt.Graph.byID["write"].MaxAttempts = 2
	defer func() { h.rt.Graph.byID["write"].MaxAttempts = 3 }()
	assert.Equal(t, "block", h.advance(nil).Status)
	st := h.state()
	st.Nodes["write"].LastBlock = "a different finding"
	h.mem.Put("issue-1", st)
	rep := h.advance(nil)
	assert.Equal(t, StatusEscalated, rep.Status)
	assert.Equal(t, 2, rep.Attempts)
	assert.Contains(t, h.state().Escalation.Reason, "maxAttempts 2")
}

func TestGateDecisionIsSignedAndHonouredByRecompute(t *testing.T) {
	key := []byte("operator-key")
	h := newRig(t, key)
	h.advance(h.say("select"))
	h.write("spec.md", "# spec\n")
	assert.Equal(t, "pass", h.advance(nil).Status)
	assert.Equal(t, "approve", h.state().CurrentNode)
	assert.Equal(t, "wait", h.advance(nil).Status, "no comment: the gate waits")
	rep := h.advance(h.say("approve"))
	assert.Equal(t, "pass", rep.Status)
	assert.Equal(t, "approved", rep.Outcome)
	st := h.state()
	d := st.Decisions["approve"]
	require.NotNil(t, d)
	assert.True(t, strings.HasPrefix(d.Signature, "hmac-sha256:"))
	assert.Equal(t, "@owner", d.By)

	ok := h.status(true)
	assert.Equal(t, "pass", node(ok, "approve").Status)
	assert.Equal(t, "complete", ok.CurrentNode)
	assert.True(t, ok.OK)

	// A hand-edited outcome no longer verifies: it is ignored and reported by name.
	st.Decisions["approve"].Outcome = "approved-with-comments"
	h.mem.Put("issue-1", st)
	forged := h.status(true)
	assert.Equal(t, "wait", node(forged, "approve").Status)
	assert.Contains(t, node(forged, "approve").Messages, "decision for approve does not match its HMAC signature (edited, moved or forged) — ignored")
	assert.False(t, forged.OK)
}

func TestUnsignedDecisionsWithoutAKeyAreHonouredAndReported(t *testing.T) {
	h := newRig(t, nil)
	st := NewState("issue-1")
	st.Decisions["select"] = &Decision{Node: "select", Kind: KindSelection, Outcome: "selected", By: "@owner"}
	h.mem.Put("issue-1", st)
	rep := h.status(false)
	assert.Equal(t, "pass", node(rep, "select").Status)
	assert.Contains(t, node(rep, "select").Messages, "decision for select is unsigned (no signing key is configured)")

	strict := h.status(true)
	assert.Equal(t, "wait", node(strict, "select").Status, "under --recompute an unverified decision is never honoured, key or no key")
	assert.Contains(t, node(strict, "select").Messages,
		"decision for select is not verified (no signing key or public key is configured), and --recompute honours only verified decisions — ignored")
}

func TestHandWrittenStateCannotMakeAnItemOK(t *testing.T) {
	h := newRig(t, []byte("k"))
	st := NewState("issue-1")
	st.CurrentNode = "complete"
	st.Decisions["select"] = &Decision{Node: "select", Kind: KindSelection, Outcome: "selected", By: "@owner", Signature: "hmac-sha256:00"}
	for _, n := range []string{"write", "approve", "build"} {
		st.Skips[n] = &Decision{Node: n, Kind: KindSkip, Via: "selection", By: "@owner"}
	}
	h.mem.Put("issue-1", st)
	rep := h.status(true)
	assert.False(t, rep.OK)
	assert.Equal(t, "select", rep.CurrentNode)
	assert.Equal(t, "block", node(rep, "write").Status, "a forged skip is not honoured")
	assert.Contains(t, node(rep, "write").Messages, "skip declaration for write is not signed — ignored")
}

func TestForceMovesThePointerAndForgesNoVerdict(t *testing.T) {
	h := newRig(t, []byte("k"))
	h.advance(h.say("select"))
	res, err := h.rt.Force(context.Background(), "issue-1", "complete", "demo day", "@ops")
	require.NoError(t, err)
	assert.Equal(t, "write", res.FromNode)
	assert.Contains(t, strings.Join(res.Cautions, "\n"), "write → complete is not a declared edge")
	st := h.state()
	assert.Equal(t, "complete", st.CurrentNode)
	assert.True(t, st.Nodes["complete"].Forced)
	require.Len(t, st.Forced, 1)
	assert.NotEmpty(t, st.Forced[0].Signature)
	assert.Empty(t, st.Nodes["write"].Outcome, "the bypassed node's outcome is untouched")
	assert.NotContains(t, h.entries, "complete@complete", "force runs no entry chain")

	stored := h.status(false)
	assert.True(t, node(stored, "complete").Forced)
	assert.False(t, stored.OK)
	re := h.status(true)
	assert.Equal(t, "write", re.CurrentNode, "recompute still reports the bypassed gate")
	assert.False(t, re.OK)

	_, err = h.rt.Force(context.Background(), "issue-1", "nowhere", "x", "")
	assert.ErrorContains(t, err, `unknown node "nowhere"`)
	_, err = h.rt.Force(context.Background(), "issue-1", "write", "  ", "")
	assert.ErrorIs(t, err, ErrReasonRequired)
}

func TestDeclareSkips(t *testing.T) {
	h := newRig(t, []byte("k"))
	h.advance(h.say("select"))
	res, err := h.rt.DeclareSkips(context.Background(), "issue-1", []string{"write", "build", "select", "nowhere"}, "docs only", "@ops")
	require.NoError(t, err)
	assert.Equal(t, []string{"build"}, res.Declared)
	whys := map[string]string{}
	for _, r := range res.Rejected {
		whys[r.Token] = r.Why
	}
	assert.Contains(t, whys["write"], "already entered or behind the pointer")
	assert.Contains(t, whys["select"], "not a skippable node")
	assert.Contains(t, whys["nowhere"], "not a skippable node")
	rep := h.status(true)
	b := node(rep, "build")
	assert.Equal(t, "skip", b.Status)
	assert.Equal(t, `skipped by declaration — via cli, token "build", by @ops, reason: docs only`, b.Messages[0])
	_, err = h.rt.DeclareSkips(context.Background(), "issue-1", []string{"build"}, "", "")
	assert.ErrorIs(t, err, ErrReasonRequired)
}

func TestPlannedAbsenceExcusesOnlyTheAuthoringNode(t *testing.T) {
	h := newRig(t, nil)
	g := h.rt.Graph
	st := NewState("issue-1")
	st.Skips["build"] = &Decision{Node: "build", Via: "cli"}
	set := DeclaredSkips(g, st)
	assert.False(t, set.Artifacts["spec.md"], "skipping a later re-gating node must not excuse the author")
	st.Skips["write"] = &Decision{Node: "write", Via: "cli"}
	set = DeclaredSkips(g, st)
	assert.True(t, set.Artifacts["spec.md"])
}

func TestCompleteClaims(t *testing.T) {
	h := newRig(t, nil)
	ctx := context.Background()
	env, err := h.rt.Complete(ctx, "issue-1", "", "agent")
	require.NoError(t, err)
	assert.Equal(t, "not-started", env.Reason)
	h.advance(h.say("select"))
	h.write("spec.md", "x")
	tests := []struct{ node, status, reason string }{
		{"select", StatusNoop, "already-past"},
		{"build", StatusRefused, "not-current"},
		{"nowhere", StatusRefused, "unknown-node"},
	}
	for _, tt := range tests {
		env, err := h.rt.Complete(ctx, "issue-1", tt.node, "agent")
		require.NoError(t, err)
		assert.Equal(t, tt.status, env.Status, tt.node)
		assert.Equal(t, tt.reason, env.Reason, tt.node)
		assert.False(t, env.Moved)
	}
	env, err = h.rt.Complete(ctx, "issue-1", "write", "agent")
	require.NoError(t, err)
	assert.Equal(t, "pass", env.Status)
	assert.True(t, env.Moved)
	assert.Equal(t, "approve", env.CurrentNode)
	env, err = h.rt.Complete(ctx, "issue-1", "approve", "agent")
	require.NoError(t, err)
	assert.Equal(t, "human-gate", env.Reason, "an agent can never complete a human gate")
	assert.Equal(t, "approve", h.state().CurrentNode)
}

func TestChangesRequestedLoopsBackAndAsksAgain(t *testing.T) {
	h := newRig(t, nil)
	h.advance(h.say("select"))
	h.write("spec.md", "x")
	h.advance(nil)
	rep := h.advance(h.say("change"))
	assert.Equal(t, "changes-requested", rep.Outcome)
	assert.Equal(t, "write", h.state().CurrentNode)
	h.advance(nil)
	assert.Equal(t, "approve", h.state().CurrentNode)
	_, has := h.state().Decisions["approve"]
	assert.False(t, has, "the earlier visit's decision is archived so the gate asks again")
	assert.Equal(t, "wait", h.advance(nil).Status)
}

func TestIDsNeverBecomePathsOutsideTheRepo(t *testing.T) {
	for _, id := range []string{"", "../x", "a/b", "/etc", ".hidden", `a\b`} {
		assert.Error(t, ValidateID(id), id)
	}
	assert.NoError(t, ValidateID("issue-109"))
}

// A genuinely signed decision is bound to its item, node and kind: pasting it
// elsewhere proves nothing.
func TestSignedDecisionsCannotBeMovedAround(t *testing.T) {
	key := []byte("k")
	h := newRig(t, key)
	_, err := h.rt.DeclareSkips(context.Background(), "issue-1", []string{"build"}, "docs only", "@ops")
	require.NoError(t, err)
	real := h.state().Skips["build"]
	require.NotNil(t, real)

	st := h.state()
	moved := *real
	st.Skips["write"] = &moved // a signed skip for build, filed under write
	asApproval := *real
	st.Decisions["approve"] = &asApproval // a signed skip filed as an approval
	h.mem.Put("issue-1", st)
	rep := h.status(true)
	assert.Contains(t, node(rep, "write").Messages, "skip declaration for write was recorded for build — ignored")
	assert.Contains(t, node(rep, "approve").Messages, "decision for approve was recorded for build — ignored")

	other := NewState("issue-2")
	copied := *real
	other.Skips["build"] = &copied
	view := Trusted(other, h.rt.Signer, false)
	assert.NotContains(t, view.State.Skips, "build", "a decision signed for issue-1 does not count for issue-2")
	assert.Contains(t, view.Findings["build"], "skip declaration for build was recorded for another work item — ignored")
}

// A visit an earlier release entered (no floor) reads by time: a comment
// written before it, or with no date at all, never answers it.
func TestALegacyVisitReadsOnlyCommentsOfItsTime(t *testing.T) {
	h := newRig(t, nil)
	h.advance(h.say("select"))
	old := &Event{Comments: []integrations.Comment{{Author: "owner", Body: "select", CreatedAt: time.Now().Add(-time.Hour)}}}
	undated := &Event{Comments: []integrations.Comment{{Author: "owner", Body: "select"}}}
	assert.Nil(t, old.since(Now()).Comments)
	assert.Nil(t, undated.since(Now()).Comments)
	assert.Empty(t, (&Event{Comments: []integrations.Comment{{Author: "owner", CreatedAt: time.Now()}}}).since("not a time").Comments, "an unreadable visit start reads nothing")
}

// Ids refuse every character that could forge or hide a line of output.
func TestValidateIDRefusesControlBidiAndZeroWidth(t *testing.T) {
	for _, id := range []string{
		"issue-1\nissue-2: ok", "issue-1\r", "issue-\x1b[2K1", "issue-1\x00", "issue\t1",
		"issue-\u202e1", "issue-\u2066x\u2069", "issue-\u200b1", "issue-\ufeff1", "issue-\u00ad1",
		"issue-\u2028x", "issue-\u0085x", "issue-\u00a01", "issue-\ue000",
	} {
		err := ValidateID(id)
		require.Error(t, err, "%q", id)
		assert.NotContains(t, err.Error(), "\n", "the refusal itself never carries the raw character")
		assert.NotContains(t, err.Error(), "\x1b")
	}
	assert.NoError(t, ValidateID("PROJ-12"))
	assert.NoError(t, ValidateID("issue-日本"), "printable letters of any script are fine")
}
