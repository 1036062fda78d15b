package service

import (
	"errors"
	"fmt"
	"sync"

	"github.com/the-loop/the-loop/agents/workspace"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

// EventItemStuck is the notify event sent when a condition outlasts
// notify.stuckAfter (integrations.slack.events may name it).
const EventItemStuck = "item-stuck"

// One rule for every stuck item (docs/poller.md, "When an item is stuck"):
// any error a cycle meets for an item the loop works becomes a named
// condition on it — raised with an event and a warning in the log, shown
// by its status comment and `graph status`, cleared when the step that met
// it passes again, and told to people once it lasts past
// notify.stuckAfter.

// clearsBy says, per kind, how a condition ends.
var clearsBy = map[string]string{
	runtime.ConditionTreeMissing:  "clears on the next cycle that finds the tree in place",
	runtime.ConditionTreeDirty:    "clears on the next cycle that finds the tree in place",
	runtime.ConditionTreeConflict: "a human brings the branch and the remote's together in the tree and pushes (the loop never forces, resets or rebases); clears once the tree syncs and pushes again",
	runtime.ConditionPushRefused:  "no session is launched against the remote meanwhile; the loop pushes again every cycle and this clears once a push goes through",
	runtime.ConditionGit:          "clears once the tree's git steps pass again",
	runtime.ConditionTracker:      "clears once the ticket is read again",
	runtime.ConditionStore:        "clears once the item's state is read and kept again",
	runtime.ConditionLaunch:       "the loop tries again after the relaunch backoff; clears once a session starts, or the item no longer wants one",
	runtime.ConditionCycle:        "clears once a cycle of the item passes without an error",
}

// allConditions are every kind.
var allConditions = []string{runtime.ConditionTreeMissing, runtime.ConditionTreeDirty, runtime.ConditionTreeConflict,
	runtime.ConditionPushRefused, runtime.ConditionGit, runtime.ConditionTracker, runtime.ConditionStore,
	runtime.ConditionLaunch, runtime.ConditionCycle}

// clearedByPass are the kinds only their own step's success clears; the
// others clear when a cycle of the item ran to its end without meeting
// them.
var clearedByPass = []string{runtime.ConditionTreeMissing, runtime.ConditionTreeDirty, runtime.ConditionTreeConflict,
	runtime.ConditionPushRefused, runtime.ConditionLaunch}

// conditionOf names the condition an error is: by its type, never its text.
func conditionOf(err error) string {
	var conflict *workspace.ConflictError
	var refused *workspace.PushRejectedError
	var api *integrations.APIError
	var st *store.Error
	switch {
	case errors.As(err, &conflict) && (conflict.Kind == workspace.LocalChanges || conflict.Kind == workspace.MissingFiles):
		return runtime.ConditionTreeDirty
	case errors.As(err, &conflict):
		return runtime.ConditionTreeConflict
	case errors.As(err, &refused):
		return runtime.ConditionPushRefused
	case errors.Is(err, workspace.ErrNoBranch):
		return runtime.ConditionTreeMissing
	case errors.As(err, &st), errors.Is(err, store.ErrLocked), errors.Is(err, store.ErrReadOnly):
		return runtime.ConditionStore
	case errors.As(err, &api), errors.Is(err, ErrNoIntegration):
		return runtime.ConditionTracker
	case workspace.IsGitError(err):
		return runtime.ConditionGit
	}
	return runtime.ConditionCycle
}

// conditionKey is an item as the poller watches it: a ticket of a
// source's container.
type conditionKey struct{ checkout, container, item string }

func keyOf(it *polledItem) conditionKey {
	return conditionKey{checkout: it.src.Checkout, container: it.container, item: it.id}
}

// conditionBook is the poller's record of the conditions of the items it
// works: the ones that hold, and what this cycle met and passed.
type conditionBook struct {
	mu    sync.Mutex
	items map[conditionKey]*itemConditions
}

type itemConditions struct {
	// repo is where the item lives: the key of its state and events.
	repo string
	item polledItem
	node string
	loop string
	// loaded is set once the conditions that held before this poller
	// started were read from the item's log.
	loaded bool
	open   map[string]*runtime.Condition
	// This cycle: what was met, which kinds passed, and whether the
	// item's cycle ran to its end.
	met       map[string]string
	passed    map[string]bool
	completed bool
	touched   bool
}

func (b *conditionBook) entry(k conditionKey) *itemConditions {
	if b.items == nil {
		b.items = map[conditionKey]*itemConditions{}
	}
	e := b.items[k]
	if e == nil {
		e = &itemConditions{open: map[string]*runtime.Condition{}, met: map[string]string{}, passed: map[string]bool{}}
		b.items[k] = e
	}
	return e
}

// armed notes where a started item lives, so a later cycle that fails
// before it can read the item still knows it is the loop's.
func (b *conditionBook) armed(it *polledItem, repo, node, loop string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.entry(keyOf(it))
	e.repo, e.item, e.node, e.loop, e.touched = repo, *it, node, loop, true
}

// forget drops what the book holds of it: another poller holds the item's
// lease and keeps its conditions (it reads them from the item's log).
func (b *conditionBook) forget(it *polledItem) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.items, keyOf(it))
}

// known reports whether the book knows it as an item the loop works.
func (b *conditionBook) known(it *polledItem) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.items[keyOf(it)]
	return e != nil && e.repo != ""
}

// meet records that this cycle met a condition of kind for the item living
// in repo ("" keeps the repository the book knows).
func (b *conditionBook) meet(it *polledItem, repo, kind, message string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.entry(keyOf(it))
	if repo != "" {
		e.repo = repo
	}
	if e.item.id == "" {
		e.item = *it
	}
	e.met[kind], e.touched = message, true
}

// pass records that the step clearing kinds passed this cycle.
func (b *conditionBook) pass(it *polledItem, kinds ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.entry(keyOf(it))
	for _, k := range kinds {
		e.passed[k] = true
	}
	e.touched = true
}

// metThisCycle reports whether this cycle met kind for the item.
func (b *conditionBook) metThisCycle(it *polledItem, kind string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.items[keyOf(it)]
	if e == nil {
		return false
	}
	_, ok := e.met[kind]
	return ok
}

// metTree reports whether this cycle met a condition of the item's tree:
// the error the cycle ended on is that condition, already said.
func (b *conditionBook) metTree(it *polledItem) bool {
	for _, k := range []string{runtime.ConditionTreeMissing, runtime.ConditionTreeDirty, runtime.ConditionTreeConflict, runtime.ConditionPushRefused, runtime.ConditionGit} {
		if b.metThisCycle(it, k) {
			return true
		}
	}
	return false
}

// has reports whether kind holds for the item (or was met this cycle).
func (b *conditionBook) has(it *polledItem, kind string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.items[keyOf(it)]
	if e == nil {
		return false
	}
	_, met := e.met[kind]
	return met || e.open[kind] != nil
}

// itemDone closes an item's part of the cycle: the error its action ended
// on (if any) is met as the condition it is, and an item whose cycle ran
// to its end passes every kind its steps would have met.
func (p *Poller) itemDone(it *polledItem, act ItemAction) {
	b := &p.conds
	if act.err == nil && (act.Action == "error" || act.Action == "conflict") {
		act.err = errors.New(act.Detail)
	}
	if act.err != nil {
		if !b.known(it) && !it.started {
			return // an item the loop does not work: the heartbeat reports it
		}
		if kind := conditionOf(act.err); !b.metThisCycle(it, kind) && !b.metTree(it) {
			b.meet(it, it.repo, kind, act.Detail)
		}
		return
	}
	if !b.known(it) {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.entry(keyOf(it))
	e.completed, e.touched = true, true
}

// pullsDone makes the error met while delivering a pull request's news to
// a linked item that item's condition, as an error of its own cycle is:
// named by its type, said with the pull request it came from. It runs
// after the cycle's items, so the book knows each item the loop works; a
// linked item it does not know (closed, left the listing) is left to the
// cleanup that follows.
func (p *Poller) pullsDone(acts []ItemAction) {
	b := &p.conds
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, act := range acts {
		if act.err == nil || act.linked == nil {
			continue
		}
		kind := conditionOf(act.err)
		msg := fmt.Sprintf("pull request %s: %s", act.linked.link.Key(), act.Detail)
		for _, e := range b.items {
			if e.repo != act.linked.repo || e.item.id != act.linked.id {
				continue
			}
			if _, met := e.met[kind]; !met {
				e.met[kind] = msg
			}
			e.touched = true
			break
		}
	}
}

// conditionsOf are the conditions holding for the item in repo.
func (p *Poller) conditionsOf(repo, item string) []runtime.Condition {
	b := &p.conds
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []runtime.Condition
	for k, e := range b.items {
		if k.item != item || e.repo != repo {
			continue
		}
		for _, c := range e.open {
			out = append(out, *c)
		}
	}
	runtime.SortConditions(out)
	return out
}
