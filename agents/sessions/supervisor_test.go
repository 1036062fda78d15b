package sessions

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/store"
)

var ctx = context.Background()

// untilPushed is the poller's view: the item stands on node until the
// artifact is on its remote branch.
func (r *rig) untilPushed(w Want, artifact string) func() []Want {
	return func() []Want {
		if r.committed(w.WorkItem, artifact) {
			return nil
		}
		return []Want{w}
	}
}

func TestSupervisorRelaunchesASessionKilledMidNode(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(Config{}, nil)
	const artifact = "docs/specs/issue-1/design.md"
	w := r.want("issue-1", "design", "Write the design.\nartifact: "+artifact+"\nfake: hang-runs=1 turns=2 tokens=300 cost=0.05\n", 1)
	w.Model = "opus"
	wants := r.untilPushed(w, artifact)

	rep, err := s.Cycle(ctx, wants())
	require.NoError(t, err)
	require.Len(t, rep.Started, 1)
	first := rep.Started[0]
	assert.Equal(t, 1, first.Attempt)
	assert.Greater(t, first.PID, 0)
	r.ready("issue-1", 1)

	rep, err = s.Cycle(ctx, wants())
	require.NoError(t, err)
	assert.Empty(t, rep.Started, "one live session per item")
	require.Len(t, rep.Live, 1)
	assert.Equal(t, 2, rep.Live[0].Usage.Turns, "usage is read from the transcript while the session runs")
	rec, _, err := r.store.GetSession(ctx, first.Session)
	require.NoError(t, err)
	assert.Equal(t, int64(300), rec.Tokens)
	assert.Contains(t, strings.Join(rec.Argv, " "), "--model opus", "the launched argv carries the item's model")

	require.NoError(t, syscall.Kill(-first.PID, syscall.SIGKILL)) // the session dies mid-node
	rep = cycleUntil(t, s, wants, exited)
	assert.Equal(t, "killed by SIGKILL", rep.Exited[0].ExitStatus)
	assert.Equal(t, store.SessionExited, rep.Exited[0].State)
	require.Len(t, rep.Waiting, 1, "relaunched only after the backoff")
	assert.Equal(t, r.clock.Now().Add(30*time.Second), rep.Waiting[0].Until)

	r.clock.Advance(31 * time.Second)
	rep, err = s.Cycle(ctx, wants())
	require.NoError(t, err)
	require.Len(t, rep.Started, 1)
	assert.Equal(t, 2, rep.Started[0].Attempt)

	rep = cycleUntil(t, s, wants, exited)
	assert.Equal(t, "exit 0", rep.Exited[0].ExitStatus)
	// The cycle that saw the exit may have been handed its wants before the
	// session pushed; the next one is handed what holds after it.
	rep, err = s.Cycle(ctx, wants())
	require.NoError(t, err)
	assert.Empty(t, rep.Waiting, "the node is met: no relaunch")
	assert.Empty(t, rep.Started)
	assert.True(t, r.committed("issue-1", artifact))
	body := r.git(r.trees["issue-1"].Dir, "show", "refs/heads/the-loop/issue-1:"+artifact)
	assert.Contains(t, body, `run 2 (model "opus"`)

	assert.Equal(t, []string{"session.started", "session.exited", "session.started", "session.relaunched", "session.exited"}, r.events("issue-1"))
	all, err := r.store.ListSessions(ctx, store.SessionFilter{Repo: "octo/widgets", WorkItem: "issue-1"})
	require.NoError(t, err)
	require.Len(t, all, 2)
	assert.Equal(t, store.SessionExited, all[0].State)
	assert.Equal(t, "exit 0", all[0].ExitStatus)
	assert.Equal(t, 0.05, all[0].CostUSD, "the final result's cost is recorded")
	assert.Equal(t, "fake-issue-1-2", all[0].HarnessSession)
}

func TestSupervisorEscalatesAfterNRelaunches(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(Config{Relaunch: Relaunch{Max: 2, BackoffSeconds: 10, MaxBackoffSeconds: 15}}, nil)
	w := r.want("issue-2", "implementation", "artifact: src/x.go\nfake: fail-runs=99\n", 1)
	var escalation *Escalation
	for launch := 1; launch <= 3; launch++ {
		rep, err := s.Cycle(ctx, []Want{w})
		require.NoError(t, err)
		require.Len(t, rep.Started, 1, "launch %d", launch)
		assert.Equal(t, launch, rep.Started[0].Attempt)
		rep = cycleUntil(t, s, fixed(w), exited)
		assert.Equal(t, "exit 1", rep.Exited[0].ExitStatus)
		if launch < 3 {
			require.Len(t, rep.Waiting, 1)
			assert.Equal(t, r.clock.Now().Add(time.Duration(min(10<<(launch-1), 15))*time.Second), rep.Waiting[0].Until, "bounded backoff")
			r.clock.Advance(20 * time.Second)
			continue
		}
		require.Len(t, rep.Escalations, 1)
		escalation = &rep.Escalations[0]
	}
	assert.Equal(t, "implementation", escalation.Node)
	assert.Equal(t, 3, escalation.Launches)
	assert.Equal(t, "exit 1", escalation.LastExit)
	assert.Contains(t, escalation.Reason, "ended 3 times with the node unmet (last: exit 1); no more relaunches after 2")

	for i := 0; i < 3; i++ {
		r.clock.Advance(time.Hour)
		rep, err := s.Cycle(ctx, []Want{w})
		require.NoError(t, err)
		assert.Empty(t, rep.Started)
		require.Len(t, rep.Held, 1)
		assert.Contains(t, rep.Held[0].Reason, "no more relaunches")
		assert.Empty(t, rep.Escalations, "escalated once")
	}
	assert.Equal(t, 3, r.runs("issue-2"))
	evs := r.events("issue-2")
	assert.Equal(t, 1, count(evs, "session.refused"), "one refusal, not one per cycle: %v", evs)
	assert.Equal(t, 2, count(evs, "session.relaunched"))

	// A human resets the item: it may launch again.
	s.Reset("octo/widgets", "issue-2")
	rep, err := s.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	require.Len(t, rep.Started, 1)
	assert.Equal(t, 1, rep.Started[0].Attempt)
}

func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

func TestSupervisorCapsSessionsAndQueuesInArmingOrder(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(Config{Max: 2}, nil)
	hang := "fake: hang-runs=9\n"
	a, b, c := r.want("issue-a", "design", hang, 3), r.want("issue-b", "design", hang, 1), r.want("issue-c", "design", hang, 2)
	rep, err := s.Cycle(ctx, []Want{a, b, c})
	require.NoError(t, err)
	require.Len(t, rep.Started, 2)
	assert.Equal(t, []string{"issue-b", "issue-c"}, []string{rep.Started[0].WorkItem, rep.Started[1].WorkItem})
	assert.Equal(t, []Queued{{Repo: "octo/widgets", WorkItem: "issue-a", Node: "design", Position: 1}}, rep.Queued)

	for i := 0; i < 3; i++ {
		rep, err = s.Cycle(ctx, []Want{a, b, c})
		require.NoError(t, err)
		assert.Empty(t, rep.Started)
		assert.Len(t, rep.Live, 2)
	}

	// issue-b leaves its agent node: its session may wrap up for the
	// drain time, then it is stopped and the slot goes to the next in
	// arming order.
	rep, err = s.Cycle(ctx, []Want{a, c})
	require.NoError(t, err)
	assert.Empty(t, rep.Started, "still draining")
	r.clock.Advance(120 * time.Second)
	rep = cycleUntil(t, s, fixed(a, c), func(rep Report) bool { return len(rep.Started) > 0 })
	assert.Equal(t, "issue-a", rep.Started[0].WorkItem)
	stopped, err := r.store.ListSessions(ctx, store.SessionFilter{Repo: "octo/widgets", WorkItem: "issue-b"})
	require.NoError(t, err)
	require.Len(t, stopped, 1)
	assert.Equal(t, store.SessionStopped, stopped[0].State)
	assert.Equal(t, "the item no longer stands on an agent node", stopped[0].Reason)
	assert.Equal(t, "killed by SIGTERM", stopped[0].ExitStatus)
}

func TestSupervisorStopsASessionAtItsTimeLimit(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(Config{TimeLimitSeconds: 60}, nil)
	w := r.want("issue-3", "design", "fake: hang-runs=9\n", 1)
	rep, err := s.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	require.Len(t, rep.Started, 1)
	r.ready("issue-3", 1)

	r.clock.Advance(59 * time.Second)
	rep, err = s.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	assert.Empty(t, rep.Live[0].Reason, "within the limit")

	r.clock.Advance(2 * time.Second)
	rep = cycleUntil(t, s, fixed(w), exited)
	assert.Equal(t, store.SessionTimedOut, rep.Exited[0].State)
	assert.Contains(t, rep.Exited[0].Reason, "past the time limit of 1m0s")
	require.Len(t, rep.Waiting, 1, "a timed-out session counts as a failed run and is relaunched after the backoff")
	assert.Contains(t, rep.Waiting[0].LastExit, "timed out")
	assert.Equal(t, []string{"session.started", "session.timed_out", "session.exited"}, r.events("issue-3"))
}

// overBudget starts issue-4's session at node, which reports 4500 tokens
// against a budget of 1000, and returns the supervisor, the want and the
// escalation of the cycle that saw it.
func overBudget(t *testing.T, r *rig, node string) (*Supervisor, Want, Escalation) {
	t.Helper()
	s := r.supervisor(Config{Budget: Budget{Tokens: 1000}}, nil)
	w := r.want("issue-4", node, "fake: hang-runs=9 turns=3 tokens=4500\n", 1)
	rep, err := s.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	require.Len(t, rep.Started, 1)
	r.ready("issue-4", 1)
	rep, err = s.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	require.Len(t, rep.Escalations, 1)
	return s, w, rep.Escalations[0]
}

func TestSupervisorStopsAnItemOverBudgetAndEscalatesWithFigures(t *testing.T) {
	r := newRig(t)
	s, w, e := overBudget(t, r, "implementation")
	assert.Equal(t, "octo/widgets issue-4 is over its session budget: 4500 tokens of 1000 allowed", e.Reason)
	assert.Equal(t, Figures{Turns: 3, Tokens: 4500, UnknownCost: 1}, e.Spent, "the live session has reported no cost yet: unknown, not $0")
	assert.Equal(t, Budget{Tokens: 1000}, e.Budget)

	rep := cycleUntil(t, s, fixed(w), exited)
	assert.Equal(t, store.SessionOverBudget, rep.Exited[0].State)
	assert.Empty(t, rep.Waiting, "an over-budget item is not relaunched")
	for i := 0; i < 2; i++ {
		r.clock.Advance(time.Hour)
		rep, err := s.Cycle(ctx, []Want{w})
		require.NoError(t, err)
		assert.Empty(t, rep.Started)
		require.Len(t, rep.Held, 1)
		assert.Contains(t, rep.Held[0].Reason, "over its session budget")
	}
	sp, err := r.store.ItemSpend(ctx, "octo/widgets", "issue-4")
	require.NoError(t, err)
	assert.Equal(t, int64(4500), sp.Tokens)

	// A new supervisor (a poller restart) reads the spend back from the
	// store and still refuses.
	s2 := r.supervisor(Config{Budget: Budget{Tokens: 1000}}, nil)
	rep, err = s2.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	assert.Empty(t, rep.Started)
	require.Len(t, rep.Escalations, 1)
	assert.Contains(t, rep.Escalations[0].Reason, "4500 tokens of 1000 allowed")
}

// The session that took the item over its budget finished its node before
// it was stopped, so the item moved on and the escalation from the old node
// no longer applied (the engine escalates only from the node an item stands
// at). The hold is the item's, not the node's: the next node's launch is
// refused and escalates again, from that node, once.
func TestAnItemOverBudgetThatMovedOnEscalatesFromItsNewNode(t *testing.T) {
	r := newRig(t)
	s, w, e := overBudget(t, r, "design")
	assert.Equal(t, "design", e.Node)
	cycleUntil(t, s, fixed(w), exited)

	next := r.want("issue-4", "test-planning", "fake: turns=1 tokens=10\n", 1)
	rep, err := s.Cycle(ctx, []Want{next})
	require.NoError(t, err)
	assert.Empty(t, rep.Started, "no session past the budget")
	require.Len(t, rep.Escalations, 1, "the item escalates from the node it stands at")
	assert.Equal(t, "test-planning", rep.Escalations[0].Node)
	assert.Contains(t, rep.Escalations[0].Reason, "over its session budget: 4500 tokens of 1000 allowed")
	assert.Equal(t, int64(4500), rep.Escalations[0].Spent.Tokens)

	rep, err = s.Cycle(ctx, []Want{next})
	require.NoError(t, err)
	assert.Empty(t, rep.Started)
	assert.Empty(t, rep.Escalations, "escalated once per node")
	require.Len(t, rep.Held, 1)
	assert.Contains(t, rep.Held[0].Reason, "over its session budget")
}

func TestSessionEnvironmentCarriesNoPollerSecret(t *testing.T) {
	r := newRig(t)
	secrets := map[string]string{
		"GITHUB_TOKEN": "ghp_poller_secret_1", "THE_LOOP_SIGNING_KEY": "signing_secret_2", "JIRA_API_TOKEN": "jira_secret_3",
		"THE_LOOP_MCP_TOKEN": "mcp_secret_4", "MY_TRACKER_CREDENTIALS_VAR": "tracker_secret_5", "CUSTOM_SECRET_NAME": "custom_secret_6",
		"SSH_AUTH_SOCK": "/tmp/agent_secret_7", "HARMLESS_LOOKING": "parent_only_8",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	s := r.supervisor(Config{}, nil)
	w := r.want("issue-5", "design", "fake: env-dump\n", 1)
	cycleUntil(t, s, fixed(w), exited)
	dump, err := os.ReadFile(filepath.Join(r.fake, "issue-5.env-1"))
	require.NoError(t, err)
	for k, v := range secrets {
		assert.NotContains(t, string(dump), v, "%s reached the session", k)
		assert.NotContains(t, string(dump), k+"=")
	}
	assert.Contains(t, string(dump), "THE_LOOP_WORK_ITEM=issue-5\n")
	assert.Contains(t, string(dump), "THE_LOOP_NODE=design\n")
	assert.Contains(t, string(dump), "PATH="+os.Getenv("PATH")+"\n")
	recs, err := r.store.ListSessions(ctx, store.SessionFilter{Repo: "octo/widgets", WorkItem: "issue-5"})
	require.NoError(t, err)
	for _, v := range secrets {
		assert.NotContains(t, strings.Join(recs[0].Argv, " "), v)
	}
}

func TestSupervisorFollowsTheItemToItsNextNode(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(Config{}, nil)
	design := r.want("issue-6", "design", "fake: hang-runs=9\n", 1)
	rep, err := s.Cycle(ctx, []Want{design})
	require.NoError(t, err)
	require.Len(t, rep.Started, 1)

	planning := design
	planning.Node = "test-planning"
	_, err = s.Cycle(ctx, []Want{planning})
	require.NoError(t, err)
	r.clock.Advance(2 * time.Minute)
	rep = cycleUntil(t, s, fixed(planning), func(rep Report) bool { return len(rep.Started) > 0 })
	assert.Equal(t, "test-planning", rep.Started[0].Node)
	assert.Equal(t, 1, rep.Started[0].Attempt, "a new node starts a new count")
	old, _, err := r.store.GetSession(ctx, "s-001")
	require.NoError(t, err)
	assert.Equal(t, store.SessionStopped, old.State)
	assert.Equal(t, "the item moved from design to test-planning", old.Reason)
}

func TestTwoItemsRunAtOnceInSeparateTrees(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(Config{}, nil)
	a := r.want("issue-7", "design", "artifact: docs/specs/issue-7/design.md\n", 1)
	b := r.want("issue-8", "design", "artifact: docs/specs/issue-8/design.md\n", 2)
	assert.NotEqual(t, a.Workdir, b.Workdir)
	wants := func() []Want {
		var out []Want
		for _, w := range []Want{a, b} {
			if !r.committed(w.WorkItem, "docs/specs/"+w.WorkItem+"/design.md") {
				out = append(out, w)
			}
		}
		return out
	}
	rep, err := s.Cycle(ctx, wants())
	require.NoError(t, err)
	require.Len(t, rep.Started, 2, "both launch in the same cycle")
	cycleUntil(t, s, wants, func(rep Report) bool { return len(wants()) == 0 && len(rep.Live) == 0 })
	assert.True(t, r.committed("issue-7", "docs/specs/issue-7/design.md"))
	assert.True(t, r.committed("issue-8", "docs/specs/issue-8/design.md"))
	assert.False(t, r.committed("issue-7", "docs/specs/issue-8/design.md"), "items never share a branch")
	assert.NoFileExists(t, filepath.Join(a.Workdir, "docs/specs/issue-8/design.md"), "items never share files")
}

func TestOperatorStopHoldsTheItemUntilReset(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(Config{}, nil)
	w := r.want("issue-9", "design", "fake: hang-runs=9\n", 1)
	rep, err := s.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	id := rep.Started[0].Session
	require.NoError(t, s.Stop(ctx, id, "taking it over by hand"))
	assert.ErrorIs(t, s.Stop(ctx, "s-nope", ""), ErrNotLive)
	rep = cycleUntil(t, s, fixed(w), exited)
	assert.Equal(t, store.SessionStopped, rep.Exited[0].State)
	assert.Equal(t, "taking it over by hand", rep.Exited[0].Reason)
	r.clock.Advance(time.Hour)
	rep, err = s.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	assert.Empty(t, rep.Started)
	require.Len(t, rep.Held, 1)
	assert.Contains(t, rep.Held[0].Reason, "operator stopped session "+id)
	s.Reset("octo/widgets", "issue-9")
	rep, err = s.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	assert.Len(t, rep.Started, 1)
}

func TestSupervisorRefusesWhatItCannotLaunch(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(Config{Relaunch: Relaunch{Max: 1, BackoffSeconds: 5, MaxBackoffSeconds: 5}}, nil)
	unknown := r.want("issue-10", "design", "x", 1)
	unknown.Harness = "cursor"
	rep, err := s.Cycle(ctx, []Want{unknown})
	require.NoError(t, err)
	require.Len(t, rep.Escalations, 1)
	assert.Equal(t, `harness "cursor" is not configured; add it under harnesses:`, rep.Escalations[0].Reason)

	_, err = s.Cycle(ctx, []Want{{Repo: "octo/widgets", WorkItem: "issue-11", Node: "design", Harness: "fake", Workdir: "relative"}})
	assert.ErrorContains(t, err, "must be an absolute path")

	// A harness whose program is missing fails to start; that counts like
	// a failed run and escalates once the relaunches are spent.
	s.d.Harnesses["gone"] = harnessGone()
	missing := r.want("issue-12", "design", "x", 1)
	missing.Harness = "gone"
	rep, err = s.Cycle(ctx, []Want{missing})
	require.NoError(t, err)
	require.Len(t, rep.Waiting, 0)
	r.clock.Advance(10 * time.Second)
	rep, err = s.Cycle(ctx, []Want{missing})
	require.NoError(t, err)
	require.Len(t, rep.Escalations, 1)
	assert.Contains(t, rep.Escalations[0].Reason, "could not start")
	assert.Equal(t, []string{"session.refused", "session.refused"}, r.events("issue-12"))
}

func TestShutdownAndRecover(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(Config{}, nil)
	w := r.want("issue-13", "design", "fake: hang-runs=9 turns=2 tokens=70\n", 1)
	rep, err := s.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	pid := rep.Started[0].PID
	r.ready("issue-13", 1)

	// A poller that dies leaves the record running and the process alive;
	// the next supervisor proves the process is its session and stops it.
	s2 := r.supervisor(Config{}, nil)
	lost, err := s2.Recover(ctx)
	require.NoError(t, err)
	require.Len(t, lost, 1)
	assert.Equal(t, store.SessionLost, lost[0].State)
	assert.Equal(t, "the supervisor restarted while it ran; it was stopped", lost[0].Reason)
	assert.Equal(t, int64(70), lost[0].Usage.Tokens(), "figures come from the transcript")
	waitFor(t, "the leftover session to die", func() bool { return syscall.Kill(pid, 0) != nil })

	rep, err = s2.Cycle(ctx, []Want{w})
	require.NoError(t, err)
	require.Len(t, rep.Started, 1)
	require.NoError(t, s2.Shutdown(ctx))
	rec, _, err := r.store.GetSession(ctx, rep.Started[0].Session)
	require.NoError(t, err)
	assert.Equal(t, store.SessionStopped, rec.State)
	assert.Equal(t, "the supervisor shut down", rec.Reason)
	assert.Empty(t, s2.Live())
}

func TestRetireRelievesASessionWhoseNodeWasClaimed(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(Config{}, nil)
	design := r.want("issue-5", "design", "fake: hang-runs=9\n", 1)
	rep, err := s.Cycle(ctx, []Want{design})
	require.NoError(t, err)
	require.Len(t, rep.Started, 1)

	id, working := s.Retire("octo/widgets", "issue-5", "", 0, "design")
	assert.Empty(t, id)
	assert.True(t, working, "a session already works the node: nothing to retire")

	planning := design
	planning.Node = "test-planning"
	id, working = s.Retire("octo/widgets", "issue-5", "", 0, "test-planning")
	assert.Equal(t, "s-001", id)
	assert.False(t, working)
	rep = cycleUntil(t, s, fixed(planning), func(rep Report) bool { return len(rep.Started) > 0 })
	assert.Equal(t, "test-planning", rep.Started[0].Node, "the next session starts at once, without waiting out the drain")
	old, _, err := r.store.GetSession(ctx, "s-001")
	require.NoError(t, err)
	assert.Equal(t, store.SessionStopped, old.State)
	assert.Equal(t, "its node design was claimed and the assignment of test-planning was delivered", old.Reason)
	assert.NotContains(t, r.events("issue-5"), "session.refused", "retiring holds nothing")

	id, _ = s.Retire("octo/widgets", "issue-404", "", 0, "design")
	assert.Empty(t, id)
}
