package gates

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

var approvalNode = &runtime.Node{ID: "requirements-approval", Actor: "human"}

func TestClassifyFeedbackOutcomes(t *testing.T) {
	tests := []struct {
		name     string
		comments []integrations.Comment
		status   runtime.Status
		outcome  string
		by       string
		msg      string
	}{
		{"no comments", nil, runtime.Wait, "", "", "no authorized feedback yet"},
		{"approval", []integrations.Comment{hooktest.Comment(1, "alice", "LGTM")}, runtime.Pass, "approved", "@alice", ""},
		{"with comments", []integrations.Comment{hooktest.Comment(1, "bob", "approved, one nit: typo in R3")}, runtime.Pass, "approved-with-comments", "@bob", ""},
		{"changes", []integrations.Comment{hooktest.Comment(1, "alice", "changes requested: add the abuse case")}, runtime.Pass, "changes-requested", "@alice", ""},
		{"negated approval waits", []integrations.Comment{hooktest.Comment(1, "alice", "I have not approved this")}, runtime.Wait, "", "",
			`the newest authorized reply (by @alice) is not decisive: it is not an approval the reader accepts: "not" negates, refuses or retracts; the gate stays open`},
		{"the newest reply decides", []integrations.Comment{hooktest.Comment(1, "alice", "needs work"), hooktest.Comment(2, "alice", "thanks"), hooktest.Comment(3, "bob", "fixed now, approved")}, runtime.Pass, "approved", "@bob", ""},
		{"a later non-approval supersedes an approval", []integrations.Comment{hooktest.Comment(1, "alice", "needs work"), hooktest.Comment(2, "bob", "fixed now, approved"), hooktest.Comment(3, "alice", "thanks")}, runtime.Wait, "", "",
			"the newest authorized reply (by @alice) is not decisive: nothing in the reply approves or asks for changes; the gate stays open"},
		{"a retraction supersedes an approval", []integrations.Comment{hooktest.Comment(1, "bob", "LGTM"), hooktest.Comment(2, "bob", "Scratch my LGTM, I need to re-read R4.")}, runtime.Wait, "", "", ""},
		{"a refusal sends the work back", []integrations.Comment{hooktest.Comment(1, "bob", "LGTM"), hooktest.Comment(2, "bob", "Not approved, ignore my LGTM.")}, runtime.Pass, "changes-requested", "@bob", ""},
		{"an edited approval is never read", []integrations.Comment{hooktest.Edited(hooktest.Comment(1, "bob", "approved"))}, runtime.Wait, "", "",
			"the newest authorized comment (by @bob) was edited after it was posted; an edited comment is never a decision, so the gate waits for a new one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc, _ := hooktest.GateContext(t, approvalNode, nil)
			hooktest.SetEvent(hc, tt.comments...)
			r, err := ClassifyFeedback(hc)
			require.NoError(t, err)
			assert.Equal(t, tt.status, r.Status, hooktest.Texts(r))
			if tt.msg != "" {
				assert.Equal(t, []string{tt.msg}, hooktest.Texts(r))
			}
			if tt.status != runtime.Pass {
				assert.NotContains(t, r.Data, "decision")
				return
			}
			assert.Equal(t, tt.outcome, r.Data["outcome"])
			d := hooktest.DecisionOf(t, r)
			assert.Equal(t, runtime.Decision{Node: "requirements-approval", Kind: runtime.KindGate, Outcome: tt.outcome, Via: "comment", By: tt.by,
				CommentURL: d.CommentURL, Data: d.Data}, *d)
			assert.NotEmpty(t, d.CommentURL)
			assert.Equal(t, "deterministic", d.Data["classifier"])
			fb := r.Data["feedback"].([]integrations.Comment)
			assert.Len(t, fb, len(tt.comments), "every authorized reply is passed to record-feedback")
			assert.Equal(t, tt.by, "@"+r.Data["comments"].([]integrations.Comment)[0].Author, "the approver is the deciding reply's author")
		})
	}
}

func TestUnauthorizedCommentIsNotRead(t *testing.T) {
	hc, _ := hooktest.GateContext(t, approvalNode, nil)
	hooktest.SetEvent(hc, hooktest.Comment(1, "mallory", "approved"), hooktest.Comment(2, "alice-evil", "LGTM"), integrations.Comment{Author: "", Body: "ship it"})
	r, err := ClassifyFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Wait, r.Status)
	assert.Equal(t, []string{"no authorized feedback yet"}, hooktest.Texts(r))
}

func TestSelfAuthoredApprovalIsDropped(t *testing.T) {
	hc, _ := hooktest.GateContext(t, approvalNode, nil)
	hooktest.SetEvent(hc,
		integrations.Comment{Author: "alice", Body: integrations.MarkSelfAuthored("approved")},
		integrations.Comment{Author: "the-loop-bot", Body: "LGTM"})
	r, err := ClassifyFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Wait, r.Status, "neither the marker-carrying comment nor the loop's own login is read")
}

func TestPartialReviewCommentLeavesGateWaiting(t *testing.T) {
	hc, _ := hooktest.GateContext(t, approvalNode, nil)
	hooktest.SetEvent(hc, hooktest.Comment(1, "alice", "Looks good so far — I'll finish the security section tomorrow."))
	r, err := ClassifyFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Wait, r.Status)
	assert.Equal(t, []string{`the newest authorized reply (by @alice) is not decisive: "so far" says the review is not finished; the gate stays open`}, hooktest.Texts(r))
}

func TestRecordedChangesRequestedIsNotSatisfiedUnderCheck(t *testing.T) {
	hc, _ := hooktest.GateContext(t, approvalNode, nil)
	hc.State.Decisions["requirements-approval"] = &runtime.Decision{Node: "requirements-approval", Kind: runtime.KindGate, Outcome: "changes-requested", Via: "comment", By: "@alice"}
	hooktest.CheckOnly(hc)
	r, err := ClassifyFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Wait, r.Status)
	assert.Equal(t, []string{"changes requested by @alice; the gate asks again once the artifact is revised"}, hooktest.Texts(r))

	hc.ReadOnly = false
	r, err = ClassifyFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status, "while walking, the recorded outcome routes")
	assert.Equal(t, "changes-requested", r.Data["outcome"])
}

func TestRecordedApprovalAnswersCheckWithoutReadingComments(t *testing.T) {
	hc, fake := hooktest.GateContext(t, approvalNode, nil)
	hc.State.Decisions["requirements-approval"] = &runtime.Decision{Outcome: "approved", Via: "comment", By: "@bob", CommentURL: "u"}
	hooktest.SetEvent(hc, hooktest.Comment(1, "alice", "changes requested"))
	r, err := ClassifyFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Equal(t, "approved", r.Data["outcome"])
	assert.Equal(t, []integrations.Comment{{Author: "@bob", URL: "u"}}, r.Data["comments"], "lock-artifacts still learns the approver")
	assert.NotContains(t, r.Data, "feedback")
	assert.Empty(t, fake.Calls)
}

func TestClassifyFeedbackSubjectAndRiskTier(t *testing.T) {
	hc, _ := hooktest.GateContext(t, approvalNode, map[string]any{"subject": "requirements.md|bugfix.md"})
	hooktest.SetEvent(hc, hooktest.Comment(1, "alice", "approved"))
	r, err := ClassifyFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Wait, r.Status, "an absent subject that is not a planned absence is never approved")
	assert.Equal(t, []string{"nothing to review yet: `requirements.md` or `bugfix.md` does not exist"}, hooktest.Texts(r))

	hc.SkippedArtifacts = map[string]bool{"requirements.md": true, "bugfix.md": true}
	r, err = ClassifyFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Skip, r.Status, "a planned absence has nothing to review")
	assert.Equal(t, []string{"nothing to review: `requirements.md` or `bugfix.md` does not exist"}, hooktest.Texts(r))
	hc.SkippedArtifacts = nil

	hc.Params = map[string]any{"subject": "requirements.md|bugfix.md", "subjectOptional": true}
	r, err = ClassifyFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Skip, r.Status, "an optional subject may be absent")
	hc.Params = map[string]any{"subject": "requirements.md|bugfix.md"}

	hooktest.WriteArtifact(t, hc, "bugfix.md", "# Bug\n")
	r, err = ClassifyFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status)

	auto, _ := hooktest.GateContext(t, &runtime.Node{ID: "human-approval"}, map[string]any{"autonomousBelowTier": 3})
	hooktest.WriteArtifact(t, auto, "requirements.md", "---\nriskTier: 2\nstatus: approved\n---\n# R\n")
	r, err = ClassifyFeedback(auto)
	require.NoError(t, err)
	assert.Equal(t, runtime.Wait, r.Status, "an unlocked declaration cannot lower the tier below the default 3")

	auto.Graph = gateLockGraph(t)
	auto.State.Decisions["requirements-approval"] = &runtime.Decision{Kind: runtime.KindGate, Outcome: "approved", Via: "comment", By: "@alice",
		Data: map[string]any{"lockedHashes": map[string]any{"requirements.md": handoff.HashLF([]byte("---\nriskTier: 2\nstatus: approved\n---\n# R\n"))}}}
	r, err = ClassifyFeedback(auto)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status)
	assert.Equal(t, "approved", r.Data["outcome"])
	d := hooktest.DecisionOf(t, r)
	assert.Equal(t, "risk-tier", d.Via)
	assert.Equal(t, "the-loop", d.By)
	assert.Equal(t, 2, d.Data["riskTier"])

	bad, _ := hooktest.GateContext(t, approvalNode, map[string]any{"autonomousBelowTier": "three"})
	_, err = ClassifyFeedback(bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "autonomousBelowTier")
}

func TestGateReadsOnlyThisVisit(t *testing.T) {
	hc, _ := hooktest.GateContext(t, approvalNode, nil)
	request := integrations.Comment{ID: 5, Author: "the-loop-bot", Body: integrations.MarkSelfAuthored("ready\n" + ReviewMarker("requirements-approval"))}
	forged := integrations.Comment{ID: 7, Author: "mallory", Body: integrations.MarkSelfAuthored(ReviewMarker("requirements-approval"))}
	hooktest.SetEvent(hc, hooktest.Comment(1, "alice", "changes requested"), request, hooktest.Comment(6, "bob", "thanks for the update"), forged)
	r, err := ClassifyFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Wait, r.Status, "the previous visit's change request is not read again; a forged request marker moves nothing")

	hooktest.SetEvent(hc, hooktest.Comment(1, "alice", "changes requested"), request, hooktest.Comment(8, "alice", "approved"))
	r, err = ClassifyFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, "approved", r.Data["outcome"])
	assert.Len(t, r.Data["feedback"], 1)
}

func TestExternalClassifier(t *testing.T) {
	script := func(t *testing.T, out string) []string {
		p := filepath.Join(t.TempDir(), "classifier")
		require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\ncat >/dev/null\nprintf '%s' '"+out+"'\n"), 0o755))
		return []string{p}
	}
	tests := []struct {
		name    string
		out     string
		comment string
		status  runtime.Status
		outcome string
	}{
		{"external decides", `{"outcome":"approved","reason":"ok"}`, "Fine by me.", runtime.Pass, "approved"},
		{"external approval of a hedged reply is withheld", `{"outcome":"approved","reason":"ok"}`, "hmm, fine by me I guess", runtime.Wait, ""},
		{"external approval of a negated reply is withheld", `{"outcome":"approved","reason":"ok"}`, "I haven't approved this yet", runtime.Wait, ""},
		{"external approval of an emoji is withheld", `{"outcome":"approved","reason":"ok"}`, "👍", runtime.Wait, ""},
		{"external undecided waits", `{"outcome":"undecided","reason":"unclear"}`, "lgtm", runtime.Wait, ""},
		{"invalid answer waits", `{"outcome":"merge"}`, "lgtm", runtime.Wait, ""},
		{"never overturns a change request", `{"outcome":"approved","reason":"x"}`, "changes requested", runtime.Pass, "changes-requested"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc, _ := hooktest.GateContext(t, approvalNode, nil)
			hc.Config.Routing.Classifier.Command = script(t, tt.out)
			hc.Config.Routing.Classifier.Retries = 0
			hooktest.SetEvent(hc, hooktest.Comment(1, "alice", tt.comment))
			r, err := ClassifyFeedback(hc)
			require.NoError(t, err)
			assert.Equal(t, tt.status, r.Status, hooktest.Texts(r))
			if tt.outcome != "" {
				assert.Equal(t, tt.outcome, r.Data["outcome"])
			}
		})
	}
}

func TestExternalClassifierNeverRunsUnderCheck(t *testing.T) {
	hc, _ := hooktest.GateContext(t, approvalNode, nil)
	marker := filepath.Join(t.TempDir(), "ran")
	p := filepath.Join(t.TempDir(), "classifier")
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\ntouch '"+marker+"'\necho '{\"outcome\":\"approved\",\"reason\":\"x\"}'\n"), 0o755))
	hc.Config.Routing.Classifier.Command = []string{p}
	hooktest.SetEvent(hc, hooktest.Comment(1, "alice", "lgtm"))
	hc.ReadOnly = true
	r, err := ClassifyFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, "approved", r.Data["outcome"], "the deterministic classifier answers under check")
	assert.NoFileExists(t, marker)
}
