package service

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/the-loop/the-loop/agents/workspace"
	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
)

// polledItem is one watched issue as a cycle handles it.
type polledItem struct {
	prov      integrations.Provider
	src       config.Source
	container string
	id        string
	ref       integrations.Ref
	// tree is the item's working tree (nil: the item lives in the
	// source's checkout).
	tree *workspace.Tree
	// armed is the spec folder as a fresh tree had it, before arming
	// wrote anything (nil when the item was not armed this cycle).
	armed snapshot
	// updated is when the ticket last changed: a gate's tree is synced
	// again only when it moved (a reply, which may decide the gate).
	updated time.Time
	// repo is where the item lives once known (the key of its state);
	// started is set once its state shows it armed.
	repo    string
	started bool
	// title and comments are the ticket's, for re-creating its tree.
	title    string
	comments []integrations.Comment
}

// itemRepo is where item it lives: its working tree when it has one, else
// the source's checkout (no trees configured, or not armed yet). A tree the
// loop armed the item in that is gone from disk is re-created from its
// branch, and one that is no longer a usable tree is set aside and
// re-created, each said on the item as a condition.
func (p *Poller) itemRepo(ctx context.Context, it *polledItem) (string, error) {
	trees := p.Svc.deps.Trees
	if trees == nil {
		return it.src.Checkout, nil
	}
	tr, err := trees.Find(ctx, it.src.Checkout, it.container, it.id)
	switch {
	case err != nil:
		return p.repairBroken(ctx, it, err)
	case tr == nil:
		return p.recreateMissing(ctx, it)
	}
	p.conds.pass(it, runtime.ConditionTreeMissing, runtime.ConditionTreeDirty)
	it.tree = tr
	return tr.Dir, nil
}

// armTree creates the working tree an item is armed in: on the branch a
// handoff record carries its spec on, else the-loop/<id>-<slug of the
// title>. It returns the repository to arm in.
func (p *Poller) armTree(ctx context.Context, it *polledItem, is integrations.Issue, comments []integrations.Comment) (string, error) {
	trees := p.Svc.deps.Trees
	switch {
	case trees == nil:
		return it.src.Checkout, nil
	case it.tree != nil:
		return it.tree.Dir, nil
	case hasLabel(is.Labels, handoff.MirrorLabel):
		return it.src.Checkout, nil // arming refuses a mirror; it gets no tree
	}
	branch := handoffBranch(p.Svc.cfg, comments)
	if branch == "" {
		b, err := workspace.BranchFor(it.id, is.Title)
		if err != nil {
			return "", err
		}
		branch = b
	}
	p.acts.setNoWalk(trees.Path(it.container, it.id), false)
	tr, err := trees.Add(ctx, it.src.Checkout, it.container, it.id, branch)
	if err != nil {
		return "", fmt.Errorf("create the working tree of %s on %s: %w", it.id, branch, err)
	}
	it.tree = tr
	specDir := filepath.Join(tr.Dir, "docs", "specs", it.id)
	if repo, err := p.Svc.openRepo(tr.Dir); err == nil {
		specDir = repo.SpecDir(it.id)
	}
	if it.armed, err = takeSnapshot(tr.Dir, specDir); err != nil {
		return "", err
	}
	return tr.Dir, nil
}

// handoffBranch is the spec branch an authorized handoff record carries
// its files on ("" when none does): the item's tree checks it out, so the
// import finds what the conversation pushed.
func handoffBranch(cfg *config.Config, comments []integrations.Comment) string {
	hs, _, _ := FindHandoff(cfg, comments)
	if hs == nil {
		return ""
	}
	var rec struct {
		CarriedBy string `json:"carriedBy"`
		Branch    string `json:"branch"`
	}
	if json.Unmarshal(hs.Record, &rec) != nil || rec.CarriedBy != handoff.CarriedByBranch {
		return ""
	}
	return rec.Branch
}

// evaluate runs what the poller does for a started item besides arming:
// in the item's tree it syncs what was pushed, runs the entry chain a
// session's claim left pending, evaluates a human gate, and commits and
// pushes what those wrote; then it notes what the item wants from the
// session supervisor.
func (p *Poller) evaluate(ctx context.Context, it *polledItem, sess *session, comments []integrations.Comment, act ItemAction) ItemAction {
	p.importHandoff(ctx, it, sess)
	node, _ := sess.rt.Graph.Node(sess.state.CurrentNode)
	due := p.pulls.due(it.src.Checkout, it.id, node, sess.state, p.Svc.now())
	gate := node != nil && !node.Terminal && (node.IsHuman() || awaitsSignOff(node, sess.state) || due)
	pending := hasPending(sess, p.innerLoops(ctx, sess, it.id))
	before := it.armed
	if it.tree != nil && before == nil && (gate || pending) {
		if pending || (readsFiles(node) && p.acts.needsSync(sessionKey{repo: sess.repo.Root, item: it.id}, it.updated)) {
			if err := p.syncTree(ctx, it, sess); err != nil {
				act.Action, act.Node, act.Detail = "conflict", sess.state.CurrentNode, err.Error()
				p.noteItem(ctx, it, sess, act)
				return act
			}
			p.acts.synced(sessionKey{repo: sess.repo.Root, item: it.id}, it.updated)
		}
		var err error
		if before, err = takeSnapshot(it.tree.Dir, sess.repo.SpecDir(it.id)); err != nil {
			act.Action, act.Detail = "error", err.Error()
			return act
		}
		if pending {
			for _, p := range loopRecords(it.tree.Dir, sess, it.id) {
				delete(before, p) // the claim's own records are published with its entry
			}
		}
	}
	wrote, pulls := "", ""
	if pending {
		var err error
		if sess, wrote, pulls, err = p.runPending(ctx, sess, it.id); err != nil {
			act.Action, act.Detail = "error", err.Error()
			return act
		}
	}
	if wrote == "" && pulls != "" {
		if before != nil {
			p.publishAs(ctx, it, sess, before, "pull-requests", fmt.Sprintf("%s: %s", it.id, pulls))
			before, _ = takeSnapshot(it.tree.Dir, sess.repo.SpecDir(it.id))
		}
		act.Detail = pulls
	}
	waited := func(ItemAction) bool { return false }
	if wrote == "" {
		// A gate whose entry chain just ran is read next cycle: the comments
		// in hand were listed before its review request was posted.
		if gate {
			// On a pull request surface, the gate reads that conversation too.
			comments = withSurface(ctx, sess, comments)
		}
		waited = waitedInPlace(sess.state)
		act = evaluateGate(ctx, sess, it.id, comments, act, due)
	} else {
		act.Action, act.Node = "entered", wrote
	}
	// A gate still waiting where it was parked publishes nothing: its new
	// reason is in the store, and a commit would move the branch (a pull
	// request's head, whose CI would start again).
	if (act.Action == "gate" || act.Action == "started") && !waited(act) {
		wrote = act.Node
	}
	if before != nil && wrote != "" {
		p.publish(ctx, it, sess, before, wrote, act)
	}
	if wrote != "" {
		if again, err := p.Svc.open(ctx, sess.repo.Root, it.id, ""); err == nil {
			sess = again
		}
	}
	p.noteItem(ctx, it, sess, act)
	return act
}

// runPending runs what a session's server left to the poller: the item's
// pending entry chain (wrote names its node), then the pull requests it
// asked for and the entry chains of its pull requests' loops (pulls says
// what those wrote). It returns the item read again.
func (p *Poller) runPending(ctx context.Context, sess *session, id string) (*session, string, string, error) {
	wrote := ""
	if sess.state.EntryPending != "" {
		ran, msgs, err := sess.rt.RunPendingEntry(ctx, id)
		if err != nil {
			return sess, "", "", err
		}
		wrote = ran
		for _, m := range msgs {
			p.log().Warn("entry chain degraded", "workItem", id, "node", ran, "message", m)
		}
		if sess, err = p.Svc.open(ctx, sess.repo.Root, id, ""); err != nil {
			return sess, "", "", err
		}
	}
	pulls := p.runPulls(ctx, sess, id, p.innerLoops(ctx, sess, id))
	if pulls != "" {
		again, err := p.Svc.open(ctx, sess.repo.Root, id, "")
		if err != nil {
			return sess, "", "", err
		}
		sess = again
	}
	return sess, wrote, pulls, nil
}

// readsFiles reports a gate whose exit chain reads or writes the item's
// artifacts (records feedback into them, locks them, checks them): its
// tree must hold what was pushed before it is evaluated. A gate that reads
// only the ticket (phase selection) needs no sync.
func readsFiles(n *runtime.Node) bool {
	if n == nil {
		return false
	}
	for _, e := range n.Exit {
		switch e.Hook {
		case "lock-artifacts", "record-feedback", "validate-artifacts", "check-success-criteria", "security-sign-off":
			return true
		}
	}
	return false
}

// publish commits what the loop wrote in the item's spec folder since
// before — locks, recorded feedback, the portable record, the execution
// log — with a marked message, and pushes it.
func (p *Poller) publish(ctx context.Context, it *polledItem, sess *session, before snapshot, node string, act ItemAction) {
	what := act.Status
	if what == "" {
		what = "entered"
	}
	p.publishAs(ctx, it, sess, before, node, fmt.Sprintf("%s: %s %s", it.id, node, what))
}

// publishAs commits what was written since before under subject, marked
// for gate, and pushes it.
func (p *Poller) publishAs(ctx context.Context, it *polledItem, sess *session, before snapshot, node, subject string) {
	after, err := takeSnapshot(it.tree.Dir, sess.repo.SpecDir(it.id))
	if err != nil {
		p.log().Warn("could not read what the gate wrote", "workItem", it.id, "err", err)
		return
	}
	paths := after.changed(before)
	if len(paths) == 0 {
		return
	}
	res, err := it.tree.CommitAndPush(ctx, workspace.Change{Paths: paths, Subject: subject, Gate: node})
	if err != nil {
		p.reportTreeProblem(ctx, it, sess, err)
		return
	}
	p.treeProblemCleared(ctx, it, sess)
	p.log().Info("committed what the gate wrote", "workItem", it.id, "node", node, "commit", res.Commit, "pushed", res.Pushed,
		"paths", strings.Join(paths, ", "))
}

// upsert keeps the loop's one comment for marker on the item.
func (p *Poller) upsert(ctx context.Context, it *polledItem, marker, body string) error {
	_, _, err := integrations.UpsertComment(ctx, it.prov, it.ref, marker, body, p.Svc.cfg.Routing.SelfLogins)
	if err != nil {
		p.log().Warn("could not post the item's marked comment", "workItem", it.id, "marker", marker, "err", err)
	}
	return err
}

// cleanup moves the item to cleanup (why says what asked for it),
// publishes what that wrote and removes its working tree and its pull
// requests' own; a tree holding work the remote lacks is kept and said so.
func (p *Poller) cleanup(ctx context.Context, it *polledItem, sess *session, act ItemAction, why string) ItemAction {
	var before snapshot
	if it.tree != nil {
		before, _ = takeSnapshot(it.tree.Dir, sess.repo.SpecDir(it.id))
	}
	moved, err := sess.rt.Cleanup(ctx, it.id, why)
	if err != nil {
		act.Action, act.Detail = "error", err.Error()
		return act
	}
	if !moved {
		return act
	}
	act.Action = "cleaned"
	// A walk that ends keeps nothing stuck: its conditions clear.
	p.conds.pass(it, allConditions...)
	if it.tree == nil {
		return act
	}
	if before != nil {
		p.publish(ctx, it, sess, before, "cleanup", act)
	}
	p.removePRTrees(ctx, it, sess)
	if err := p.Svc.deps.Trees.Remove(ctx, it.src.Checkout, it.container, it.id); err != nil {
		act.Detail = "the working tree was kept: " + err.Error()
		_ = p.Svc.appendEvents(ctx, sess.repo.Root, it.id, []runtime.EventRecord{{Name: "tree.kept", Node: "cleanup", Data: map[string]any{"reason": err.Error()}}})
		return act
	}
	_ = p.Svc.appendEvents(ctx, sess.repo.Root, it.id, []runtime.EventRecord{{Name: "tree.removed", Node: "cleanup", Data: map[string]any{"tree": it.tree.Dir}}})
	return act
}
