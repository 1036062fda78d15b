package sessions

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An escalated item that an operator forces back onto the node it
// escalated from (a new visit) launches again, its count started afresh;
// the same visit stays held.
func TestSupervisorLaunchesAgainOnANewVisitToTheNode(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(Config{Relaunch: Relaunch{Max: 1, BackoffSeconds: 10, MaxBackoffSeconds: 10}}, nil)
	w := r.want("issue-2", "implementation", "artifact: src/x.go\nfake: fail-runs=2\n", 1)
	w.Visit = 1
	var rep Report
	for launch := 1; launch <= 2; launch++ {
		r.clock.Advance(20 * time.Second)
		started, err := s.Cycle(ctx, []Want{w})
		require.NoError(t, err)
		require.Len(t, started.Started, 1, "launch %d", launch)
		rep = cycleUntil(t, s, fixed(w), exited)
	}
	require.Len(t, rep.Escalations, 1, "the relaunches are spent")

	r.clock.Advance(time.Hour)
	rep, err := s.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	assert.Empty(t, rep.Started, "the same visit stays held")
	require.Len(t, rep.Held, 1)

	forced := w
	forced.Visit = 2
	rep, err = s.Cycle(ctx, []Want{forced})
	require.NoError(t, err)
	require.Len(t, rep.Started, 1, "a new visit launches again")
	assert.Equal(t, 1, rep.Started[0].Attempt)
	assert.Empty(t, rep.Held)
}
