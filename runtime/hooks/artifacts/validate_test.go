package artifacts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

const approvedRequirements = "---\nstatus: approved\n---\n## Requirements\nR1\n## Security considerations\nS1\n"

func requirementsNode() *runtime.Node {
	return &runtime.Node{ID: "requirements-definition", Produces: []string{"requirements.md|bugfix.md"}}
}

func requirementsParams() map[string]any {
	return map[string]any{"locked": true, "sections": []any{"Requirements", "Security considerations"}}
}

func runValidate(t *testing.T, hc *runtime.HookContext) runtime.Result {
	t.Helper()
	r, err := ValidateArtifacts(hc)
	require.NoError(t, err)
	return r
}

// §10.15: draft + two missing sections arrive as three messages in one block.
func TestEveryUnmetRequirementArrivesInOneResult(t *testing.T) {
	hc := hooktest.NewContext(t, requirementsNode(), requirementsParams())
	hooktest.WriteArtifact(t, hc, "requirements.md", "---\nstatus: draft\n---\n# Title\n")
	r := runValidate(t, hc)
	assert.Equal(t, runtime.Block, r.Status)
	assert.True(t, r.Retriable)
	assert.Equal(t, []string{
		"artifact is not locked — front-matter says status: draft, expected status: approved (docs/specs/issue-1/requirements.md)",
		"required section is missing: Requirements (docs/specs/issue-1/requirements.md)",
		"required section is missing: Security considerations (docs/specs/issue-1/requirements.md)",
	}, hooktest.Texts(r))
}

func TestValidateContentChecks(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]any
		text   string
		status runtime.Status
		want   []string
	}{
		{
			name:   "a section owns its subsections (§10.16)",
			params: map[string]any{"sections": []any{"X"}},
			text:   "## X\n### Y\ncontent of Y\n",
			status: runtime.Pass,
		},
		{
			name:   "headings inside fences are not sections (§10.17)",
			params: map[string]any{"sections": []any{"Fake"}},
			text:   "## Real\n```\n## Fake\n```\n",
			status: runtime.Block,
			want:   []string{"required section is missing: Fake (docs/specs/issue-1/design.md)"},
		},
		{
			name:   "empty section",
			params: map[string]any{"sections": []any{" Architecture "}},
			text:   "## Architecture\n\n   \n## Next\n",
			status: runtime.Block,
			want:   []string{"required section is empty: Architecture (docs/specs/issue-1/design.md)"},
		},
		{
			name:   "section titles are case-sensitive",
			params: map[string]any{"sections": []any{"Architecture"}},
			text:   "## architecture\nx\n",
			status: runtime.Block,
			want:   []string{"required section is missing: Architecture (docs/specs/issue-1/design.md)"},
		},
		{
			name:   "unticked tasks block (§10.18)",
			params: map[string]any{"checkmarks": "complete"},
			text:   "## Tasks\n- [ ] one\n- [x] two\n  - [ ] three\n",
			status: runtime.Block,
			want:   []string{"2 task(s) still unticked (docs/specs/issue-1/design.md)"},
		},
		{
			name:   "boxes in front matter are not counted",
			params: map[string]any{"checkmarks": "complete"},
			text:   "---\nnote: \"- [ ] x\"\n---\n- [x] done\n",
			status: runtime.Pass,
		},
		{
			name:   "unset status reads as (unset)",
			params: map[string]any{"locked": true},
			text:   "# no front matter\n",
			status: runtime.Block,
			want:   []string{"artifact is not locked — front-matter says status: (unset), expected status: approved (docs/specs/issue-1/design.md)"},
		},
		{
			name:   "status is trimmed",
			params: map[string]any{"locked": true},
			text:   "---\nstatus: \" approved \"\n---\n",
			status: runtime.Pass,
		},
		{
			name:   "frontMatter expectations, in key order",
			params: map[string]any{"frontMatter": map[string]any{"type": "design", "riskTier": 2, "owner": "alice", "phase": "design"}},
			text:   "---\ntype: requirements\nriskTier: 2\nphase: design\n---\n",
			status: runtime.Block,
			want: []string{
				`front-matter owner: expected "alice", found (unset) (docs/specs/issue-1/design.md)`,
				`front-matter type: expected "design", found "requirements" (docs/specs/issue-1/design.md)`,
			},
		},
		{
			name:   "frontMatter compares stringified values",
			params: map[string]any{"frontMatter": map[string]any{"riskTier": "2", "draft": true}},
			text:   "---\nriskTier: 2\ndraft: true\n---\n",
			status: runtime.Pass,
		},
		{
			name:   "no content checks: presence is enough",
			params: map[string]any{},
			text:   "anything",
			status: runtime.Pass,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := hooktest.NewContext(t, &runtime.Node{ID: "design", Produces: []string{"design.md"}}, tt.params)
			p := hooktest.WriteArtifact(t, hc, "design.md", tt.text)
			r := runValidate(t, hc)
			assert.Equal(t, tt.status, r.Status, hooktest.Texts(r))
			assert.Equal(t, tt.want, hooktest.NilIfEmpty(hooktest.Texts(r)))
			if tt.status == runtime.Pass {
				assert.Equal(t, []string{p}, r.Data["artifacts"])
			}
		})
	}
}

// §10.19: content checks with nothing to read are a final block.
func TestAGateWithChecksAndNothingToReadBlocksAndIsFinal(t *testing.T) {
	hc := hooktest.NewContext(t, &runtime.Node{ID: "security-review"}, map[string]any{"sections": []any{"Security review (gate)"}})
	r := runValidate(t, hc)
	assert.Equal(t, runtime.Block, r.Status)
	assert.False(t, r.Retriable)
	require.Len(t, r.Messages, 1)
	assert.Contains(t, r.Messages[0].Text, "names no artifact")
	assert.Equal(t, "docs/specs/issue-1", r.Messages[0].Path)
}

func TestAnyCheckmarksValueCountsAsAContentCheck(t *testing.T) {
	hc := hooktest.NewContext(t, &runtime.Node{ID: "n"}, map[string]any{"checkmarks": "partial"})
	r := runValidate(t, hc)
	assert.Equal(t, runtime.Block, r.Status)
	assert.False(t, r.Retriable)

	hc = hooktest.NewContext(t, &runtime.Node{ID: "n", Produces: []string{"tasks.md"}}, map[string]any{"checkmarks": "partial"})
	hooktest.WriteArtifact(t, hc, "tasks.md", "- [ ] open\n")
	assert.Equal(t, runtime.Pass, runValidate(t, hc).Status, "only checkmarks: complete counts boxes")
}

func TestANodeWithNoArtifactsAndNoChecksSkips(t *testing.T) {
	hc := hooktest.NewContext(t, &runtime.Node{ID: "plain"}, nil)
	r := runValidate(t, hc)
	assert.Equal(t, runtime.Skip, r.Status)
	assert.Equal(t, []string{"this node declares no artifacts"}, hooktest.Texts(r))
}

// §10.20: both names present is ambiguous.
func TestBothNamesPresentBlocksAsAmbiguous(t *testing.T) {
	hc := hooktest.NewContext(t, requirementsNode(), requirementsParams())
	hooktest.WriteArtifact(t, hc, "requirements.md", approvedRequirements)
	hooktest.WriteArtifact(t, hc, "bugfix.md", approvedRequirements)
	r := runValidate(t, hc)
	assert.Equal(t, runtime.Block, r.Status)
	assert.Equal(t, []string{"2 artifacts present where one is expected — keep one of: requirements.md, bugfix.md (docs/specs/issue-1)"}, hooktest.Texts(r))
}

func TestEitherAlternativeSatisfiesTheSlot(t *testing.T) {
	for _, name := range []string{"requirements.md", "bugfix.md"} {
		t.Run(name, func(t *testing.T) {
			hc := hooktest.NewContext(t, requirementsNode(), requirementsParams())
			p := hooktest.WriteArtifact(t, hc, name, approvedRequirements)
			r := runValidate(t, hc)
			assert.Equal(t, runtime.Pass, r.Status, hooktest.Texts(r))
			assert.Equal(t, []string{p}, r.Data["artifacts"])
		})
	}
}

func TestMissingArtifactMessages(t *testing.T) {
	// §10.21: a single-name slot names the file.
	hc := hooktest.NewContext(t, &runtime.Node{ID: "design", Produces: []string{"design.md"}}, map[string]any{"locked": true})
	r := runValidate(t, hc)
	assert.Equal(t, runtime.Block, r.Status)
	require.Len(t, r.Messages, 1)
	assert.Equal(t, "required artifact is missing", r.Messages[0].Text)
	assert.True(t, strings.HasSuffix(r.Messages[0].Path, "docs/specs/issue-1/design.md"))

	hc = hooktest.NewContext(t, requirementsNode(), requirementsParams())
	r = runValidate(t, hc)
	assert.Equal(t, []string{"required artifact is missing — write one of: requirements.md, bugfix.md (docs/specs/issue-1)"}, hooktest.Texts(r))
}

func TestSlotFindingsComeBeforeContentFindings(t *testing.T) {
	node := &runtime.Node{ID: "n", Produces: []string{"design.md", "missing.md"}}
	hc := hooktest.NewContext(t, node, map[string]any{"locked": true})
	hooktest.WriteArtifact(t, hc, "design.md", "---\nstatus: draft\n---\n")
	r := runValidate(t, hc)
	assert.Equal(t, []string{
		"required artifact is missing (docs/specs/issue-1/missing.md)",
		"artifact is not locked — front-matter says status: draft, expected status: approved (docs/specs/issue-1/design.md)",
	}, hooktest.Texts(r))
}

func TestUnreadableArtifactIsReported(t *testing.T) {
	hc := hooktest.NewContext(t, &runtime.Node{ID: "design", Produces: []string{"design.md"}}, map[string]any{"sections": []any{"A"}})
	hooktest.WriteArtifact(t, hc, "design.md", "## A\n\xff\xfe bad bytes\n")
	r := runValidate(t, hc)
	assert.Equal(t, runtime.Block, r.Status)
	require.Len(t, r.Messages, 1)
	assert.Contains(t, r.Messages[0].Text, "artifact could not be read: ")
	assert.Contains(t, r.Messages[0].Text, "not UTF-8")
}

// §10.22: an optional node with nothing produced is skipped; once present it is gated.
func TestAnOptionalNodeWithNoArtifactIsSkippedNotBlocked(t *testing.T) {
	node := &runtime.Node{ID: "brainstorming", Optional: true, Produces: []string{"brainstorm.md"}}
	params := map[string]any{"locked": true, "sections": []any{"Problem / opportunity", "Open questions"}}
	hc := hooktest.NewContext(t, node, params)
	r := runValidate(t, hc)
	assert.Equal(t, runtime.Skip, r.Status)
	assert.Equal(t, []string{"optional node; no artifact was produced"}, hooktest.Texts(r))

	hooktest.WriteArtifact(t, hc, "brainstorm.md", "---\nstatus: draft\n---\n## Problem / opportunity\nP\n")
	r = runValidate(t, hc)
	assert.Equal(t, runtime.Block, r.Status)
	assert.Len(t, r.Messages, 2)
}

// §10.23 and the verification integration: onlyWhenSkipped entries.
func TestOnlyWhenSkipped(t *testing.T) {
	params := func() map[string]any {
		return map[string]any{"onlyWhenSkipped": "testing-plan.md", "validates": "execution-log.md", "sections": []any{"Verification results"}}
	}
	node := &runtime.Node{ID: "verification"}

	t.Run("dormant when the artifact was not declared skipped", func(t *testing.T) {
		hc := hooktest.NewContext(t, node, params())
		r := runValidate(t, hc)
		assert.Equal(t, runtime.Skip, r.Status)
		assert.Equal(t, []string{"testing-plan.md was not declared skipped"}, hooktest.Texts(r))
	})
	t.Run("dormant when the artifact exists", func(t *testing.T) {
		hc := hooktest.NewContext(t, node, params())
		hc.SkippedArtifacts["testing-plan.md"] = true
		hooktest.WriteArtifact(t, hc, "testing-plan.md", "plan")
		r := runValidate(t, hc)
		assert.Equal(t, runtime.Skip, r.Status)
		assert.Equal(t, []string{"testing-plan.md exists; it is gated where it is declared"}, hooktest.Texts(r))
	})
	t.Run("a planned-absent plan demands the log's Verification results", func(t *testing.T) {
		hc := hooktest.NewContext(t, node, params())
		hc.SkippedArtifacts["testing-plan.md"] = true
		r := runValidate(t, hc)
		assert.Equal(t, []string{"required artifact is missing (docs/specs/issue-1/execution-log.md)"}, hooktest.Texts(r))

		hooktest.WriteArtifact(t, hc, "execution-log.md", "## Review cycles\nx\n")
		r = runValidate(t, hc)
		assert.Equal(t, []string{"required section is missing: Verification results (docs/specs/issue-1/execution-log.md)"}, hooktest.Texts(r))

		hooktest.WriteArtifact(t, hc, "execution-log.md", "## Verification results\nall green\n")
		r = runValidate(t, hc)
		assert.Equal(t, runtime.Pass, r.Status)
	})
	t.Run("an entry naming nothing", func(t *testing.T) {
		p := params()
		p["onlyWhenSkipped"] = " | "
		hc := hooktest.NewContext(t, node, p)
		r := runValidate(t, hc)
		assert.Equal(t, runtime.Skip, r.Status)
		assert.Equal(t, []string{`onlyWhenSkipped names no artifact: " | "`}, hooktest.Texts(r))
	})
}

// §10.36: the implementation gate tolerates a planned-absent tasks.md and
// still gates a present one.
func TestImplementationGateAndPlannedAbsence(t *testing.T) {
	node := &runtime.Node{ID: "implementation", Produces: []string{"tasks.md"}}
	params := map[string]any{"checkmarks": "complete"}

	hc := hooktest.NewContext(t, node, params)
	hc.SkippedArtifacts["tasks.md"] = true
	r := runValidate(t, hc)
	assert.Equal(t, runtime.Skip, r.Status)
	assert.Equal(t, []string{"artifact(s) authored by a declared-skipped node; absence is planned"}, hooktest.Texts(r))

	hooktest.WriteArtifact(t, hc, "tasks.md", "## Task list\n- [ ] a\n- [ ] b\n- [ ] c\n")
	r = runValidate(t, hc)
	assert.Equal(t, runtime.Block, r.Status)
	assert.Equal(t, []string{"3 task(s) still unticked (docs/specs/issue-1/tasks.md)"}, hooktest.Texts(r))

	// Without the planned absence the same node demands the file.
	hc = hooktest.NewContext(t, node, params)
	r = runValidate(t, hc)
	assert.Equal(t, []string{"required artifact is missing (docs/specs/issue-1/tasks.md)"}, hooktest.Texts(r))
}

func TestAPlannedAbsenceNeedsEveryAlternative(t *testing.T) {
	hc := hooktest.NewContext(t, requirementsNode(), requirementsParams())
	hc.SkippedArtifacts["requirements.md"] = true
	r := runValidate(t, hc)
	assert.Equal(t, runtime.Block, r.Status)
	assert.Contains(t, r.Messages[0].Text, "required artifact is missing — write one of")
}

func TestValidatePathTraversalIsRefused(t *testing.T) {
	for _, bad := range []string{"../../etc/passwd", "/etc/passwd", "../../../secret.md|design.md"} {
		t.Run(bad, func(t *testing.T) {
			hc := hooktest.NewContext(t, &runtime.Node{ID: "n"}, map[string]any{"validates": bad, "sections": []any{"top"}})
			// A file that would satisfy the check if it were read.
			require.NoError(t, os.WriteFile(filepath.Join(hc.Repo, "secret.md"), []byte("## top\nsecret\n"), 0o600))
			r := runValidate(t, hc)
			assert.Equal(t, runtime.Block, r.Status)
			assert.False(t, r.Retriable)
			require.NotEmpty(t, r.Messages)
			assert.Contains(t, r.Messages[0].Text, "is not a file inside the spec folder")
			assert.NotContains(t, strings.Join(hooktest.Texts(r), "\n"), "secret\n")
			assert.Nil(t, r.Data["artifacts"])
		})
	}
}

func TestValidateRejectsAMalformedFrontMatterParam(t *testing.T) {
	hc := hooktest.NewContext(t, &runtime.Node{ID: "n", Produces: []string{"a.md"}}, map[string]any{"frontMatter": "status=approved"})
	_, err := ValidateArtifacts(hc)
	assert.ErrorContains(t, err, "frontMatter must be a mapping")
}

func TestValidateSeesFilesChangeBetweenCalls(t *testing.T) {
	hc := hooktest.NewContext(t, &runtime.Node{ID: "design", Produces: []string{"design.md"}}, map[string]any{"locked": true})
	hooktest.WriteArtifact(t, hc, "design.md", "---\nstatus: approved\n---\n")
	assert.Equal(t, runtime.Pass, runValidate(t, hc).Status)
	hooktest.WriteArtifact(t, hc, "design.md", "---\nstatus: draft\n---\n")
	assert.Equal(t, runtime.Block, runValidate(t, hc).Status)
}

func TestOptionalNodeWithNothingProducedDeclaresWhenAbsent(t *testing.T) {
	hc := hooktest.NewContext(t, &runtime.Node{ID: "brainstorming", Optional: true, Produces: []string{"brainstorm.md"}},
		map[string]any{"sections": []any{"Open questions"}, "whenAbsent": "nothing-produced"})
	res, err := ValidateArtifacts(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Skip, res.Status)
	assert.Equal(t, "nothing-produced", res.Outcome())
}
