package service

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/the-loop/the-loop/agents/workspace"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
)

// treeDAGRig is the dependency rig as the poller runs it for real: every
// item armed in its own working tree of a clone of a bare remote, where
// its state lives, while the tickets stay on the fake GitHub and Jira.
type treeDAGRig struct {
	*dagRig
	trees  *Trees
	remote string
	env    []string
}

func newTreeDAGRig(t *testing.T, with ...func(*Deps)) *treeDAGRig {
	t.Helper()
	base, err := os.MkdirTemp("", "tl-dagt")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + base, "GIT_CONFIG_NOSYSTEM=1"}
	checkout := checkoutOf(t, env, base, "widgets", "ticketing:\n  github:\n    owner: octo\n    repo: widgets\n"+passingTests)
	trees := NewTrees(filepath.Join(base, "trees"), workspace.Options{Env: env, Identity: workspace.Identity{Name: "the-loop", Email: "loop@example.invalid"}})
	r := newDAGRigIn(t, checkout, append([]func(*Deps){func(d *Deps) { d.Trees = trees }}, with...)...)
	return &treeDAGRig{dagRig: r, trees: trees, remote: filepath.Join(base, "widgets.git"), env: env}
}

// tree is where item id of container lives.
func (r *treeDAGRig) tree(container, id string) string { return r.trees.Path(container, id) }

// stateIn is the state of item id in its tree.
func (r *treeDAGRig) stateIn(container, id string) *runtime.State {
	r.t.Helper()
	sess, err := r.svc.open(context.Background(), r.tree(container, id), id, "")
	require.NoError(r.t, err)
	return sess.state
}

// walkAdhoc arms ref with `the-loop do` and walks its ad-hoc loop to
// complete: the work claimed in its tree, the requester's "Done.".
func (r *treeDAGRig) walkAdhoc(ref integrations.Ref, container, id string) {
	r.t.Helper()
	r.say(ref, "alice", "the-loop do")
	r.cycle()
	require.Equal(r.t, "work", r.stateIn(container, id).CurrentNode)
	env, err := r.svc.Complete(context.Background(), CompleteRequest{ItemRequest: ItemRequest{Repo: r.tree(container, id), WorkItem: id}})
	require.NoError(r.t, err)
	require.Equal(r.t, "review", env.CurrentNode, "%+v", env)
	r.cycle()
	r.say(ref, "alice", "Done.")
	r.cycle()
	require.Equal(r.t, "complete", r.stateIn(container, id).CurrentNode, "the loop walked it to complete")
}

// An item the loop walked to complete releases what waits for it though
// its ticket stays open, and the plan shows both where the poller keeps
// them — in their working trees, not the checkout. For a GitHub blocker
// and a Jira one alike.
func TestABlockerTheLoopCompletedReleasesItsDependentWithItsTicketOpen(t *testing.T) {
	t.Parallel()
	for _, system := range []string{"github", "jira"} {
		t.Run(system, func(t *testing.T) {
			r := newTreeDAGRig(t)
			ctx := context.Background()
			var blocker integrations.Ref
			container, blockerID, blockerName := "octo/widgets", "", ""
			if system == "jira" {
				blocker = r.jira.SeedIssue("Open the firewall", nil, true)
				container, blockerID, blockerName = "PROJ", blocker.Key, "jira:"+blocker.Key
			}
			api := r.issue("API")
			if system == "github" {
				blocker = r.issue("Schema")
				blockerID, blockerName = fmt.Sprintf("issue-%d", blocker.Number), fmt.Sprintf("#%d", blocker.Number)
				r.gh.AddBlocker(api, blocker)
			} else {
				require.NoError(t, r.ghp.EditIssueBody(ctx, api, "The API.\n\nBlocked by: jira:"+blocker.Key+"\n"))
			}
			apiID := fmt.Sprintf("issue-%d", api.Number)
			r.say(api, "alice", "the-loop start")
			r.cycle()
			r.say(api, "alice", execute)
			acts := r.cycles(2)
			require.Equal(t, phaseSelection, r.stateIn("octo/widgets", apiID).CurrentNode)
			assert.Equal(t, "blocked by "+blockerName+" (not started)", acts[apiID].Dependencies)

			r.walkAdhoc(blocker, container, blockerID)
			if system == "github" {
				is, ok := r.gh.Issue(blocker)
				require.True(t, ok)
				require.Equal(t, "open", is.State, "the blocker's ticket stays open")
			}
			acts = r.cycles(2)
			assert.NotEqual(t, phaseSelection, r.stateIn("octo/widgets", apiID).CurrentNode, "the loop's complete releases the dependent")
			assert.Equal(t, "working", acts[apiID].Dependencies)

			res, err := r.svc.Plan(ctx, PlanRequest{Repo: r.repo, Item: apiID})
			require.NoError(t, err)
			var lines []string
			for _, it := range res.Plan.Items {
				lines = append(lines, fmt.Sprintf("%s %s %s", strings.TrimPrefix(it.Ref.String(), "github:"+r.host+"/"), it.Progress.Loop, it.Progress.Node))
			}
			want := []string{
				fmt.Sprintf("%s pdlc-adhoc-loop complete", strings.TrimPrefix(r.canon(blocker).String(), "github:"+r.host+"/")),
				fmt.Sprintf("octo/widgets#%d pdlc-work-item-loop %s", api.Number, r.stateIn("octo/widgets", apiID).CurrentNode),
			}
			assert.ElementsMatch(t, want, lines, "plan shows both at their nodes")
		})
	}
}

// An item an authorized person asked to start that a dependency cycle
// keeps unarmed gets a reply: its status comment says what holds it and
// what releases it, and that the start is kept. Breaking the cycle arms it.
func TestAnItemInADependencyCycleSaysWhatHoldsIt(t *testing.T) {
	r := newDAGRig(t)
	a, b := r.issue("A"), r.issue("B")
	r.gh.AddBlocker(a, b)
	r.gh.AddBlocker(b, a)
	r.say(a, "alice", "the-loop start")
	acts := r.cycle()
	require.Equal(t, "held", acts["issue-2"].Action)
	status := ""
	for _, c := range r.gh.Comments(a) {
		if c.Author == r.gh.BotLogin() && strings.Contains(c.Body, statusMarker) {
			status = c.Body
		}
	}
	assert.Contains(t, status, "- **node:** not armed yet (pdlc-work-item-loop)")
	assert.Contains(t, status, "- **waiting for:** the loop to arm it: in a dependency cycle with #3; not armed until the cycle is broken — "+
		"it is armed on the first cycle after a person removes one of the dependencies of the cycle; @alice's `the-loop start` is kept and takes effect then")
	r.cycle()
	n := 0
	for _, c := range r.gh.Comments(a) {
		if strings.Contains(c.Body, statusMarker) {
			n++
		}
	}
	assert.Equal(t, 1, n, "one comment, not one per cycle")

	r.gh.RemoveBlocker(a, b)
	r.cycle()
	assert.Equal(t, phaseSelection, r.at("issue-2"), "armed once the cycle is broken")
}
