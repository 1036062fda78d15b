package service

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
)

const execute = "the-loop execute"

// A three-item chain is walked in order: each item waits at phase selection
// — its checklist posted, its authorized answer kept — until the item
// before it completes, and is reported as waiting, never as failing.
func TestAThreeItemChainIsWalkedInOrder(t *testing.T) {
	r := newDAGRig(t)
	schema, api, cli := r.issue("Schema"), r.issue("API"), r.issue("CLI")
	r.gh.AddBlocker(api, schema)
	r.gh.AddBlocker(cli, api)
	r.say(schema, "alice", "the-loop start")
	r.say(api, "alice", "the-loop start")
	r.say(cli, "alice", "the-loop start")
	acts := r.cycle()
	for _, id := range []string{"issue-2", "issue-3", "issue-4"} {
		assert.Equal(t, "started", acts[id].Action, "%s: a held item is armed and waits at phase selection", id)
		assert.Equal(t, phaseSelection, r.at(id))
	}
	r.say(schema, "alice", execute)
	r.say(api, "alice", execute)
	r.say(cli, "alice", execute)
	acts = r.cycles(2)
	first := r.at("issue-2")
	assert.NotEqual(t, phaseSelection, first, "the first item has no blocker: its selection is read")
	assert.Equal(t, phaseSelection, r.at("issue-3"), "the second waits for the first")
	assert.Equal(t, phaseSelection, r.at("issue-4"), "the third waits for the second")
	assert.Equal(t, "blocked by #2 (at "+first+")", acts["issue-3"].Dependencies)
	assert.Equal(t, "blocked by #3 (at phase-selection)", acts["issue-4"].Dependencies)
	assert.Equal(t, "wait", acts["issue-3"].Status)

	rep, g := r.check("issue-3", false)
	ps := phaseSelectionOf(rep)
	assert.Equal(t, "wait", ps.Status)
	assert.Contains(t, ps.Messages, "blocked by #2 (at "+first+")")
	require.NotNil(t, rep.Dependencies)
	assert.True(t, rep.Dependencies.Hold)
	assert.NotEmpty(t, rep.Dependencies.ReadAt, "check dates the read from the store")
	assert.False(t, rep.Fails(g, "block"), "a held item is waiting, never failing")
	recomputed, _ := r.check("issue-3", true)
	assert.Equal(t, "wait", phaseSelectionOf(recomputed).Status, "--recompute derives the hold from the recorded read")
	assert.Contains(t, phaseSelectionOf(recomputed).Messages, "blocked by #2 (at "+first+")")

	// The first item is closed as completed: the second leaves phase
	// selection on its kept answer; the third still waits.
	r.done(schema)
	r.cycle()
	assert.NotEqual(t, phaseSelection, r.at("issue-3"), "released when its blocker completes")
	assert.Equal(t, phaseSelection, r.at("issue-4"))
	r.done(api)
	r.cycle()
	assert.NotEqual(t, phaseSelection, r.at("issue-4"))
	assertEvent(t, r, "issue-3", EventDepsHeld)
	assertEvent(t, r, "issue-3", EventDepsReleased)
}

// Removing a dependency in the tracker releases the held item on the next
// cycle.
func TestRemovingADependencyReleasesTheHeldItemOnTheNextCycle(t *testing.T) {
	r := newDAGRig(t)
	a, b := r.issue("A"), r.issue("B")
	r.gh.AddBlocker(b, a)
	r.say(b, "alice", "the-loop start")
	r.cycle()
	r.say(b, "alice", execute)
	acts := r.cycles(2)
	assert.Equal(t, phaseSelection, r.at("issue-3"))
	assert.Equal(t, "blocked by #2 (not started)", acts["issue-3"].Dependencies)

	r.gh.RemoveBlocker(b, a)
	acts = r.cycle()
	assert.Equal(t, "ready", acts["issue-3"].Dependencies)
	assert.NotEqual(t, phaseSelection, r.at("issue-3"), "released on the first cycle that reads the removal")
}

// A blocker added to an item that has started is reported, not enforced;
// added to one that has not, it holds.
func TestANewBlockerHoldsOnlyAnItemThatHasNotStarted(t *testing.T) {
	r := newDAGRig(t)
	started, waiting, late := r.issue("started"), r.issue("waiting"), r.issue("late")
	r.say(started, "alice", "the-loop start")
	r.say(waiting, "alice", "the-loop start")
	r.cycle()
	r.say(started, "alice", execute)
	r.cycle()
	node := r.at("issue-2")
	require.NotEqual(t, phaseSelection, node)

	r.gh.AddBlocker(started, late)
	r.gh.AddBlocker(waiting, late)
	r.say(waiting, "alice", execute)
	acts := r.cycle()
	assert.Equal(t, node, r.at("issue-2"), "work that started is never pulled back")
	assert.Equal(t, "working; blocked by #4 (not started) (reported, not enforced: work had started)", acts["issue-2"].Dependencies)
	assert.Equal(t, phaseSelection, r.at("issue-3"), "an item that has not started is held")
	rep, _ := r.check("issue-2", false)
	require.NotNil(t, rep.Dependencies)
	assert.False(t, rep.Dependencies.Hold)
	assert.Equal(t, "working; blocked by #4 (not started) (reported, not enforced: work had started)", rep.Dependencies.Status)
}

func assertEvent(t *testing.T, r *dagRig, id, name string) {
	t.Helper()
	log, err := r.svc.Events(t.Context(), ItemRequest{Repo: r.repo, WorkItem: id})
	require.NoError(t, err)
	for _, e := range log.Events {
		if e.Name == name {
			return
		}
	}
	t.Errorf("%s: no %s event in %v", id, name, eventNames(log.Events))
}

func eventNames(evs []runtime.EventRecord) []string {
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		out = append(out, e.Name)
	}
	return out
}

// Dependencies are re-read every cycle through conditional requests: a
// cycle in which no ticket changed costs no GitHub quota, and a change is
// seen on the next cycle.
func TestAnIdleDependencyCycleSpendsNoQuota(t *testing.T) {
	r := newDAGRig(t)
	schema, api, cli := r.issue("Schema"), r.issue("API"), r.issue("CLI")
	r.gh.AddBlocker(api, schema)
	r.gh.AddBlocker(cli, api)
	r.gh.AddSubIssue(r.gh.Ticket(), schema)
	for _, ref := range []integrations.Ref{schema, api, cli} {
		r.say(ref, "alice", "the-loop start")
	}
	r.cycles(3)
	quota := r.gh.QuotaRemaining()
	acts := r.cycle()
	assert.Equal(t, quota, r.gh.QuotaRemaining(), "an idle cycle re-reads every dependency for free")
	assert.Equal(t, "blocked by #2 (at phase-selection)", acts["issue-3"].Dependencies)

	r.gh.RemoveBlocker(api, schema)
	acts = r.cycle()
	assert.Equal(t, "ready", acts["issue-3"].Dependencies, "a change is read on the next cycle")
}

// dag.enabled false: no dependency is read, nothing is held.
func TestWithDependenciesOffNothingIsReadOrHeld(t *testing.T) {
	r := newDAGRig(t)
	off := false
	r.svc.cfg.DAG.Enabled = &off
	a, b := r.issue("a"), r.issue("b")
	r.gh.AddBlocker(b, a)
	r.say(b, "alice", "the-loop start")
	r.cycle()
	r.say(b, "alice", execute)
	acts := r.cycle()
	assert.NotEqual(t, phaseSelection, r.at("issue-3"))
	assert.Empty(t, acts["issue-3"].Dependencies)
	assert.Nil(t, r.state("issue-3").Dependencies)
	for _, req := range r.gh.Requests() {
		assert.NotContains(t, req.Path, "/dependencies/", "no dependency listing is read")
	}
}
