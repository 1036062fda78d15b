package sessions

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/workspace"
)

// promptOf is the prompt session id was launched with.
func (r *rig) promptOf(id string) string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.state, "sessions", id, "prompt.md"))
	require.NoError(r.t, err)
	return string(b)
}

// A session that ends with its node unmet and no commit is relaunched once,
// the next session told so; the second in a row escalates, whatever
// relaunch.max still allows.
func TestASessionThatChangesNothingIsRelaunchedOnceThenEscalates(t *testing.T) {
	r := newRig(t)
	s := r.supervisorWith(Config{Relaunch: Relaunch{Max: 5, BackoffSeconds: 1, MaxBackoffSeconds: 1}}, nil, workspace.Progress{Env: r.env})
	w := r.want("issue-3", "design", "fake: fail-runs=99\n", 1)

	rep, err := s.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	require.Len(t, rep.Started, 1)
	first := rep.Started[0].Session
	rep = cycleUntil(t, s, fixed(w), exited)
	require.Len(t, rep.Waiting, 1, "the first idle session is relaunched")
	assert.Empty(t, rep.Escalations)
	r.clock.Advance(2 * time.Second)

	rep, err = s.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	require.Len(t, rep.Started, 1)
	second := rep.Started[0].Session
	assert.NotContains(t, r.promptOf(first), "ended without a commit")
	assert.Contains(t, r.promptOf(second), "The previous session for design ("+first+", exit 1) ended without a commit: nothing it did reached the branch. "+
		"Do the work and commit it before you claim (the loop pushes it). If this session also ends without a commit, the loop stops relaunching and escalates the item to a human.\n\nfake: fail-runs=99")

	rep = cycleUntil(t, s, fixed(w), exited)
	require.Len(t, rep.Escalations, 1, "the second idle session in a row escalates")
	assert.Equal(t, "the session for design ended 2 times in a row without a commit (last: exit 1); a session that changes nothing is relaunched once, then the item escalates",
		rep.Escalations[0].Reason)
	r.clock.Advance(time.Hour)
	rep, err = s.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	assert.Empty(t, rep.Started, "nothing more is launched")
	assert.Equal(t, 2, r.runs("issue-3"))
}

// A session that commits but leaves its node unmet is relaunched by the
// ordinary rule, with no note; an idle session after it is relaunched once.
func TestASessionThatCommitsIsNotIdle(t *testing.T) {
	r := newRig(t)
	s := r.supervisorWith(Config{Relaunch: Relaunch{Max: 5, BackoffSeconds: 1, MaxBackoffSeconds: 1}}, nil, workspace.Progress{Env: r.env})
	w := r.want("issue-4", "design", "artifact: docs/specs/issue-4/design.md\n", 1)
	for run := 1; run <= 2; run++ {
		rep, err := s.Cycle(ctx, []Want{w})
		require.NoError(t, err)
		require.Len(t, rep.Started, 1, "run %d", run)
		assert.NotContains(t, r.promptOf(rep.Started[0].Session), "without a commit")
		rep = cycleUntil(t, s, fixed(w), exited)
		assert.Empty(t, rep.Escalations, "a session that committed is relaunched (run %d)", run)
		r.clock.Advance(2 * time.Second)
	}
	assert.True(t, r.committed("issue-4", "docs/specs/issue-4/design.md"))
}
