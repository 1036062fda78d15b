package scenario_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/examples/demo/scenario"
)

// Each fault the poller meets for an item is a named condition on it: said
// in its one status comment while it lasts, cleared when it ends. These
// tests fault the loop for real — a deleted tree, a refusing remote, an
// escalated pull request loop, a SIGTERM — through the real poller binary,
// its sessions and the fake GitHub, on short cycles.

const statusMarker = "<!-- the-loop:status -->"

// fast is a poller that cycles every 200ms.
var fast = []string{"--interval", "200ms"}

// statusSaid reports whether any revision of issue n's status comment
// held text: what a reader of the ticket saw at some point.
func statusSaid(l *scenario.Loop, n int, text string) bool {
	c, ok := l.Posted(n, statusMarker)
	if !ok {
		return false
	}
	for _, b := range c.Revisions {
		if strings.Contains(b, text) {
			return true
		}
	}
	return false
}

// statusNow is issue n's status comment as it reads now.
func statusNow(l *scenario.Loop, n int) string {
	c, _ := l.Posted(n, statusMarker)
	return c.Body
}

// events are the names (and kinds, for conditions) of item id's log.
func events(t *testing.T, l *scenario.Loop, id string) []string {
	t.Helper()
	out, err := l.Run(ctx, "graph", "events", id, "--format", "json", "--config", l.Config, "--repo", l.Tree(id))
	require.NoError(t, err)
	var evs []struct {
		Name string
		Data map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(out), &evs), out)
	var names []string
	for _, e := range evs {
		if k, ok := e.Data["kind"].(string); ok && strings.HasPrefix(e.Name, "condition.") {
			names = append(names, e.Name+" "+k)
			continue
		}
		names = append(names, e.Name)
	}
	return names
}

// Fault: the item's working tree is deleted mid-walk, between its
// sessions. The poller re-creates it from the item's branch on the cycle
// that finds it gone, the status comment says so meanwhile, the next cycle
// clears it, and the walk goes on. Then a file the branch holds is deleted
// from the tree: the gate does not read the tree without it; the poller
// sets the tree aside, re-creates it and says so, and the reply decides.
func TestADeletedTreeIsRecreatedAndTheTicketSaidWhy(t *testing.T) {
	t.Parallel()
	l := newLoop(t, scenario.Options{PollArgs: fast})
	require.NoError(t, l.Start())
	startAndExecute(t, l, 1)
	wait(t, "the spec gate", reviewRequested(l, 1, "requirements-approval"))
	wait(t, "the session to end", func() bool {
		s := sessionsOf(t, l, "issue-1")
		return len(s) == 1 && s[0].State != "running"
	})
	tree := l.Tree("issue-1")
	// Gone at once, as for rm -rf of the whole tree: the poller may be
	// writing in it meanwhile (what it wrote goes with the moved folder).
	gone := tree + ".deleted"
	require.NoError(t, os.Rename(tree, gone))
	wait(t, "the old tree removed", func() bool { return os.RemoveAll(gone) == nil })

	wait(t, "the tree re-created", func() bool { _, err := os.Stat(filepath.Join(tree, ".git")); return err == nil })
	wait(t, "the ticket to say why", func() bool { return statusSaid(l, 1, "`tree-missing`") })
	wait(t, "the condition to clear", func() bool { return !strings.Contains(statusNow(l, 1), "tree-missing") })
	assert.True(t, statusSaid(l, 1, "was gone; the loop re-created it from branch the-loop/issue-1-seeded-ticket"))
	evs := events(t, l, "issue-1")
	assert.Contains(t, evs, "tree.recreated")
	i := indexOf(evs, "condition.raised tree-missing")
	require.GreaterOrEqual(t, i, 0, "%v", evs)
	assert.Equal(t, "condition.cleared tree-missing", nextOf(evs, i, " tree-missing"), "cleared by the next cycle that found the tree")
	assert.Len(t, markerComments(l, 1, statusMarker), 1, "one status comment, edited")

	require.NoError(t, os.Remove(filepath.Join(tree, "docs", "specs", "issue-1", "requirements.md")))
	l.Say(1, "Approved.")
	wait(t, "the walk to go on in the re-created tree", func() bool { return l.Node("issue-1") == "design" })
	wait(t, "the ticket to say why the tree was set aside", func() bool {
		return statusSaid(l, 1, "is missing 1 file(s) the branch holds (docs/specs/issue-1/requirements.md)")
	})
	assert.Contains(t, events(t, l, "issue-1"), "tree.set_aside")
	assert.FileExists(t, filepath.Join(tree, "docs", "specs", "issue-1", "requirements.md"), "the file is back from the branch")
}

// Fault: the remote refuses pushes while a session works. The session
// commits and claims its node (a session never pushes); the poller's push
// of its commits is refused, and the poller holds the item's sessions —
// the remote's condition, not the session's: no relaunch, no escalation,
// nothing forced, one status comment saying why. When the remote accepts
// again the poller's push goes through and the condition clears by itself.
func TestARefusingRemoteHoldsTheSessionsAndTheItemResumes(t *testing.T) {
	t.Parallel()
	l := newLoop(t, scenario.Options{RelaunchMax: 1, PollArgs: fast})
	require.NoError(t, l.ScriptNode("requirements-definition", "wait-for=go"))
	require.NoError(t, l.Start())
	startAndExecute(t, l, 1)
	wait(t, "the session at work", func() bool {
		_, err := os.Stat(filepath.Join(l.FakeState, "issue-1.run-1.ready"))
		return err == nil
	})
	branch := "refs/heads/the-loop/issue-1-seeded-ticket"
	before := gitOut(t, l.Remote, "rev-parse", branch)
	hook := filepath.Join(l.Remote, "hooks", "pre-receive")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\necho 'this branch is frozen for review' >&2\nexit 1\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(l.FakeState, "go"), nil, 0o600))

	wait(t, "the condition on the ticket", func() bool { return strings.Contains(statusNow(l, 1), "`push-refused`") })
	assert.Contains(t, statusNow(l, 1), "this branch is frozen for review")
	assert.Contains(t, statusNow(l, 1), "no session is launched against")
	time.Sleep(2 * time.Second) // ten cycles against the refusing remote
	sess := sessionsOf(t, l, "issue-1")
	assert.Len(t, sess, 1, "no session is relaunched against a refusing remote")
	assert.Nil(t, l.StateOf("issue-1")["escalation"], "no escalation")
	assert.Equal(t, before, gitOut(t, l.Remote, "rev-parse", branch), "nothing was forced onto the remote")
	assert.Len(t, markerComments(l, 1, statusMarker), 1, "one status comment, never a stream")
	assert.Empty(t, markerComments(l, 1, "<!-- the-loop:working-tree -->"), "no second comment about the same thing")

	require.NoError(t, os.Remove(hook))
	wait(t, "the poller to push the session's work", func() bool { return gitOut(t, l.Remote, "rev-parse", branch) != before })
	wait(t, "the condition to clear", func() bool { return !strings.Contains(statusNow(l, 1), "push-refused") })
	wait(t, "the item to go on by itself", reviewRequested(l, 1, "requirements-approval"))
	sess = sessionsOf(t, l, "issue-1")
	require.Len(t, sess, 1, "the session's work was never lost, so nothing ran it again")
	assert.Equal(t, 1, sess[0].Attempt)
	evs := events(t, l, "issue-1")
	assert.Contains(t, evs, "condition.raised push-refused")
	assert.Contains(t, evs, "condition.cleared push-refused")
	assert.NotContains(t, evs, "node.escalated")
	assert.Len(t, markerComments(l, 1, statusMarker), 1)
}

// Fault: a SIGTERM reaches the poller and its sessions at once (systemd's
// control-group kill) right after a launch. No session is left recorded
// as running.
func TestSIGTERMRightAfterALaunchLeavesNoSessionRunning(t *testing.T) {
	t.Parallel()
	l := newLoop(t, scenario.Options{PollArgs: fast})
	require.NoError(t, l.ScriptNode("requirements-definition", "hang-runs=9"))
	require.NoError(t, l.Start())
	startAndExecute(t, l, 1)
	wait(t, "a launch", func() bool {
		_, err := os.Stat(filepath.Join(l.FakeState, "issue-1.run-1.ready"))
		return err == nil
	})
	// The session's process on this host is the one its record names (the
	// harness's own pid file holds its pid inside the session's namespace);
	// its process group is what a control-group kill reaches.
	running := sessionsOf(t, l, "issue-1")
	require.Len(t, running, 1)
	pid := running[0].PID
	require.Greater(t, pid, 1)
	if err := syscall.Kill(-pid, syscall.SIGTERM); err != nil {
		require.NoError(t, syscall.Kill(pid, syscall.SIGTERM))
	}
	l.Stop()
	s := sessionsOf(t, l, "issue-1")
	require.NotEmpty(t, s)
	for _, x := range s {
		assert.NotEqual(t, "running", x.State, "session %s", x.ID)
	}
}

// An escalated pull request loop says which loop and how to resume it,
// and `graph force --pr` resumes it: a fresh session works the node again.
func TestAnEscalatedPullRequestLoopIsResumedWithForcePR(t *testing.T) {
	t.Parallel()
	l := newLoop(t, scenario.Options{RelaunchMax: 1, PollArgs: fast})
	require.NoError(t, l.ScriptNode("pr/implementation", "fail-runs=2"))
	// The spec chain is skipped, so there are no tasks to tick.
	require.NoError(t, os.Remove(filepath.Join(l.Script, "implementation", "tasks.md.sed")))
	require.NoError(t, l.Start())
	l.Say(1, "the-loop start")
	wait(t, "the checklist", posted(l, 1, "<!-- the-loop:phase-selection -->"))
	l.Say(1, "- [ ] brainstorming\n- [ ] spec-chain\n- [ ] review-chain\n- [x] model-opus-5\n\nthe-loop execute")
	inner := filepath.Join(l.Tree("issue-1"), "docs", "specs", "issue-1", "pr-loops", "pr-2", "work-item-state.json")
	t.Cleanup(func() {
		if t.Failed() {
			logs, _ := filepath.Glob(filepath.Join(l.State, "sessions", "*", "stderr.log"))
			for _, f := range logs {
				b, _ := os.ReadFile(f)
				t.Logf("%s:\n%s", f, b)
			}
		}
	})
	wait(t, "the pull request loop to escalate", func() bool { return innerNode(inner) == "escalated" })
	cmd := "the-loop graph force issue-1 --pr 2 --to implementation --reason \"…\" --repo " + l.Tree("issue-1")
	wait(t, "the status comment to name the loop and the command", func() bool {
		return strings.Contains(statusNow(l, 1), "**pull request octo/widgets#2:** `escalated` of pdlc-pr-loop — waiting for an operator: its loop is escalated from implementation (") &&
			strings.Contains(statusNow(l, 1), "resume it with `"+cmd+"`")
	})
	status, err := l.Run(ctx, "graph", "status", "issue-1", "--config", l.Config, "--repo", l.Tree("issue-1"))
	require.NoError(t, err)
	assert.Contains(t, status, "pr-2 is escalated from implementation (")
	assert.Contains(t, status, "an operator resumes it with `the-loop graph force issue-1 --pr 2 --to implementation --reason \"…\"`")

	out, err := l.Run(ctx, "graph", "force", "issue-1", "--pr", "2", "--to", "implementation", "--reason", "the harness is fixed",
		"--config", l.Config, "--repo", l.Tree("issue-1"))
	require.NoError(t, err, out)
	assert.Contains(t, out, "forced issue-1 (the loop of pull request octo/widgets#2): escalated → implementation")
	wait(t, "the pull request loop to move on", func() bool {
		n := innerNode(inner)
		return n != "" && n != "implementation" && n != "escalated"
	})
	var prRuns []session
	for _, s := range sessionsOf(t, l, "issue-1") {
		if s.PR == 2 && s.Node == "implementation" {
			prRuns = append(prRuns, s)
		}
	}
	require.Len(t, prRuns, 3, "two that failed, one after the force")
	assert.Equal(t, 1, prRuns[0].Attempt, "the relaunch count starts again after the force")
}

func innerNode(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var st struct {
		CurrentNode string `json:"currentNode"`
	}
	_ = json.Unmarshal(b, &st)
	return st.CurrentNode
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// nextOf is the first entry after i ending with suffix ("" when none).
func nextOf(list []string, i int, suffix string) string {
	for _, x := range list[i+1:] {
		if strings.HasSuffix(x, suffix) {
			return x
		}
	}
	return ""
}

// A held item says what holds it and what releases it, and no longer asks
// for the execute already given; a blocker the loop walks to complete
// releases it though its ticket stays open, and `plan` shows both at their
// nodes.
func TestAHeldItemSaysWhatHoldsItAndTheLoopsCompleteReleasesIt(t *testing.T) {
	t.Parallel()
	l := newLoop(t, scenario.Options{PollArgs: fast})
	blocker := l.GitHub.SeedIssue("Schema", nil, true)
	l.GitHub.AddBlocker(scenario.Ref(1), blocker)
	require.NoError(t, l.ScriptNode("work"))
	require.NoError(t, l.Start())
	startAndExecute(t, l, 1)
	held := "its blockers: blocked by #2 (not started) — it is released on the first cycle in which every blocker is complete (walked to complete by the loop, or its ticket closed as done); @" +
		scenario.Human + "'s `the-loop execute` is kept and takes effect then"
	wait(t, "the status comment to say what holds it", func() bool { return strings.Contains(statusNow(l, 1), held) })
	assert.NotContains(t, statusNow(l, 1), "an authorized `the-loop execute` reply", "the execute given is not asked for again")

	l.Say(blocker.Number, "the-loop do")
	wait(t, "the blocker's work to be claimed", reviewRequested(l, blocker.Number, "review"))
	l.Say(blocker.Number, "Done.")
	wait(t, "the blocker to complete", func() bool { return l.Node("issue-2") == "complete" })
	is, _ := l.GitHub.Issue(blocker)
	require.Equal(t, "open", is.State, "its ticket stays open")
	wait(t, "the dependent to be released", func() bool { n := l.Node("issue-1"); return n != "" && n != "phase-selection" })

	out, err := l.Run(ctx, "plan", "issue-1", "--config", l.Config, "--repo", l.Checkout)
	require.NoError(t, err)
	lines := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 {
			lines[f[0][strings.LastIndex(f[0], "/")+1:]] = line
		}
	}
	assert.Regexp(t, `pdlc-adhoc-loop\s+complete\s+complete`, lines["widgets#2"], out)
	assert.Regexp(t, `pdlc-work-item-loop\s+`+l.Node("issue-1")+`\s+working`, lines["widgets#1"], out)
}
