package sessions

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/internal/proc"
	"github.com/the-loop/the-loop/store"
)

// running lists the sessions the store still records as running.
func (r *rig) running() []store.Session {
	r.t.Helper()
	recs, err := r.store.ListSessions(context.Background(), store.SessionFilter{State: store.SessionRunning})
	require.NoError(r.t, err)
	return recs
}

// Fault: SIGTERM reaches the poller and, as systemd's control-group kill
// does, the session at the same moment. The cycle in flight, its context
// cancelled, reaps the session that ended: its end is recorded all the
// same, and Shutdown leaves nothing recorded as running.
func TestACancelledCycleStillRecordsTheSessionsThatEnded(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(Config{}, nil)
	w := r.want("issue-20", "design", "fake: hang-runs=9\n", 1)
	rep, err := s.Cycle(context.Background(), []Want{w})
	require.NoError(t, err)
	require.Len(t, rep.Started, 1)
	r.ready("issue-20", 1)

	require.NoError(t, syscall.Kill(-rep.Started[0].PID, syscall.SIGTERM))
	<-s.Changed()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	rep, _ = s.Cycle(cancelled, []Want{w})
	assert.Empty(t, rep.Started, "a cancelled cycle launches nothing")
	require.NoError(t, s.Shutdown(context.Background()))
	assert.Empty(t, r.running(), "no session is left recorded as running")
	rec, _, err := r.store.GetSession(context.Background(), "s-001")
	require.NoError(t, err)
	assert.Equal(t, store.SessionExited, rec.State)
	assert.Equal(t, 1, r.runs("issue-20"), "nothing was launched after the cancellation")
}

// stuckRunner starts sessions that never end, whatever they are told: a
// process the kernel cannot kill (stuck in uninterruptible sleep).
type stuckRunner struct{}

func (stuckRunner) Name() string   { return RunnerProcess }
func (stuckRunner) Terminal() bool { return false }
func (stuckRunner) Start(context.Context, RunnerLaunch) (Handle, error) {
	return &stuckHandle{done: make(chan struct{})}, nil
}
func (stuckRunner) Reclaim(context.Context, store.Session) (bool, error) { return false, nil }

type stuckHandle struct{ done chan struct{} }

func (h *stuckHandle) Pid() int              { return 424242 }
func (h *stuckHandle) Done() <-chan struct{} { return h.done }
func (h *stuckHandle) Exit() proc.ExitStatus { return proc.ExitStatus{Code: -1} }
func (h *stuckHandle) Stop(time.Duration)    {}
func (h *stuckHandle) Attach() string        { return "" }

// Fault: a session outlives the shutdown's deadline. Its record does not
// stay "running": it is recorded lost, saying it may still run.
func TestShutdownRecordsWhatOutlivesItsDeadline(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(Config{}, stuckRunner{})
	rep, err := s.Cycle(context.Background(), []Want{r.want("issue-21", "design", "work design\n", 1)})
	require.NoError(t, err)
	require.Len(t, rep.Started, 1, "%+v", rep)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	assert.Error(t, s.Shutdown(ctx), "the shutdown says a session did not end")
	assert.Empty(t, r.running())
	rec, _, err := r.store.GetSession(context.Background(), "s-001")
	require.NoError(t, err)
	assert.Equal(t, store.SessionLost, rec.State)
	assert.Equal(t, "the supervisor shut down and its process (pid 424242) did not end within the stop grace; it may still run", rec.Reason)
}
