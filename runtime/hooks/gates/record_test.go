package gates

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

func gatePinClock(t *testing.T) {
	old := clock
	clock = func() time.Time { return time.Date(2026, 12, 2, 12, 0, 0, 0, time.Local) }
	t.Cleanup(func() { clock = old })
}

func gateFeedbackResult(outcome string, cs ...integrations.Comment) runtime.Result {
	return runtime.OK(HookClassifyFeedback, map[string]any{"outcome": outcome, "feedback": cs, "comments": cs[:1]})
}

func TestRecordFeedbackAppendsUnderReviewComments(t *testing.T) {
	gatePinClock(t)
	hc, _ := hooktest.GateContext(t, approvalNode, map[string]any{"into": "requirements.md|bugfix.md"})
	original := "---\nstatus: draft\n---\n# Requirements\n\n## Requirements\n\nR1.\n"
	hooktest.WriteArtifact(t, hc, "bugfix.md", original)
	hc.Results = []runtime.Result{gateFeedbackResult("changes-requested",
		hooktest.Comment(11, "@alice", "Changes requested:\n## Requirements\nR1 is vague."),
		integrations.Comment{Author: "bob", Body: "   "})}

	r, err := RecordFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
	assert.Equal(t, 2, r.Data["recorded"])
	assert.Equal(t, "bugfix.md", r.Data["artifact"])
	want := original + "\n## Review comments\n\n### 2026-12-02 — changes-requested\n\n" +
		"**@alice** wrote ([comment](https://github.test/o/r/issues/1#issuecomment-11)):\n\n> Changes requested:\n> ## Requirements\n> R1 is vague.\n" +
		gateFeedbackMarker("https://github.test/o/r/issues/1#issuecomment-11") + "\n" +
		"\n**@bob** left no comment text.\n" + gateFeedbackMarker(gateFeedbackKey(integrations.Comment{Author: "bob", Body: "   "})) + "\n"
	got := hooktest.ReadArtifact(t, hc, "bugfix.md")
	assert.Equal(t, want, got)
	assert.NotContains(t, got, "@@alice")
	assert.False(t, strings.Contains(got, "\n## Requirements\nR1 is vague"), "a reply's heading is quoted, never a section of the artifact")

	// Idempotent: the same replies are not recorded twice; a new one is
	// appended after the earlier entry, which stays byte for byte.
	r, err = RecordFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, 0, r.Data["recorded"])
	assert.Equal(t, want, hooktest.ReadArtifact(t, hc, "bugfix.md"))

	hc.Results = []runtime.Result{gateFeedbackResult("approved", hooktest.Comment(11, "alice", "dup"), hooktest.Comment(12, "bob", "approved"))}
	r, err = RecordFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, 1, r.Data["recorded"])
	got = hooktest.ReadArtifact(t, hc, "bugfix.md")
	assert.True(t, strings.HasPrefix(got, want), "earlier entries are never rewritten")
	assert.Contains(t, got[len(want):], "### 2026-12-02 — approved\n\n**@bob** wrote")
}

func TestRecordFeedbackInsertsBeforeTheNextSection(t *testing.T) {
	gatePinClock(t)
	hc, _ := hooktest.GateContext(t, approvalNode, map[string]any{"into": "design.md"})
	hooktest.WriteArtifact(t, hc, "design.md", "# D\n\n## Review comments\n\n### old entry\n\n```\n## not a heading\n```\n\n## Appendix\n\ntext\n")
	hc.Results = []runtime.Result{gateFeedbackResult("approved", hooktest.Comment(3, "alice", "lgtm"))}
	_, err := RecordFeedback(hc)
	require.NoError(t, err)
	got := hooktest.ReadArtifact(t, hc, "design.md")
	assert.True(t, strings.HasPrefix(got, "# D\n\n## Review comments\n\n### old entry\n\n```\n## not a heading\n```\n\n### 2026-12-02 — approved\n"), got)
	assert.True(t, strings.HasSuffix(got, "\n\n## Appendix\n\ntext\n"), got)
}

func TestRecordFeedbackSkips(t *testing.T) {
	withFeedback := []runtime.Result{gateFeedbackResult("approved", hooktest.Comment(1, "alice", "ok"))}
	tests := []struct {
		name    string
		params  map[string]any
		results []runtime.Result
		file    bool
		msg     string
	}{
		{"no target", nil, withFeedback, true, "no target artifact declared"},
		{"no feedback", map[string]any{"into": "design.md"}, []runtime.Result{runtime.OK(HookClassifyFeedback, map[string]any{"outcome": "approved"})}, true, "no feedback to record"},
		{"missing artifact", map[string]any{"into": "design.md"}, withFeedback, false, "`design.md` does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc, _ := hooktest.GateContext(t, approvalNode, tt.params)
			if tt.file {
				hooktest.WriteArtifact(t, hc, "design.md", "# D\n")
			}
			hc.Results = tt.results
			r, err := RecordFeedback(hc)
			require.NoError(t, err)
			assert.Equal(t, runtime.Skip, r.Status)
			assert.Equal(t, []string{tt.msg}, hooktest.Texts(r))
		})
	}
}

func TestRecordFeedbackWritesNothingUnderCheck(t *testing.T) {
	hc, _ := hooktest.GateContext(t, approvalNode, map[string]any{"into": "design.md"})
	hooktest.WriteArtifact(t, hc, "design.md", "# D\n")
	hc.Results = []runtime.Result{gateFeedbackResult("approved", hooktest.Comment(1, "alice", "ok"))}
	hooktest.CheckOnly(hc)
	r, err := RecordFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Skip, r.Status)
	assert.Equal(t, "# D\n", hooktest.ReadArtifact(t, hc, "design.md"))
	entries, err := os.ReadDir(hc.WorkItem.SpecDir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file either")
}

func TestRecordFeedbackRefusesTraversal(t *testing.T) {
	hc, _ := hooktest.GateContext(t, approvalNode, map[string]any{"into": "../../../outside.md"})
	require.NoError(t, os.WriteFile(filepath.Join(hc.Repo, "outside.md"), []byte("x"), 0o644))
	hc.Results = []runtime.Result{gateFeedbackResult("approved", hooktest.Comment(1, "alice", "ok"))}
	r, err := RecordFeedback(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Block, r.Status)
	b, _ := os.ReadFile(filepath.Join(hc.Repo, "outside.md"))
	assert.Equal(t, "x", string(b))
}
