package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/markdown"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/hooks/hooktest"
)

// walkID is the work item every dry-run walk drives.
const walkID = "issue-1"

// walkHead is the head commit of the walks' pull requests.
const walkHead = "0123456789abcdef0123456789abcdef01234567"

// shipPull gives the work item what its implementation and ready-to-ship
// gates read: pull request o/r#7, linked, ready to ship at walkHead, its
// inner loop finished with a signed approval, the reviewer briefing to post
// and the documentation record.
func (w *loopWalk) shipPull() {
	w.t.Helper()
	ctx := context.Background()
	w.fake.AddPull("o", "r", 7, hooktest.ReadyPull(walkHead))
	_, _, err := w.rt.LinkPull(ctx, walkID, runtime.PullRequestLink{Repo: "o/r", Number: 7, InnerLoop: "pr-loops/pr-7"})
	require.NoError(w.t, err)
	inner := runtime.NewState(walkID)
	inner.Loop, inner.CurrentNode = "pdlc-pr-loop", "complete"
	d := &runtime.Decision{WorkItem: walkID, Loop: "pdlc-pr-loop", Node: "pr-approval", Kind: runtime.KindGate, Outcome: runtime.OutcomeApproved, Via: "merge", By: "@bob", At: runtime.Now()}
	require.NoError(w.t, w.rt.Signer.Sign(d))
	inner.Decisions["pr-approval"] = d
	b, err := inner.Marshal()
	require.NoError(w.t, err)
	w.write("pr-loops/pr-7/"+runtime.StateFile, string(b))
	w.write("pr-briefing.md", filledBriefing)
	w.write("evidence/documentation.md", "# Documentation\n\n## Capability docs\n\nnone affected: the export has no capability doc yet.\n\n## Documentation\n\nREADME: the export command.\n")
}

// loopWalk is a dry run of one shipped loop end to end: engineWalk's engine
// over an in-memory persister and the fake tracker, plus the spec folder the
// agent writes into and the node the item stood at after every step.
type loopWalk struct {
	*engineWalk
	path []string
}

func newLoopWalk(t *testing.T, loop string) *loopWalk {
	t.Helper()
	return &loopWalk{engineWalk: newEngineWalk(t, loop)}
}

// arm puts an authorized comment on the thread before the walk starts (the
// arming comment of `the-loop contribute` or `the-loop review`).
func (w *loopWalk) arm(author, body string) {
	w.fake.Thread = append(w.fake.Thread, hooktest.Comment(w.newID(), author, body))
}

func (w *loopWalk) newID() int64 { return w.fake.NextID() }

// spec is the work item's spec folder, inside the walk's temporary repo.
func (w *loopWalk) spec(name string) string {
	return filepath.Join(w.rt.SpecDir(walkID), filepath.FromSlash(name))
}

// write stores an artifact as the agent would.
func (w *loopWalk) write(name, text string) {
	w.t.Helper()
	p := w.spec(name)
	require.NoError(w.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(w.t, os.WriteFile(p, []byte(text), 0o644))
}

func (w *loopWalk) read(name string) string {
	w.t.Helper()
	b, err := os.ReadFile(w.spec(name))
	require.NoError(w.t, err)
	return string(b)
}

// edit revises an artifact in place, keeping everything else (front matter
// a gate wrote, recorded review comments) as it is.
func (w *loopWalk) edit(name, old, repl string) {
	w.t.Helper()
	text := w.read(name)
	require.Contains(w.t, text, old, "%s: the text to revise", name)
	w.write(name, strings.Replace(text, old, repl, 1))
}

func (w *loopWalk) at() string { return w.state().CurrentNode }

func (w *loopWalk) step() { w.path = append(w.path, w.at()) }

// begin starts the walk and asserts its first node.
func (w *loopWalk) begin(want string) {
	w.t.Helper()
	w.start()
	require.Equal(w.t, want, w.at())
	w.step()
}

// claim is the agent's completion claim for node; the item must move to want.
func (w *loopWalk) claim(node, want string) runtime.ClaimAnswer {
	w.t.Helper()
	env := w.complete(node)
	require.Equal(w.t, want, env.CurrentNode, "claim %s: %s %v", node, env.Status, env.Messages)
	require.Equal(w.t, want, w.at())
	if want != node {
		assert.True(w.t, env.Moved, node)
		assert.Equal(w.t, string(runtime.Pass), env.Status, "claim %s: %v", node, env.Messages)
	}
	w.step()
	return env
}

// claimBlocked is a claim the node's checks refuse: the item stays put.
func (w *loopWalk) claimBlocked(node string, wantMessage string) runtime.ClaimAnswer {
	w.t.Helper()
	env := w.complete(node)
	require.Equal(w.t, string(runtime.Block), env.Status, "claim %s: %v", node, env.Messages)
	assert.False(w.t, env.Moved)
	assert.Contains(w.t, strings.Join(env.Messages, "\n"), wantMessage)
	require.Equal(w.t, node, w.at())
	w.step()
	return env
}

// answer adds an authorized (or not) reply and advances; the gate must
// decide outcome and the item move to want.
func (w *loopWalk) answer(author, body, outcome, want string) runtime.NodeReport {
	w.t.Helper()
	rep := w.reply(w.newID(), author, body)
	require.Equal(w.t, outcome, rep.Outcome, "reply %q at %s: %s %v", body, rep.Node, rep.Status, rep.Messages)
	require.Equal(w.t, want, w.at(), rep.Messages)
	w.step()
	return rep
}

// poll advances with the whole thread and no new reply.
func (w *loopWalk) poll() runtime.NodeReport {
	w.t.Helper()
	rep, err := w.rt.Advance(context.Background(), walkID, &runtime.Event{Comments: append([]integrations.Comment(nil), w.fake.Thread...)})
	require.NoError(w.t, err)
	return rep
}

// briefings counts the reviewer briefing comments on the thread.
func (w *loopWalk) briefings() int {
	n := 0
	for _, c := range w.fake.Thread {
		if strings.Contains(c.Body, "<!-- the-loop:pr-briefing -->") {
			n++
		}
	}
	return n
}

// lastPosted is the newest comment the loop posted.
func (w *loopWalk) lastPosted() integrations.Comment {
	w.t.Helper()
	for i := len(w.fake.Thread) - 1; i >= 0; i-- {
		if w.fake.Thread[i].Author == "the-loop-bot" {
			return w.fake.Thread[i]
		}
	}
	require.FailNow(w.t, "the loop posted nothing")
	return integrations.Comment{}
}

// postedContains reports a comment the loop posted holding every part.
func (w *loopWalk) postedContains(parts ...string) bool {
	for _, p := range w.fake.Posted {
		all := true
		for _, s := range parts {
			all = all && strings.Contains(p, s)
		}
		if all {
			return true
		}
	}
	return false
}

// finish asserts the walk visited path, ended at complete with every
// recorded decision signed and attributed, and that check --recompute
// derives the same end from the artifacts and decisions alone. It returns
// the recomputed report by node.
func (w *loopWalk) finish(path []string) (*runtime.State, map[string]runtime.NodeReport) {
	w.t.Helper()
	assert.Equal(w.t, path, w.path, "node after each step")
	st := w.state()
	require.Equal(w.t, "complete", st.CurrentNode)
	assert.Nil(w.t, st.Escalation)
	for what, m := range map[string]map[string]*runtime.Decision{"decision": st.Decisions, "skip": st.Skips, "opt-in": st.OptIns} {
		for node, d := range m {
			assert.NotEmpty(w.t, d.Signature, "%s %s is signed", what, node)
			assert.Equal(w.t, runtime.Verified, w.rt.Signer.Verify(d), "%s %s verifies", what, node)
			assert.NotEmpty(w.t, d.By, "%s %s is attributed", what, node)
			assert.Equal(w.t, walkID, d.WorkItem, "%s %s", what, node)
			assert.Equal(w.t, w.rt.Graph.Name, d.Loop, "%s %s", what, node)
		}
	}
	calls := len(w.fake.Calls)
	rep := w.rt.Status(context.Background(), walkID, st, true)
	byNode := map[string]runtime.NodeReport{}
	for _, nr := range rep.Nodes {
		byNode[nr.Node] = nr
	}
	assert.True(w.t, rep.OK, "check --recompute: %+v", rep.Nodes)
	assert.Equal(w.t, "complete", rep.CurrentNode)
	for _, nr := range rep.Nodes {
		assert.True(w.t, runtime.Satisfied(nr.Status), "%s: %s %v", nr.Node, nr.Status, nr.Messages)
	}
	assert.Len(w.t, w.fake.Calls, calls, "check touches no integration")
	return st, byNode
}

// assertLocked checks that a gate locked name for approver.
func (w *loopWalk) assertLocked(name, approver string) {
	w.t.Helper()
	fm, _ := markdown.SplitFrontMatter(w.read(name))
	assert.Equal(w.t, "approved", markdown.String(fm["status"]), name)
	by, ok := fm["approvedBy"].([]any)
	require.True(w.t, ok, "%s approvedBy is a list: %#v", name, fm["approvedBy"])
	assert.Contains(w.t, by, approver, name)
}

// reviewComments is the "## Review comments" section of name.
func (w *loopWalk) reviewComments(name string) string {
	w.t.Helper()
	_, body := markdown.SplitFrontMatter(w.read(name))
	secs := markdown.Sections(body)
	sec, ok := secs["Review comments"]
	require.True(w.t, ok, "%s has a Review comments section", name)
	return sec
}

// statuses renders the recomputed status of nodes, for one comparison.
func statuses(byNode map[string]runtime.NodeReport, nodes ...string) map[string]string {
	out := map[string]string{}
	for _, n := range nodes {
		out[n] = byNode[n].Status
	}
	return out
}
