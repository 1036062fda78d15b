package service

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/the-loop/the-loop/graphs"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/relations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/dag"
	"github.com/the-loop/the-loop/store"
)

// Events of the dependency step, in the item's log.
const (
	EventDepsHeld     = "dag.held"
	EventDepsReleased = "dag.released"
	EventDepsChanged  = "dag.changed"
	EventArmedByDAG   = "dag.armed"
)

// dependencyStep is the poller's reading of the dependency graph between
// work items (docs/dag.md). Every cycle it re-reads the graph around each
// armed item — each GitHub ticket from the kept reads unless the listing
// shows it changed (relationCache), each Jira ticket once per cycle —
// records the item's place in it before its gate is evaluated, refuses to
// arm an item in a dependency cycle, and arms the children of a parent whose
// recorded selection ticked arm-children as their blockers finish.
type dependencyStep struct {
	trackers relations.Trackers
	seen     checkouts
	// progress memoizes the loop's progress on each ticket for the cycle:
	// one that moves during the cycle is seen moved on the next.
	progress map[string]dag.Progress
	// toArm are the children parents asked to arm, by key: those asked this
	// cycle and the last, since a child may be polled before its parent.
	toArm, lastToArm map[string]armRequest
}

// armRequest is a parent's request to arm one of its children.
type armRequest struct {
	parent integrations.Ref
	loop   string
}

// itemDeps is what one item's read of its dependency graph decides this
// cycle.
type itemDeps struct {
	// record is the item's dependency record (nil: not read).
	record *runtime.Dependencies
	// armedBy is set when a parent asks to arm the item now.
	armedBy *armRequest
	// refuse says why the item may not be armed ("" = it may).
	refuse string
	// failed says why the item's gate is not evaluated this cycle: its
	// record could not be kept, so the hook would read an older one.
	failed error
}

// beginDependencies starts a cycle of the dependency step: fresh readers
// that answer each ticket once per cycle.
func (p *Poller) beginDependencies() {
	if !p.Svc.cfg.DependenciesOn() {
		p.deps, p.rels = dependencyStep{}, nil
		return
	}
	t, warns := p.Svc.trackers()
	for _, w := range warns {
		p.log().Warn(w)
	}
	if t.GitHub != nil {
		t.GitHub = p.relationsFor(t.GitHub, t.GitHubHost)
	}
	t.Jira = onceEach(t.Jira)
	p.deps.lastToArm, p.deps.toArm = p.deps.toArm, map[string]armRequest{}
	p.deps.trackers, p.deps.seen, p.deps.progress = t, checkouts{}, map[string]dag.Progress{}
}

// lookup is the cycle's progress lookup, each ticket read once per cycle.
func (p *Poller) lookup(ctx context.Context, st *store.Store) dag.Lookup {
	read := p.Svc.progressLookup(ctx, st, p.deps.trackers, nil, p.deps.seen, &p.memoProgress)
	return func(ref integrations.Ref) dag.Progress {
		key := relations.Key(ref)
		if pr, ok := p.deps.progress[key]; ok {
			return pr
		}
		pr := read(ref)
		p.deps.progress[key] = pr
		return pr
	}
}

// dependencies reads the dependency graph around one polled item and
// records the item's place in it (before its gate is evaluated). arming is
// set when an authorized command arms the item this cycle. An item that is
// neither armed, being armed nor asked for by a parent is not read.
func (p *Poller) dependencies(ctx context.Context, sess *session, id string, ref integrations.Ref, arming bool) itemDeps {
	if !p.Svc.cfg.DependenciesOn() || p.deps.seen == nil {
		return itemDeps{}
	}
	st := sess.state
	armed := st.CurrentNode != ""
	ref = p.deps.trackers.Canon(ref)
	key := relations.Key(ref)
	req, asked := p.deps.toArm[key]
	if !asked {
		req, asked = p.deps.lastToArm[key]
	}
	parent := armed && armsChildren(sess)
	node, _ := sess.rt.Graph.Node(st.CurrentNode)
	switch {
	case !armed && !arming && !asked:
		return itemDeps{}
	case armed && node != nil && node.Terminal && !parent:
		return itemDeps{}
	}
	out := p.readItem(ctx, ref, armed, asked && !arming, req)
	if parent && out.plan != nil {
		p.askToArm(*out.plan, ref, st.Loop)
	}
	if armed {
		out.failed = p.keepDependencies(ctx, sess, id, out.record)
	}
	return out.itemDeps
}

// readResult is an item's read, with the plan it was decided on.
type readResult struct {
	itemDeps
	plan *dag.Plan
}

// readItem reads and evaluates the graph around ref. byParent is set when
// only a parent's request would arm the item: it is armed only when ready.
func (p *Poller) readItem(ctx context.Context, ref integrations.Ref, armed, byParent bool, req armRequest) readResult {
	st, err := p.Svc.writableStore(ctx)
	if err == nil {
		var plan dag.Plan
		plan, err = p.Svc.collectPlan(ctx, p.deps.trackers, []integrations.Ref{ref}, p.lookup(ctx, st))
		if err == nil {
			return p.decide(plan, ref, armed, byParent, req)
		}
	}
	p.log().Warn("the dependency graph could not be read; the item is held until it is", "ref", ref, "err", err)
	out := readResult{itemDeps: itemDeps{record: unreadRecord(err)}}
	if !armed {
		out.refuse = out.record.Status
	}
	return out
}

// decide turns ref's place in plan into this cycle's record and arming.
func (p *Poller) decide(plan dag.Plan, ref integrations.Ref, armed, byParent bool, req armRequest) readResult {
	for _, w := range plan.Warnings {
		p.log().Debug("dependency graph", "ref", ref, "warning", w)
	}
	status, ok := plan.Find(ref)
	if !ok {
		rec := unreadRecord(fmt.Errorf("%s is not in its own dependency graph", ref))
		return readResult{itemDeps: itemDeps{record: rec, refuse: rec.Status}, plan: &plan}
	}
	out := readResult{itemDeps: itemDeps{record: recordOf(status)}, plan: &plan}
	switch {
	case armed:
	case status.Verdict == dag.VerdictCycle:
		out.refuse = status.Line()
	case byParent && status.Verdict != dag.VerdictReady:
		out.refuse = status.Line()
	case byParent:
		out.armedBy = &req
	}
	return out
}

// askToArm notes the children of parent that may be armed now, in arming
// order, for their own turn in this cycle or the next.
func (p *Poller) askToArm(plan dag.Plan, parent integrations.Ref, loop string) {
	if g, err := Graph(loop); err != nil || !hasNode(g, phaseSelection) {
		loop = graphs.Default
	}
	for _, child := range plan.NextToArm(parent) {
		if _, ok := p.Svc.locate(p.deps.trackers, child, nil); !ok {
			p.log().Warn("a child to arm is in no polled repository or project; arm it by hand", "child", child, "parent", parent)
			continue
		}
		p.deps.toArm[relations.Key(child)] = armRequest{parent: parent, loop: loop}
	}
}

func hasNode(g *runtime.Graph, id string) bool {
	_, ok := g.Node(id)
	return ok
}

// armsChildren reports whether the item's recorded, honoured phase
// selection ticked arm-children.
func armsChildren(sess *session) bool {
	view := sess.rt.Trusted(sess.state, false)
	d, ok := view.State.Decisions[phaseSelection]
	return ok && d.Kind == runtime.KindSelection && d.Data["armChildren"] == true
}

// keepDependencies records rec in the item's state when it says something
// new, and when it was read in the store. It returns why it could not.
func (p *Poller) keepDependencies(ctx context.Context, sess *session, id string, rec *runtime.Dependencies) error {
	if rec == nil {
		return nil
	}
	now := p.Svc.now()
	var err error
	if !sess.state.Dependencies.Same(rec) { // the poller is the record's only writer
		err = sess.rt.Persist.Update(ctx, id, func(st *runtime.State) ([]runtime.EventRecord, error) {
			if st.CurrentNode == "" || st.Dependencies.Same(rec) {
				return nil, nil
			}
			prev := st.Dependencies
			next := *rec
			next.Since = now.UTC().Format(time.RFC3339)
			st.Dependencies = &next
			return []runtime.EventRecord{dependencyEvent(prev, &next)}, nil
		})
	}
	if err == nil {
		err = p.Svc.noteDependencyRead(ctx, sess.repo.Root, id, now)
	}
	if err != nil {
		p.log().Warn("the dependency record could not be kept; the gate waits for the next cycle", "workItem", id, "err", err)
		return fmt.Errorf("the dependency record could not be kept (%w); the gate is evaluated on the next cycle", err)
	}
	return nil
}

// dependencyEvent is the log entry of a changed record.
func dependencyEvent(prev, next *runtime.Dependencies) runtime.EventRecord {
	name := EventDepsChanged
	switch {
	case next.Holds() && !prev.Holds():
		name = EventDepsHeld
	case !next.Holds() && prev.Holds():
		name = EventDepsReleased
	}
	return runtime.EventRecord{Name: name, Data: map[string]any{"verdict": next.Verdict, "hold": next.Hold, "status": next.Status}}
}

// onceEach wraps a relation reader so that one cycle reads each ticket
// once: every collection of the cycle shares the answer (nil stays nil).
func onceEach(rr integrations.RelationReader) integrations.RelationReader {
	if rr == nil {
		return nil
	}
	return &cycleReader{rr: rr, read: map[string]cycleRead{}}
}

type cycleReader struct {
	rr   integrations.RelationReader
	mu   sync.Mutex
	read map[string]cycleRead
}

type cycleRead struct {
	rel integrations.Relations
	err error
}

// ReadRelations answers from this cycle's read of ref, else reads it. Each
// answer is a copy: a collection rewrites the lists it is given.
func (c *cycleReader) ReadRelations(ctx context.Context, ref integrations.Ref) (integrations.Relations, error) {
	key := relations.Key(ref)
	c.mu.Lock()
	r, ok := c.read[key]
	c.mu.Unlock()
	if !ok {
		r.rel, r.err = c.rr.ReadRelations(ctx, ref)
		if ctx.Err() == nil {
			c.mu.Lock()
			c.read[key] = r
			c.mu.Unlock()
		}
	}
	return copyRelations(r.rel), r.err
}

func copyRelations(r integrations.Relations) integrations.Relations {
	if r.Parent != nil {
		parent := *r.Parent
		r.Parent = &parent
	}
	r.Children = append([]integrations.Related(nil), r.Children...)
	r.BlockedBy = append([]integrations.Related(nil), r.BlockedBy...)
	r.Blocking = append([]integrations.Related(nil), r.Blocking...)
	r.Mentions = append([]integrations.Mention(nil), r.Mentions...)
	r.Warnings = append([]string(nil), r.Warnings...)
	return r
}

// armedDependencies keeps the record of an item armed this cycle and logs
// who armed it; it returns why the gate must wait for the next cycle.
func (p *Poller) armedDependencies(ctx context.Context, sess *session, id string, deps itemDeps) error {
	if deps.armedBy != nil {
		ev := runtime.EventRecord{Name: EventArmedByDAG, Data: map[string]any{"parent": deps.armedBy.parent.String(), "loop": sess.state.Loop}}
		if err := sess.rt.Persist.Append(ctx, id, []runtime.EventRecord{ev}); err != nil {
			p.log().Warn("could not record who armed the item", "workItem", id, "err", err)
		}
	}
	return p.keepDependencies(ctx, sess, id, deps.record)
}
