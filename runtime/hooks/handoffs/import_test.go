package handoffs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/handoff/handofftest"
	"github.com/the-loop/the-loop/internal/markdown"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

const importRecordURL = "https://github.test/o/r/issues/1#issuecomment-7"

// importCtx is the import-handoff node of the shipped loop for a work item
// whose record rec is frozen in state, with the skips the phase-selection
// reply declared: every skippable phase before the entry node (via handoff)
// plus the review chain (the replier's own choice, after the entry node).
func importCtx(t *testing.T, rec handoff.Record) *runtime.HookContext {
	t.Helper()
	g := hooktest.CompileShipped(t, graphs.Default)
	n, ok := g.Node(HookImportHandoff)
	require.True(t, ok)
	hc, _ := hooktest.GateContext(t, n, nil)
	hc.Graph = g
	raw, err := handoff.EncodeJSON(rec)
	require.NoError(t, err)
	hc.State.Handoff = &runtime.HandoffState{Record: raw, Author: "dev", CommentURL: importRecordURL, RecordedAt: "2026-10-21T10:00:00Z"}
	hc.State.Decisions["phase-selection"] = &runtime.Decision{Node: "phase-selection", Kind: runtime.KindSelection, Outcome: "selected", Via: "reply", Token: "the-loop execute", By: "@alice"}
	if enter, ok := g.Node(rec.Enter); ok {
		for _, node := range g.Nodes[:enter.Index()] {
			if node.Skippable && !node.OptIn {
				hc.State.Skips[node.ID] = &runtime.Decision{Node: node.ID, Kind: runtime.KindSkip, Via: runtime.ViaHandoff, By: "@alice", CommentURL: importRecordURL}
			}
		}
	}
	for _, node := range g.SkipSets["review-chain"] {
		hc.State.Skips[node] = &runtime.Decision{Node: node, Kind: runtime.KindSkip, Via: runtime.ViaSelection, Token: "review-chain", By: "@alice"}
	}
	refreshSkips(hc)
	return hc
}

func refreshSkips(hc *runtime.HookContext) {
	set := runtime.DeclaredSkips(hc.Graph, hc.State)
	hc.Skipped, hc.SkippedArtifacts = set.Skipped, set.Artifacts
}

func writeFiles(t *testing.T, hc *runtime.HookContext, files map[string]string) {
	t.Helper()
	handofftest.WriteFiles(t, hc.WorkItem.SpecDir, files)
}

func TestImportHandoffPassesEveryStageTableRow(t *testing.T) {
	for _, row := range handofftest.Rows() {
		t.Run(row.Spec.Stage+"→"+row.Enter, func(t *testing.T) {
			rec, files := handofftest.Build(row.Spec)
			hc := importCtx(t, rec)
			writeFiles(t, hc, files)
			r, err := ImportHandoff(hc)
			require.NoError(t, err)
			require.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
			assert.Equal(t, rec.Names(), r.Data["verified"])
			assert.Equal(t, "", r.Data["demoted"])
			if row.Enter == handoff.NodeBrainstormApproval {
				assert.Equal(t, "brainstorm-settled", r.Outcome(), "a skipped brainstorming would route past its approval")
			} else {
				assert.Equal(t, "pass", r.Outcome())
			}
			assert.NotContains(t, r.Data, "unskip", "nothing failed, nothing is un-skipped")
			assert.NotContains(t, r.Data, "declaredSkips", "the hook never adds a skip")
			d := hooktest.DecisionOf(t, r)
			assert.Equal(t, runtime.KindHandoffImport, d.Kind)
			assert.Equal(t, runtime.ViaHandoff, d.Via)
			assert.Equal(t, "@dev", d.By)
			assert.Equal(t, importRecordURL, d.CommentURL)
			for name, body := range files {
				assert.Equal(t, body, hooktest.ReadArtifact(t, hc, name), "a verified file is left byte for byte")
			}
		})
	}
}

func TestImportHandoffDemotionOrder(t *testing.T) {
	full := []string{"brainstorming", "brainstorm-approval", "requirements-definition", "requirements-approval", "design", "test-planning"}
	noSection := func(body, section string) string {
		return strings.Replace(body, "## "+section, "## Something else", 1)
	}
	tests := []struct {
		name     string
		spec     handofftest.Spec
		mutate   func(files map[string]string)
		artifact string
		producer string
		unskip   []string
		verified []string
	}{
		{"tampered testing plan demotes to test-planning", handofftest.Spec{Stage: handoff.StageDesignSettled},
			func(f map[string]string) { f[handoff.TestingPlan] += "tampered\n" },
			handoff.TestingPlan, "test-planning", []string{"test-planning"}, []string{handoff.Brainstorm, handoff.Requirements, handoff.DesignDoc}},
		{"tampered design demotes to design", handofftest.Spec{Stage: handoff.StageDesignSettled},
			func(f map[string]string) { f[handoff.DesignDoc] += "tampered\n" },
			handoff.DesignDoc, "design", []string{"design", "test-planning"}, []string{handoff.Brainstorm, handoff.Requirements}},
		{"the first failure wins over a later one", handofftest.Spec{Stage: handoff.StageDesignSettled},
			func(f map[string]string) { f[handoff.DesignDoc] += "tampered\n"; delete(f, handoff.TestingPlan) },
			handoff.DesignDoc, "design", []string{"design", "test-planning"}, []string{handoff.Brainstorm, handoff.Requirements}},
		{"a missing section demotes to the producer", handofftest.Spec{Stage: handoff.StageDesignSettled},
			func(f map[string]string) {
				f[handoff.Requirements] = noSection(f[handoff.Requirements], "Security considerations")
			},
			handoff.Requirements, "requirements-definition", full[2:], []string{handoff.Brainstorm}},
		{"a missing brainstorm restarts the chain", handofftest.Spec{Stage: handoff.StageDesignSettled},
			func(f map[string]string) { delete(f, handoff.Brainstorm) },
			handoff.Brainstorm, "brainstorming", full, []string{}},
		{"design entering test-planning", handofftest.Spec{Stage: handoff.StageDesignSettled, NoTestingPlan: true},
			func(f map[string]string) { f[handoff.DesignDoc] += "x\n" },
			handoff.DesignDoc, "design", []string{"design"}, []string{handoff.Brainstorm, handoff.Requirements}},
		{"a bugfix demotes to requirements-definition", handofftest.Spec{Stage: handoff.StageRequirementsSettled, Bugfix: true},
			func(f map[string]string) { f[handoff.Bugfix] += "x\n" },
			handoff.Bugfix, "requirements-definition", []string{"requirements-definition"}, []string{handoff.Brainstorm}},
		{"brainstorm-settled", handofftest.Spec{Stage: handoff.StageBrainstormSettled},
			func(f map[string]string) { f[handoff.Brainstorm] = noSection(f[handoff.Brainstorm], "Open questions") },
			handoff.Brainstorm, "brainstorming", []string{"brainstorming"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, files := handofftest.Build(tt.spec)
			hc := importCtx(t, rec)
			tt.mutate(files)
			writeFiles(t, hc, files)
			r, err := ImportHandoff(hc)
			require.NoError(t, err)
			require.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
			assert.Equal(t, tt.producer, r.Data["demoted"])
			assert.Equal(t, tt.unskip, r.Data["unskip"])
			assert.Equal(t, tt.verified, r.Data["verified"])
			dem := r.Data["demotions"].([]runtime.Demotion)
			require.Len(t, dem, 1)
			assert.Equal(t, tt.artifact, dem[0].Artifact)
			assert.Equal(t, tt.producer, dem[0].Node)
			assert.NotEmpty(t, dem[0].Reason)
			for _, n := range r.Data["unskip"].([]string) {
				assert.NotContains(t, []string{"self-review", "security-review", rec.Enter}, n, "nothing at or after the entry node is un-skipped")
			}
			assert.NotContains(t, r.Data, "declaredSkips")
		})
	}
}

func TestImportHandoffNothingVerifiableUnskipsBrainstorming(t *testing.T) {
	// A requirements-settled record that carries no brainstorm: its first
	// and only file fails, so no file verifies and the chain restarts.
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageRequirementsSettled})
	rec.Artifacts = rec.Artifacts[1:]
	hc := importCtx(t, rec)
	writeFiles(t, hc, map[string]string{handoff.Requirements: files[handoff.Requirements] + "tampered\n"})
	r, err := ImportHandoff(hc)
	require.NoError(t, err)
	assert.Equal(t, "brainstorming", r.Data["demoted"])
	assert.Equal(t, []string{"brainstorming", "brainstorm-approval", "requirements-definition"}, r.Data["unskip"])
}

func TestImportHandoffUnreadableRecordFailsClosed(t *testing.T) {
	for name, raw := range map[string]string{
		"not JSON":                   `{"version": 1,`,
		"enter past design-approval": `{"version":1,"stage":"design-settled","enter":"implementation","artifacts":[],"carriedBy":"branch","branch":"the-loop/x"}`,
	} {
		t.Run(name, func(t *testing.T) {
			rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled})
			hc := importCtx(t, rec)
			writeFiles(t, hc, files)
			hc.State.Handoff.Record = json.RawMessage(raw)
			r, err := ImportHandoff(hc)
			require.NoError(t, err)
			require.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
			assert.Equal(t, "brainstorming", r.Data["demoted"])
			assert.Equal(t, []string{"brainstorming", "brainstorm-approval", "requirements-definition", "requirements-approval", "design", "test-planning"},
				r.Data["unskip"], "every handoff skip is withdrawn, the replier's later ones are kept")
		})
	}
}

func TestImportHandoffLocksApprovedInChat(t *testing.T) {
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, ApprovedInChat: []string{handoff.Brainstorm, handoff.Requirements}})
	hc := importCtx(t, rec)
	writeFiles(t, hc, files)
	r, err := ImportHandoff(hc)
	require.NoError(t, err)
	require.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
	assert.Equal(t, []string{handoff.Brainstorm, handoff.Requirements}, r.Data["locked"])
	for _, name := range []string{handoff.Brainstorm, handoff.Requirements} {
		fm, body := markdown.SplitFrontMatter(hooktest.ReadArtifact(t, hc, name))
		assert.Equal(t, "approved", markdown.String(fm["status"]), name)
		assert.Equal(t, []any{"alice"}, fm["approvedBy"], "%s: locked as approved by the human who signed the execute", name)
		assert.Equal(t, "handoff "+importRecordURL+" (posted for @dev)", fm["approvedVia"], name)
		assert.Equal(t, strings.TrimLeft(files[name], "\n"), strings.TrimLeft(body, "\n"), "the body is kept")
	}
	assert.Equal(t, files[handoff.DesignDoc], hooktest.ReadArtifact(t, hc, handoff.DesignDoc), "the furthest files are never locked by a handoff")
	hashes := hooktest.DecisionOf(t, r).Data["lockedHashes"].(map[string]any)
	assert.Equal(t, handoff.HashLF([]byte(hooktest.ReadArtifact(t, hc, handoff.Brainstorm))), hashes[handoff.Brainstorm])
}

func TestImportHandoffLocksNothingWithoutASignedSelection(t *testing.T) {
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, ApprovedInChat: []string{handoff.Brainstorm}})
	hc := importCtx(t, rec)
	delete(hc.State.Decisions, "phase-selection")
	writeFiles(t, hc, files)
	r, err := ImportHandoff(hc)
	require.NoError(t, err)
	assert.Empty(t, r.Data["locked"], "no human signed the selection, so no file is approved")
	assert.Equal(t, files[handoff.Brainstorm], hooktest.ReadArtifact(t, hc, handoff.Brainstorm))
}

func TestImportHandoffLocksOnlyVerifiedFiles(t *testing.T) {
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, ApprovedInChat: []string{handoff.Brainstorm, handoff.Requirements}})
	hc := importCtx(t, rec)
	files[handoff.Requirements] += "tampered\n"
	writeFiles(t, hc, files)
	r, err := ImportHandoff(hc)
	require.NoError(t, err)
	assert.Equal(t, []string{handoff.Brainstorm}, r.Data["locked"], "a file that failed is not approved by the hook")
	assert.Equal(t, files[handoff.Requirements], hooktest.ReadArtifact(t, hc, handoff.Requirements))
}

func TestImportHandoffUnderCheck(t *testing.T) {
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageRequirementsSettled, ApprovedInChat: []string{handoff.Brainstorm}})
	hc := importCtx(t, rec)
	writeFiles(t, hc, map[string]string{handoff.Brainstorm: files[handoff.Brainstorm]})
	hooktest.CheckOnly(hc)
	r, err := ImportHandoff(hc)
	require.NoError(t, err)
	require.Equal(t, runtime.Block, r.Status, "before the import the check says what the node still needs")
	assert.Contains(t, hooktest.Texts(r)[0], "requirements.md is not in docs/specs/issue-1")
	assert.Contains(t, hooktest.Texts(r)[0], "`the-loop handoff import issue-1`")
	assert.Contains(t, hooktest.Texts(r)[0], "demoted to requirements-definition")
	assert.Equal(t, files[handoff.Brainstorm], hooktest.ReadArtifact(t, hc, handoff.Brainstorm), "check locks nothing")
	_, err = os.Stat(filepath.Join(hc.WorkItem.SpecDir, handoff.Requirements))
	assert.ErrorIs(t, err, os.ErrNotExist, "check writes nothing")

	// Once the node has run, check reports what it recorded, even after the
	// files changed legitimately (a review comment, a lock).
	hc.State.Decisions[HookImportHandoff] = &runtime.Decision{Node: HookImportHandoff, Kind: runtime.KindHandoffImport, Outcome: "pass", Data: map[string]any{"demoted": ""}}
	r, err = ImportHandoff(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Equal(t, true, r.Data["recorded"])
}

func TestImportHandoffWithoutAHandoffSkips(t *testing.T) {
	rec, _ := handofftest.Build(handofftest.Spec{Stage: handoff.StageBrainstormSettled})
	hc := importCtx(t, rec)
	hc.State.Handoff = nil
	r, err := ImportHandoff(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Skip, r.Status)
	assert.Empty(t, r.Data)
}

// TestAbuseCase5InstructionsInABodyChangeNothing: a carried body full of
// instructions is data. It verifies like any other file, is left byte for
// byte, and the hook's verdict and decision are the same as for a clean body.
func TestAbuseCase5InstructionsInABodyChangeNothing(t *testing.T) {
	verdict := func(extra string) (runtime.Result, map[string]string, *runtime.HookContext) {
		rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageDesignSettled, Extra: extra})
		hc := importCtx(t, rec)
		writeFiles(t, hc, files)
		r, err := ImportHandoff(hc)
		require.NoError(t, err)
		return r, files, hc
	}
	clean, _, _ := verdict("")
	hostile, files, hc := verdict(handofftest.Injection)
	assert.Equal(t, clean.Status, hostile.Status)
	assert.Equal(t, clean.Data["verified"], hostile.Data["verified"])
	assert.Equal(t, clean.Data["demoted"], hostile.Data["demoted"])
	assert.Equal(t, hooktest.Texts(clean), hooktest.Texts(hostile), "no text from a body reaches a message")
	for name, body := range files {
		assert.Equal(t, body, hooktest.ReadArtifact(t, hc, name))
		assert.Contains(t, body, handofftest.Injection)
	}
}

func TestImportHandoffBrainstormRoutingFollowsTheReplier(t *testing.T) {
	rec, files := handofftest.Build(handofftest.Spec{Stage: handoff.StageBrainstormSettled})
	hc := importCtx(t, rec)
	writeFiles(t, hc, files)
	delete(hc.State.Skips, "brainstorming") // the replier ticked brainstorming back on
	refreshSkips(hc)
	r, err := ImportHandoff(hc)
	require.NoError(t, err)
	assert.Equal(t, "pass", r.Outcome(), "brainstorming runs, and the ordinary edge leads to its approval")

	hc = importCtx(t, rec)
	writeFiles(t, hc, handofftest.Tampered(files, handoff.Brainstorm))
	r, err = ImportHandoff(hc)
	require.NoError(t, err)
	assert.Equal(t, "pass", r.Outcome(), "a demoted walk takes the ordinary edge into the producer")
	assert.Equal(t, "brainstorming", r.Data["demoted"])
}
