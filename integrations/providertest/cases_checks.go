package providertest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
)

// ciStep seeds one status ("status") or check run ("run") on shaA.
type ciStep struct {
	kind, name, state, conclusion string
}

func caseReadChecks(t *testing.T, h0 *rig) {
	const url = "https://ci.example.com/run/1"
	tests := []struct {
		name        string
		steps       []ciStep
		wantVerdict integrations.ChecksVerdict
		wantFailing []string
		wantPending []string
	}{
		{name: "no check yet is pending, never green", wantVerdict: integrations.ChecksPending},
		{name: "statuses and runs that passed are green", steps: []ciStep{
			{"status", "ci/lint", "success", ""}, {"run", "build", "completed", "success"},
			{"run", "docs", "completed", "neutral"}, {"run", "deploy", "completed", "skipped"},
		}, wantVerdict: integrations.ChecksGreen},
		{name: "a pending status waits", steps: []ciStep{{"status", "ci/lint", "pending", ""}, {"run", "build", "completed", "success"}},
			wantVerdict: integrations.ChecksPending, wantPending: []string{"ci/lint"}},
		{name: "a run in progress waits", steps: []ciStep{{"run", "build", "in_progress", ""}, {"run", "test", "queued", ""}},
			wantVerdict: integrations.ChecksPending, wantPending: []string{"build", "test"}},
		{name: "a failed run fails even beside a pending one", steps: []ciStep{{"run", "build", "completed", "failure"}, {"status", "ci/lint", "pending", ""}},
			wantVerdict: integrations.ChecksFailing, wantFailing: []string{"build"}, wantPending: []string{"ci/lint"}},
		{name: "timed out, cancelled and action required fail", steps: []ciStep{
			{"run", "a", "completed", "timed_out"}, {"run", "b", "completed", "cancelled"}, {"run", "c", "completed", "action_required"},
		}, wantVerdict: integrations.ChecksFailing, wantFailing: []string{"a", "b", "c"}},
		{name: "an error status fails", steps: []ciStep{{"status", "ci/x", "error", ""}},
			wantVerdict: integrations.ChecksFailing, wantFailing: []string{"ci/x"}},
		{name: "a conclusion GitHub may add later fails closed", steps: []ciStep{{"run", "new", "completed", "something_new"}},
			wantVerdict: integrations.ChecksFailing, wantFailing: []string{"new"}},
		{name: "the newest run of a name counts", steps: []ciStep{{"run", "build", "completed", "failure"}, {"run", "build", "completed", "success"}},
			wantVerdict: integrations.ChecksGreen},
		{name: "the newest status of a context counts", steps: []ciStep{{"status", "ci/x", "failure", ""}, {"status", "ci/x", "success", ""}},
			wantVerdict: integrations.ChecksGreen},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := h0
			if tc.name != tests[0].name {
				h = freshRig(t, h0)
			}
			reader := h.p.(integrations.CheckReader)
			h.f.SetCheckRun(GitHubRepo, shaB, "other-commit", "completed", "failure", url)
			for _, s := range tc.steps {
				if s.kind == "status" {
					h.f.SetStatus(GitHubRepo, shaA, s.name, s.state, url)
				} else {
					h.f.SetCheckRun(GitHubRepo, shaA, s.name, s.state, s.conclusion, url)
				}
			}
			got, err := reader.ReadChecks(h.ctx, "octo", "widgets", shaA)
			require.NoError(t, err)
			assert.Equal(t, shaA, got.SHA)
			assert.Equal(t, tc.wantVerdict, got.Verdict)
			names := func(cs []integrations.Check) []string {
				var out []string
				for _, c := range cs {
					out = append(out, c.Name)
					assert.Equal(t, url, c.URL, "every check carries its URL")
				}
				return out
			}
			assert.Equal(t, tc.wantFailing, names(got.InState(integrations.CheckFailed)))
			assert.Equal(t, tc.wantPending, names(got.InState(integrations.CheckPending)))
		})
	}
	before := h0.f.RequestCount()
	_, err := h0.p.(integrations.CheckReader).ReadChecks(h0.ctx, "octo", "widgets", "main")
	assert.ErrorIs(t, err, integrations.ErrInvalid, "checks are read for a commit SHA, never a moving branch")
	assert.Equal(t, before, h0.f.RequestCount())
}

// freshRig builds another rig like h for a sub-case that needs an
// empty fake.
func freshRig(t *testing.T, h *rig) *rig {
	t.Helper()
	require.NotNil(t, h.target, "the rig knows its target")
	return setup(t, *h.target)
}
