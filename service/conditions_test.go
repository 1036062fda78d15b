package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

// testClock is a clock a test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// A condition is raised once, shown by graph status while it lasts, told
// to Slack once it outlasts notify.stuckAfter (and only once), and cleared
// when its step passes; each transition is an event.
func TestAConditionIsShownToldOnceAndCleared(t *testing.T) {
	t.Parallel()
	clock := &testClock{now: time.Now().UTC().Truncate(time.Second)}
	slack := &hooktest.Notifier{}
	r := newTreeDAGRig(t, func(d *Deps) { d.Clock, d.Notifier = clock.Now, slack })
	r.svc.cfg.Notify.StuckAfter = "30m"
	item := r.issue("API")
	r.say(item, "alice", "the-loop start")
	r.cycle()
	tree := r.tree("octo/widgets", "issue-2")
	require.DirExists(t, tree)

	// Work committed in the tree that the remote refuses.
	gitT(t, r.env, tree, "commit", "--quiet", "--allow-empty", "-m", "work the remote refuses")
	hook := filepath.Join(r.remote, "hooks", "pre-receive")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\necho 'frozen' >&2\nexit 1\n"), 0o755))
	r.cycle()
	gs, err := r.svc.Status(context.Background(), ItemRequest{Repo: tree, WorkItem: "issue-2"})
	require.NoError(t, err)
	require.Len(t, gs.Conditions, 1)
	c := gs.Conditions[0]
	assert.Equal(t, runtime.ConditionPushRefused, c.Kind)
	assert.Contains(t, c.Message, "push of the-loop/issue-2-api was refused: the remote refused it (pre-receive hook declined; the remote said: frozen)")
	assert.Equal(t, clearsBy[runtime.ConditionPushRefused], c.Clears)
	assert.Contains(t, gs.GraphContext, "  STUCK: `push-refused` since ")
	assert.Empty(t, slack.Sent, "not yet past notify.stuckAfter")

	clock.add(29 * time.Minute)
	r.cycle()
	assert.Empty(t, slack.Sent)
	clock.add(2 * time.Minute)
	r.cycle()
	require.Len(t, slack.Sent, 1)
	assert.True(t, strings.HasPrefix(slack.Sent[0], EventItemStuck+"|the-loop: issue-2 (github:"), slack.Sent[0])
	assert.Contains(t, slack.Sent[0], "has been stuck for 31m0s: push-refused: push of the-loop/issue-2-api was refused")
	clock.add(time.Hour)
	r.cycle()
	assert.Len(t, slack.Sent, 1, "told once per condition")

	require.NoError(t, os.Remove(hook))
	r.cycle()
	gs, err = r.svc.Status(context.Background(), ItemRequest{Repo: tree, WorkItem: "issue-2"})
	require.NoError(t, err)
	assert.Empty(t, gs.Conditions, "cleared once a push goes through")
	assert.NotContains(t, gs.GraphContext, "STUCK")
	var names []string
	log, err := r.svc.Events(context.Background(), ItemRequest{Repo: tree, WorkItem: "issue-2"})
	require.NoError(t, err)
	for _, e := range log.Events {
		if strings.HasPrefix(e.Name, "condition.") {
			names = append(names, e.Name)
		}
	}
	assert.Equal(t, []string{runtime.EventConditionRaised, runtime.EventConditionNotified, runtime.EventConditionCleared}, names)
}

// The kind of a condition is the error's type, never its text.
func TestConditionOfNamesTheErrorByItsType(t *testing.T) {
	assert.Equal(t, runtime.ConditionCycle, conditionOf(os.ErrNotExist))
	assert.Equal(t, runtime.ConditionTracker, conditionOf(ErrNoIntegration))
	assert.Equal(t, runtime.ConditionCycle, conditionOf(errorString("push of x was refused: the remote refused it")), "a message alone names nothing")
}

type errorString string

func (e errorString) Error() string { return string(e) }
