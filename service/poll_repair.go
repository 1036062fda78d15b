package service

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/the-loop/the-loop/agents/workspace"
	"github.com/the-loop/the-loop/runtime"
)

// Self-repair where it is safe: a tree deleted under the poller is
// re-created from the item's branch, a dirty or broken one is set aside
// and re-created, and what the branch holds that its remote lacks is
// pushed again every cycle — each said on the item as a condition
// (conditions.go) while it lasts.

// walksIn reports whether the store holds a walk of item id in the tree at
// path that has not finished: the item was armed there and still works.
func (p *Poller) walksIn(ctx context.Context, path, id string) bool {
	st, err := p.Svc.writableStore(ctx)
	if err != nil {
		return false
	}
	blob, ok, err := st.StateBlob(ctx, path, id)
	if err != nil || !ok {
		return false
	}
	state, err := runtime.ParseState(blob, id)
	if err != nil || state.CurrentNode == "" {
		return false
	}
	g, _, err := loopFor(state)
	if err != nil {
		return false
	}
	n, ok := g.Node(state.CurrentNode)
	return ok && !n.Terminal
}

// branchCandidates are the branches an item's tree may have had: the one
// its handoff record carries, and the one its title names.
func (p *Poller) branchCandidates(it *polledItem, more ...string) []string {
	out := append([]string{handoffBranch(p.Svc.cfg, it.comments)}, more...)
	if b, err := workspace.BranchFor(it.id, it.title); err == nil {
		out = append(out, b)
	}
	return out
}

// recreateMissing re-creates the tree of an item the loop armed in a tree
// that is gone from disk (deleted under the poller); an item never armed
// in one lives in the checkout.
func (p *Poller) recreateMissing(ctx context.Context, it *polledItem) (string, error) {
	trees := p.Svc.deps.Trees
	path := trees.Path(it.container, it.id)
	if p.acts.noWalkAt(path) {
		return it.src.Checkout, nil
	}
	if !p.walksIn(ctx, path, it.id) {
		p.acts.setNoWalk(path, true)
		return it.src.Checkout, nil
	}
	it.repo, it.started = path, true
	tr, err := trees.Recreate(ctx, it.src.Checkout, it.container, it.id, p.branchCandidates(it)...)
	if err != nil {
		err = fmt.Errorf("the working tree of %s (%s) is gone and could not be re-created: %w", it.id, path, err)
		p.conds.meet(it, path, runtime.ConditionTreeMissing, err.Error())
		return "", err
	}
	p.conds.meet(it, path, runtime.ConditionTreeMissing, fmt.Sprintf(
		"the working tree of %s (%s) was gone; the loop re-created it from branch %s, which holds every commit the tree made (files never committed there are lost)",
		it.id, path, tr.Branch))
	p.treeEvent(ctx, path, it.id, "tree.recreated", map[string]any{"tree": tr.Dir, "branch": tr.Branch})
	it.tree = tr
	return tr.Dir, nil
}

// repairBroken sets aside and re-creates a tree that is no longer usable
// (no .git, another branch checked out), when the loop armed the item in
// it and no session works in it; otherwise the error stands.
func (p *Poller) repairBroken(ctx context.Context, it *polledItem, broken error) (string, error) {
	trees := p.Svc.deps.Trees
	path := trees.Path(it.container, it.id)
	if !p.walksIn(ctx, path, it.id) {
		return "", fmt.Errorf("the working tree of %s: %w", it.id, broken)
	}
	it.repo, it.started = path, true
	if p.liveIn(path) {
		err := fmt.Errorf("the working tree of %s is not usable (%w); a session works in it, so the loop leaves it until the session ends", it.id, broken)
		p.conds.meet(it, path, runtime.ConditionTreeDirty, err.Error())
		return "", err
	}
	tr, err := p.setAsideAndRecreate(ctx, it, path, broken.Error())
	if err != nil {
		return "", err
	}
	return tr.Dir, nil
}

// setAsideAndRecreate keeps the tree's uncommitted files (or all of a
// broken tree) aside, re-creates it from its branch and says so on the
// item: which files, and where they are.
func (p *Poller) setAsideAndRecreate(ctx context.Context, it *polledItem, path, why string) (*workspace.Tree, error) {
	trees := p.Svc.deps.Trees
	kept, err := trees.SetAside(ctx, it.src.Checkout, it.container, it.id, p.Svc.now())
	if err == nil {
		var tr *workspace.Tree
		if tr, err = trees.Recreate(ctx, it.src.Checkout, it.container, it.id, p.branchCandidates(it, kept.Branch)...); err == nil {
			files := "nothing uncommitted"
			if len(kept.Files) > 0 {
				files = strings.Join(kept.Files, ", ")
			}
			p.conds.meet(it, path, runtime.ConditionTreeDirty, fmt.Sprintf(
				"the working tree of %s could not follow its branch (%s); the loop kept its uncommitted files aside in %s (%s), never committed, and re-created the tree from branch %s",
				it.id, why, kept.Dir, files, tr.Branch))
			p.treeEvent(ctx, path, it.id, "tree.set_aside", map[string]any{"tree": tr.Dir, "branch": tr.Branch, "aside": kept.Dir, "files": kept.Files, "why": why})
			it.tree = tr
			return tr, nil
		}
	}
	err = fmt.Errorf("the working tree of %s could not follow its branch (%s) and could not be re-created: %w", it.id, why, err)
	p.conds.meet(it, path, runtime.ConditionTreeDirty, err.Error())
	return nil, err
}

// treeEvent records what the loop did to an item's tree in its log.
func (p *Poller) treeEvent(ctx context.Context, repo, id, name string, data map[string]any) {
	if err := p.Svc.appendRaw(ctx, repo, id, []runtime.EventRecord{{Name: name, Data: data}}); err != nil {
		p.log().Warn("could not record what happened to the working tree", "workItem", id, "event", name, "err", err)
	}
}

// liveIn reports whether a session runs for the item living in repo (its
// own, or one of its pull requests' working in its tree).
func (p *Poller) liveIn(repo string) bool {
	sup := p.Svc.deps.Sessions
	if sup == nil {
		return false
	}
	for _, l := range sup.Live() {
		if l.Repo == repo {
			return true
		}
	}
	return false
}

// syncTree fast-forwards the item's tree to what was pushed before a gate
// reads it. Files nobody committed that stop the fast-forward, or files
// the branch holds that are gone from the tree (deleted in part under the
// loop), have the tree set aside and re-created from its branch, when no
// session works in it and nothing holds the item; a diverged branch is a
// human's. The gate never reads files the loop could not bring up to date.
func (p *Poller) syncTree(ctx context.Context, it *polledItem, sess *session) error {
	defer cycleOf(ctx).forgetRepo(it.tree.Dir) // the sync may have brought another config
	_, err := it.tree.Sync(ctx)
	var conflict *workspace.ConflictError
	repairable := errors.As(err, &conflict) && (conflict.Kind == workspace.LocalChanges || conflict.Kind == workspace.MissingFiles)
	if repairable && p.mayRepair(it, sess) {
		if _, rerr := p.setAsideAndRecreate(ctx, it, sess.repo.Root, conflict.Error()); rerr != nil {
			return fmt.Errorf("the working tree could not be synced, so the gate waits: %w", rerr)
		}
		_, err = it.tree.Sync(ctx)
	}
	if err != nil {
		p.reportTreeProblem(ctx, it, sess, err)
		return fmt.Errorf("the working tree could not be synced, so the gate waits: %w", err)
	}
	p.conds.pass(it, runtime.ConditionTreeConflict)
	return nil
}

// mayRepair reports whether the loop may take the item's tree away to
// re-create it: no session works in it, and no pause, stop or takeover
// holds the item (a human may be working there).
func (p *Poller) mayRepair(it *polledItem, sess *session) bool {
	if p.liveIn(sess.repo.Root) {
		return false
	}
	p.acts.mu.Lock()
	hold := p.Svc.launchHold(sess, it.id, p.acts.takeovers)
	p.acts.mu.Unlock()
	return hold == nil
}

// pushPending pushes what the item's branch holds that its remote lacks —
// a session's commits (a session never pushes: its tree's repository has
// no remote and its account no credentials) or a push the remote refused —
// whatever node the item stands on, unless a session works in the tree
// (its work is pushed once it ends, never merged into under it).
// A refusal is the remote's condition: no session is launched against it;
// once a push goes through the condition clears, and the sessions it
// failed are forgiven.
func (p *Poller) pushPending(ctx context.Context, it *polledItem, sess *session) {
	if it.tree == nil || p.liveIn(sess.repo.Root) {
		return
	}
	if !p.conds.has(it, runtime.ConditionPushRefused) && !p.conds.has(it, runtime.ConditionTreeConflict) {
		// Commits the remote lacks appear when a session ends (it commits,
		// the loop pushes) — and, for all this poller knows, before it
		// started: only then is the branch counted.
		// Between sessions a human who took the item over commits there
		// too: a cheap look each cycle says whether to count.
		if !p.acts.pushCheckDue(sessionKey{repo: sess.repo.Root, item: it.id}) && !it.tree.MaybeUnpushed(ctx) {
			return
		}
		n, err := it.tree.Unpushed(ctx)
		if err != nil || n == 0 {
			return
		}
	}
	if _, err := it.tree.Push(ctx); err != nil {
		p.reportTreeProblem(ctx, it, sess, err)
		return
	}
	p.treeProblemCleared(ctx, it, sess)
}

// reportTreeProblem meets a sync conflict, a refused push or another git
// failure of the item's tree as the condition it is: said on the item
// (status comment, event, warning) while it lasts. Nothing is forced: a
// refused push is tried again every cycle, and a human resolves a
// conflict in the tree.
func (p *Poller) reportTreeProblem(_ context.Context, it *polledItem, sess *session, err error) {
	kind := conditionOf(err)
	if kind == runtime.ConditionCycle {
		kind = runtime.ConditionGit
	}
	msg := err.Error()
	if it.tree != nil {
		msg = fmt.Sprintf("%s (tree %s, branch %s)", msg, filepath.ToSlash(it.tree.Dir), it.tree.Branch)
	}
	p.conds.meet(it, sess.repo.Root, kind, msg)
}

// treeProblemCleared passes the tree's conditions once it syncs and
// pushes again; sessions a refusing remote failed are not counted.
func (p *Poller) treeProblemCleared(_ context.Context, it *polledItem, sess *session) {
	if p.conds.has(it, runtime.ConditionPushRefused) {
		if sup := p.Svc.deps.Sessions; sup != nil {
			sup.Forgive(sess.repo.Root, it.id)
		}
	}
	p.conds.pass(it, runtime.ConditionPushRefused, runtime.ConditionTreeConflict)
}
