package service

import (
	"context"
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/runtime"
)

// waitedInPlace reports an evaluation of st that found it still waiting on
// the node it was already parked on.
func waitedInPlace(st *runtime.State) func(ItemAction) bool {
	parked := st.Parked != nil && st.Parked.Node == st.CurrentNode
	node := st.CurrentNode
	return func(act ItemAction) bool {
		return parked && act.Status == string(runtime.Wait) && act.Node == node
	}
}

// ownerItem is a started item found through the store rather than the
// issue listing (a pull request's owner, a closed issue), as the poller
// handles items: its ticket's provider, its source and its working tree.
// It is nil when the item's source is not polled.
func (p *Poller) ownerItem(ctx context.Context, checkout, container, id, ref string) *polledItem {
	tr, err := runtime.ParseTicketRef(ref)
	if err != nil {
		return nil
	}
	var src *config.Source
	for i := range p.Sources {
		if p.Sources[i].Checkout == checkout && p.Sources[i].System == tr.System {
			src = &p.Sources[i]
			break
		}
	}
	if src == nil {
		return nil
	}
	prov, err := p.Svc.Provider(tr.System)
	if err != nil {
		return nil
	}
	it := &polledItem{prov: prov, src: *src, container: container, id: id, ref: tr}
	if container != "" && p.Svc.deps.Trees != nil {
		if t, err := p.Svc.deps.Trees.Find(ctx, checkout, container, id); err == nil {
			it.tree = t
		}
	}
	return it
}

// committed runs fn for pull request owner o — which may write its spec
// folder: the loops' records, a recorded review — and, when the item has a
// working tree, commits and pushes what fn wrote, naming the pull request
// and where its loop went. A loop still waiting where it was parked
// (waited) publishes nothing: its new reason is in the store, and a commit
// would move the pull request's head and start its CI again.
func (p *Poller) committed(ctx context.Context, o pullOwner, outer *session, fn func() ItemAction, waited func(ItemAction) bool) ItemAction {
	it := p.ownerItem(ctx, o.checkout, o.container, o.id, o.ref)
	if it == nil || it.tree == nil {
		return fn()
	}
	before, err := takeSnapshot(it.tree.Dir, outer.repo.SpecDir(o.id))
	if err != nil {
		return fn()
	}
	act := fn()
	if waited != nil && waited(act) {
		return act
	}
	what := strings.TrimSpace(strings.Join([]string{act.Node, act.Status}, " "))
	if what == "" {
		what = act.Action
	}
	p.publishAs(ctx, it, outer, before, "pull-requests", fmt.Sprintf("%s: %s %s", o.id, o.link.Key(), what))
	return act
}
