package handoff_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/handoff/handofftest"
)

func arts(names ...string) []handoff.Artifact {
	out := []handoff.Artifact{}
	for _, n := range names {
		out = append(out, handoff.Artifact{Name: n, SHA256: zeroHash})
	}
	return out
}

func TestStageEntryTable(t *testing.T) {
	cases := []struct {
		stage     string
		artifacts []handoff.Artifact
		want      string
	}{
		{handoff.StageExploring, nil, handoff.NodeBrainstorming},
		{handoff.StageBrainstormSettled, arts(handoff.Brainstorm), handoff.NodeBrainstormApproval},
		{handoff.StageRequirementsSettled, arts(handoff.Brainstorm, handoff.Requirements), handoff.NodeRequirementsApproval},
		{handoff.StageDesignSettled, arts(handoff.Brainstorm, handoff.Requirements, handoff.DesignDoc), handoff.NodeTestPlanning},
		{handoff.StageDesignSettled, arts(handoff.Bugfix, handoff.DesignDoc, handoff.TestingPlan), handoff.NodeDesignApproval},
	}
	for _, tc := range cases {
		t.Run(tc.stage+"→"+tc.want, func(t *testing.T) {
			got, err := handoff.StageEntry(tc.stage, tc.artifacts)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Contains(t, handoff.AllowedEntries(), got)
		})
	}
	_, err := handoff.StageEntry("implementing", nil)
	assert.Equal(t, handoff.CodeUnknownStage, handoff.CodeOf(err))
}

func TestStageTableRowsMatchHelper(t *testing.T) {
	for _, row := range handofftest.Rows() {
		rec, _ := handofftest.Build(row.Spec)
		got, err := handoff.StageEntry(rec.Stage, rec.Artifacts)
		require.NoError(t, err)
		assert.Equal(t, row.Enter, got, row.Spec.Stage)
		assert.NoError(t, handoff.Validate(rec))
	}
}

func TestChainAndProducers(t *testing.T) {
	assert.Equal(t, []string{"brainstorm.md", "requirements.md", "bugfix.md", "design.md", "testing-plan.md"}, handoff.ChainOrder())
	want := map[string]string{
		"brainstorm.md": "brainstorming", "requirements.md": "requirements-definition", "bugfix.md": "requirements-definition",
		"design.md": "design", "testing-plan.md": "test-planning", "notes.md": "", "../design.md": "",
	}
	for name, node := range want {
		assert.Equal(t, node, handoff.ProducerOf(name), name)
	}
	order := handoff.ChainOrder()
	order[0] = "mutated"
	assert.Equal(t, "brainstorm.md", handoff.ChainOrder()[0], "ChainOrder returns a copy")
}

func TestFurthest(t *testing.T) {
	rec := handoff.Record{Artifacts: arts(handoff.Brainstorm, handoff.Bugfix, handoff.DesignDoc)}
	assert.Equal(t, handoff.DesignDoc, rec.Furthest())
	assert.Equal(t, "", handoff.Record{}.Furthest())
}

func TestHashLF(t *testing.T) {
	lf := handoff.HashLF([]byte("a\nb\n"))
	assert.Equal(t, lf, handoff.HashLF([]byte("a\r\nb\r\n")))
	assert.Equal(t, lf, handoff.HashLF([]byte("a\rb\r")))
	assert.NotEqual(t, lf, handoff.HashLF([]byte("a\nb")))
	// sha256("") is a fixed, published value.
	assert.Equal(t, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", handoff.HashLF(nil))
	assert.Len(t, lf, 64)
	assert.Equal(t, strings.ToLower(lf), lf)
}

func TestValidateBranch(t *testing.T) {
	good := []string{"the-loop/issue-42-x", "the-loop/a/b", "the-loop/v1.2", "the-loop/日本"}
	for _, b := range good {
		assert.NoError(t, handoff.ValidateBranch(b), b)
	}
	bad := map[string]string{
		"":                                     "empty",
		"main":                                 "the-loop/",
		"the-loop/":                            "the-loop/",
		"feature/the-loop/x":                   "the-loop/",
		"-the-loop/x":                          "the-loop/",
		"the-loop/../main":                     "..",
		"the-loop/.hidden":                     "starting with '.'",
		"the-loop/x.lock":                      ".lock",
		"the-loop/x/":                          "trailing",
		"the-loop//x":                          "doubled",
		"the-loop/x.":                          "ends with '.'",
		"the-loop/x@{1}":                       "@{",
		"the-loop/a b":                         "' '",
		"the-loop/a~1":                         "'~'",
		"the-loop/a^":                          "'^'",
		"the-loop/a:b":                         "':'",
		"the-loop/a?":                          "'?'",
		"the-loop/a*":                          "'*'",
		"the-loop/a[":                          "'['",
		"the-loop/a\\b":                        "'\\\\'",
		"the-loop/a\x01":                       "control",
		"the-loop/a\x7f":                       "control",
		"the-loop/" + strings.Repeat("x", 200): "longer than",
	}
	for b, msg := range bad {
		err := handoff.ValidateBranch(b)
		require.Error(t, err, "%q", b)
		assert.Equal(t, handoff.CodeBadBranch, handoff.CodeOf(err))
		assert.Contains(t, err.Error(), msg, "%q", b)
	}
}

func TestValidateBranchRefusesBidiAndZeroWidth(t *testing.T) {
	for _, b := range []string{"the-loop/issue-\u202e42", "the-loop/issue-\u200b42", "the-loop/\u2066x\u2069", "the-loop/a\u00adb",
		"the-loop/a\ufeffb", "the-loop/a\u2028b", "the-loop/a\u0085b", "the-loop/a\u00a0b"} {
		err := handoff.ValidateBranch(b)
		require.Error(t, err, "%q", b)
		assert.Contains(t, err.Error(), "invisible, bidirectional or unprintable", "%q", b)
	}
}
