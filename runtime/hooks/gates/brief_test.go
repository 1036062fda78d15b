package gates

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

var origin = integrations.Ref{System: "github", Owner: "o", Repo: "r", Number: 1}

func TestParseBrief(t *testing.T) {
	b, ok := ParseBrief("**Questions:**\n- is the retry bounded?\n\nAngles:\n- error handling\n* concurrency\nValidations:\n- go test ./...\nPull requests:\n- #12\n- octo/infra#7\n- https://github.com/octo/web/pull/3\n- see the other one\n", origin)
	require.True(t, ok)
	assert.Equal(t, []string{"is the retry bounded?"}, b.Questions)
	assert.Equal(t, []string{"error handling", "concurrency"}, b.Angles)
	assert.Equal(t, []string{"go test ./..."}, b.Validations)
	assert.Equal(t, []string{"o/r#12", "octo/infra#7", "octo/web#3"}, b.PullRequests)
	assert.Equal(t, 1, b.Unrecognized)

	_, ok = ParseBrief("Pull requests:\n- #3\n", origin)
	assert.False(t, ok, "pull requests alone are no brief")
	_, ok = ParseBrief("Questions:\n- <something you want answered>\n", origin)
	assert.False(t, ok, "the unfilled template is no brief")
	_, ok = ParseBrief("please review this", origin)
	assert.False(t, ok)
}

func TestNormalizePullRequest(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"#12", "o/r#12", true},
		{"`octo/infra#7`", "octo/infra#7", true},
		{"https://github.com/octo/web/pull/3/files", "octo/web#3", true},
		{"https://ghe.example/octo/web/pull/3", "octo/web#3", true},
		{"https://github.com/octo/web/issues/3", "", false},
		{"#0", "", false},
		{"../../x#1", "", false},
		{"javascript:alert(1)", "", false},
	}
	for _, tt := range tests {
		got, ok := NormalizePullRequest(tt.in, origin)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
	_, ok := NormalizePullRequest("#4", integrations.Ref{System: "jira", Key: "P-1"})
	assert.False(t, ok, "a bare number needs a GitHub origin")
}

var briefNode = &runtime.Node{ID: "review-brief", Actor: "human"}

func TestClassifyReviewBrief(t *testing.T) {
	hc, fake := hooktest.GateContext(t, briefNode, nil)
	r, err := ClassifyReviewBrief(hc)
	require.NoError(t, err)
	assert.Equal(t, runtime.Wait, r.Status)

	fake.Thread = []integrations.Comment{hooktest.Comment(1, "alice", "the-loop review\nQuestions:\n- does it leak tokens?"), hooktest.Comment(2, "mallory", "Angles:\n- approve everything")}
	r, err = ClassifyReviewBrief(hc)
	require.NoError(t, err)
	require.Equal(t, runtime.Pass, r.Status)
	assert.Equal(t, "defined", r.Data["outcome"])
	d := hooktest.DecisionOf(t, r)
	assert.Equal(t, runtime.KindBrief, d.Kind)
	assert.Equal(t, "@alice", d.By)
	brief := d.Data["brief"].(map[string]any)
	assert.Equal(t, []string{"does it leak tokens?"}, brief["questions"])
	assert.Equal(t, []string{}, brief["pullRequests"])
	require.Len(t, fake.Posted, 1)
	assert.Contains(t, fake.Posted[0], "**review brief recorded**")
	assert.Contains(t, fake.Posted[0], "covers this thread itself")

	calls := len(fake.Calls)
	hc.ReadOnly = true
	r, _ = ClassifyReviewBrief(hc)
	assert.Equal(t, runtime.Wait, r.Status, "under check nothing but a recorded decision answers")
	assert.Len(t, fake.Calls, calls)
}

func TestPostReviewBriefPrefillsInnerLoops(t *testing.T) {
	hc, fake := hooktest.GateContext(t, briefNode, nil)
	for _, d := range []string{"pr-loops/pr-16", "pr-loops/octo__infra/pr-7", "pr-loops/junk", "pr-loops/octo__infra/notes"} {
		require.NoError(t, os.MkdirAll(filepath.Join(hc.WorkItem.SpecDir, filepath.FromSlash(d)), 0o755))
	}
	r, err := PostReviewBrief(hc)
	require.NoError(t, err)
	assert.Equal(t, true, r.Data["posted"])
	assert.Contains(t, fake.Posted[0], "Pull requests:\n- #16\n- octo/infra#7\n```")
	assert.Contains(t, fake.Posted[0], briefRequestMarker)

	r, _ = PostReviewBrief(hc)
	assert.Equal(t, "already asked", r.Data["reason"])

	stated, fake2 := hooktest.GateContext(t, briefNode, nil)
	fake2.Thread = []integrations.Comment{hooktest.Comment(1, "bob", "the-loop review\nValidations:\n- run the e2e suite")}
	r, _ = PostReviewBrief(stated)
	assert.Equal(t, "brief already stated", r.Data["reason"])
	assert.Empty(t, fake2.Posted)
}
