package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/runtime"
)

// EventHandoffImported records that the loop itself imported a handoff's
// carried files at import-handoff, before any session ran there.
const EventHandoffImported = "handoff.imported"

// importHandoff imports a handed-off item's carried files itself, once per
// visit of import-handoff, before any session runs there: the record's
// carrier (the checked-out spec branch, or the ticket's comments) is read
// and every file that verifies is written, exactly as `the-loop handoff
// import` does, and what it wrote is committed and pushed. The session is
// not trusted to do it; the node's exit hook verifies what is there when
// the session claims. A record carried only by an artifact page is left to
// the session, which extracts its files.
func (p *Poller) importHandoff(ctx context.Context, it *polledItem, sess *session) {
	st := sess.state
	n, ok := sess.rt.Graph.Node(st.CurrentNode)
	if !ok || !hasExitHook(n, importNode) || st.Handoff == nil {
		return
	}
	rec, err := handoff.DecodeJSON(st.Handoff.Record)
	if err != nil || (rec.CarriedBy != handoff.CarriedByBranch && rec.CarriedBy != handoff.CarriedByTicket) {
		return
	}
	visit := ""
	if r := st.Nodes[n.ID]; r != nil {
		visit = visitName(r) + "|" + r.EnteredAt
	}
	key := sessionKey{repo: sess.repo.Root, item: it.id}
	if !p.acts.firstImport(key, visit) {
		return
	}
	var before snapshot
	if it.tree != nil {
		if before, err = takeSnapshot(it.tree.Dir, sess.repo.SpecDir(it.id)); err != nil {
			p.log().Warn("could not read the spec folder before the import", "workItem", it.id, "err", err)
			return
		}
	}
	res, err := p.Svc.HandoffImport(ctx, HandoffImportRequest{ItemRequest: ItemRequest{Repo: sess.repo.Root, WorkItem: it.id}})
	if err != nil {
		p.acts.forgetImport(key)
		if kind := conditionOf(err); kind != runtime.ConditionCycle || errors.Is(err, ErrNoIntegration) {
			p.conds.meet(it, sess.repo.Root, kind, fmt.Sprintf("the handoff's files could not be imported: %v", err))
		}
		p.log().Warn("the loop could not import the handoff's files; the session at import-handoff is asked to", "workItem", it.id, "err", err)
		return
	}
	failedNames := make([]string, 0, len(res.Failed))
	for _, f := range res.Failed {
		failedNames = append(failedNames, f.Name+" "+f.Reason)
	}
	data := map[string]any{"by": "the loop", "source": res.Source, "written": res.Written, "failed": failedNames, "held": res.Held}
	if err := sess.rt.Persist.Append(ctx, it.id, []runtime.EventRecord{{Name: EventHandoffImported, Node: n.ID, Data: data}}); err != nil {
		p.log().Warn("could not record the handoff import", "workItem", it.id, "err", err)
	}
	p.log().Info("imported the handoff's files before any session", "workItem", it.id, "written", len(res.Written), "failed", len(res.Failed))
	if it.tree != nil {
		p.publishAs(ctx, it, sess, before, n.ID, fmt.Sprintf("%s: import-handoff imported the handed-off files", it.id))
	}
}

// firstImport reports whether this is the first import of the visit (and
// notes it).
func (a *pollerActs) firstImport(k sessionKey, visit string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.init()
	if a.imported[k] == visit {
		return false
	}
	a.imported[k] = visit
	return true
}

// forgetImport lets the next cycle import again.
func (a *pollerActs) forgetImport(k sessionKey) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.init()
	delete(a.imported, k)
}
