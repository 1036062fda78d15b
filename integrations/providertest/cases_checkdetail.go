package providertest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
)

// jobLog is a GitHub Actions log: a failing test, the error line, and the
// job's clean-up after it.
const jobLog = "2030-01-01T00:00:00.0000000Z ##[group]Run sh scripts/ci.sh\n" +
	"2030-01-01T00:00:01.0000000Z \x1b[31mFAIL\x1b[0m a cell starting with @ leaves unquoted\n" +
	"2030-01-01T00:00:02.0000000Z ##[error]Process completed with exit code 1.\n" +
	"2030-01-01T00:00:03.0000000Z Post job cleanup.\n"

// failedRun seeds a failed check run on shaA and returns it as ReadChecks
// reads it.
func failedRun(t *testing.T, h *rig, name string, d CheckRunDetail) integrations.Check {
	t.Helper()
	h.f.AddCheckRun(GitHubRepo, shaA, name, "completed", "failure", "https://ci.example.com/"+name, d)
	got, err := h.p.(integrations.CheckReader).ReadChecks(h.ctx, "octo", "widgets", shaA)
	require.NoError(t, err)
	for _, c := range got.All {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("check %s not read", name)
	return integrations.Check{}
}

func caseReadCheckDetails(t *testing.T, h0 *rig) {
	reader := func(h *rig) integrations.CheckDetailReader { return h.p.(integrations.CheckDetailReader) }
	anns := []integrations.Annotation{
		{Path: "README.md", StartLine: 1, EndLine: 1, Level: "notice", Message: "a note"},
		{Path: "export/csv.sh", StartLine: 4, EndLine: 4, Level: "failure", Title: "quote", Message: "a cell starting with @ leaves unquoted"},
		{Path: "export/csv.sh", StartLine: 9, EndLine: 9, Level: "warning", Message: "long line"},
	}
	t.Run("an Actions job: its output, its annotations failures first, and its log's end without the token", func(t *testing.T) {
		h := h0
		c := failedRun(t, h, "build", CheckRunDetail{App: ActionsApp, Title: "1 test failed", Summary: "csv: 1 of 4 failed", Annotations: anns, Log: jobLog})
		assert.Equal(t, []any{ActionsApp, "1 test failed", "csv: 1 of 4 failed", 3}, []any{c.App, c.Title, c.Summary, c.Annotations},
			"the listing carries the run's app, output and annotation count")
		d, err := reader(h).ReadCheckDetails(h.ctx, "octo", "widgets", c)
		require.NoError(t, err)
		require.Len(t, d.Annotations, 3)
		assert.Equal(t, []string{"failure", "warning", "notice"}, []string{d.Annotations[0].Level, d.Annotations[1].Level, d.Annotations[2].Level})
		assert.Equal(t, anns[1], d.Annotations[0])
		assert.Equal(t, "##[group]Run sh scripts/ci.sh\nFAIL a cell starting with @ leaves unquoted\n##[error]Process completed with exit code 1.", d.Log,
			"the log ends at its last error line, without timestamps or colours")
		assert.Equal(t, 3, d.LogLines)
		assert.Empty(t, d.Notes)
		assert.Zero(t, h.f.LogLeaks(), "the log store never receives the token")
	})
	t.Run("a store that ignores the range sends the whole log: its end is kept", func(t *testing.T) {
		h := freshRig(t, h0)
		h.f.IgnoreLogRanges(true)
		long := strings.Repeat("2030-01-01T00:00:00.0000000Z ok line\n", 3000) + jobLog
		c := failedRun(t, h, "build", CheckRunDetail{App: ActionsApp, Log: long})
		d, err := reader(h).ReadCheckDetails(h.ctx, "octo", "widgets", c)
		require.NoError(t, err)
		assert.True(t, strings.HasSuffix(d.Log, "##[error]Process completed with exit code 1."))
		assert.LessOrEqual(t, d.LogLines, 60)
	})
	t.Run("a token without Actions: read gets the annotations and a note saying what to grant", func(t *testing.T) {
		h := freshRig(t, h0)
		h.f.DenyActions(true)
		c := failedRun(t, h, "build", CheckRunDetail{App: ActionsApp, Annotations: anns[1:2], Log: jobLog})
		d, err := reader(h).ReadCheckDetails(h.ctx, "octo", "widgets", c)
		require.NoError(t, err)
		assert.Len(t, d.Annotations, 1)
		assert.Empty(t, d.Log)
		require.Len(t, d.Notes, 1)
		assert.Contains(t, d.Notes[0], "GitHub answered 403 (Resource not accessible by personal access token); the token needs the Actions: read permission")
	})
	t.Run("an expired log is a note", func(t *testing.T) {
		h := freshRig(t, h0)
		h.f.ExpireLogs(true)
		c := failedRun(t, h, "build", CheckRunDetail{App: ActionsApp, Log: jobLog})
		d, err := reader(h).ReadCheckDetails(h.ctx, "octo", "widgets", c)
		require.NoError(t, err)
		assert.Equal(t, []string{"the log of build has expired (410): GitHub keeps job logs for the repository's retention period"}, d.Notes)
	})
	t.Run("another app's run and a commit status: no log, and a note naming where their output is", func(t *testing.T) {
		h := freshRig(t, h0)
		c := failedRun(t, h, "lint", CheckRunDetail{App: "circleci-checks", Summary: "2 problems"})
		d, err := reader(h).ReadCheckDetails(h.ctx, "octo", "widgets", c)
		require.NoError(t, err)
		assert.Equal(t, []string{"lint was reported by circleci-checks, not GitHub Actions, so the loop reads no log of it; its output is at https://ci.example.com/lint"}, d.Notes)
		before := h.f.RequestCount()
		d, err = reader(h).ReadCheckDetails(h.ctx, "octo", "widgets", integrations.Check{Name: "ci/jenkins", Source: integrations.SourceStatus,
			State: integrations.CheckFailed, URL: "https://jenkins.example.com/7", Summary: "3 tests failed"})
		require.NoError(t, err)
		assert.Equal(t, []string{"ci/jenkins is a commit status: GitHub keeps only its state and description; its output is at https://jenkins.example.com/7"}, d.Notes)
		assert.Equal(t, before, h.f.RequestCount(), "a commit status costs no request")
	})
	t.Run("a foreign repository is refused before any request", func(t *testing.T) {
		h := freshRig(t, h0)
		_, err := reader(h).ReadCheckDetails(h.ctx, "octo", "bad/name", integrations.Check{Source: integrations.SourceCheckRun, ID: 1, Annotations: 1})
		assert.ErrorIs(t, err, integrations.ErrInvalid)
		assert.Zero(t, h.f.RequestCount())
	})
}

// checkDetailProbe drives ReadCheckDetails through the failure modes: its
// paged read is the run's annotations.
var checkDetailProbe = pullProbe{
	seed: func(h *rig, n int) (func() (int, error), int) {
		var anns []integrations.Annotation
		for i := range n {
			anns = append(anns, integrations.Annotation{Path: "a.go", StartLine: i + 1, EndLine: i + 1, Level: "failure", Message: fmt.Sprintf("finding %d", i)})
		}
		id := h.f.AddCheckRun(GitHubRepo, shaA, "build", "completed", "failure", "https://ci.example.com", CheckRunDetail{Annotations: anns})
		c := integrations.Check{Name: "build", Source: integrations.SourceCheckRun, State: integrations.CheckFailed, ID: id, App: "other", Annotations: n}
		return func() (int, error) {
			d, err := h.p.(integrations.CheckDetailReader).ReadCheckDetails(h.ctx, "octo", "widgets", c)
			return len(d.Annotations), err
		}, n
	},
	missing: func(h *rig) error {
		_, err := h.p.(integrations.CheckDetailReader).ReadCheckDetails(h.ctx, "octo", "absent",
			integrations.Check{Name: "build", Source: integrations.SourceCheckRun, ID: 99, Annotations: 1})
		return err
	},
	listings: 1, reads: func(r Request) bool { return strings.HasSuffix(r.Path, "/annotations") },
}

func init() { pullProbes[integrations.OpReadCheckDetails] = checkDetailProbe }
