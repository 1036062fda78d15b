package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"path/filepath"
	"time"

	"github.com/the-loop/the-loop/config"
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/internal/itemid"
)

// DefaultSpecRoot is where work-item folders live when the repository config
// names none.
const DefaultSpecRoot = "docs/specs"

// Runtime walks work items of one repository through one compiled graph.
type Runtime struct {
	Graph   *Graph
	Persist Persister
	Config  *config.Config
	Signer  *Signer
	// Tracker is the ticket integration used by side-effecting hooks
	// (nil: none configured; hooks degrade).
	Tracker integrations.Provider
	// CodeHost is the provider of the items' pull requests (GitHub); nil
	// when none is configured.
	CodeHost integrations.Provider
	Notifier integrations.Notifier
	// Repo is the absolute repository root.
	Repo string
	// SpecRoot is the spec folder relative to Repo, slash-separated.
	SpecRoot string
	// LoopDir is the folder of the inner loop this runtime walks, under
	// each item's spec folder (pr-loops/pr-7); "" when it walks the items'
	// own loop. The graph's records live there (WorkItem.LoopDir).
	LoopDir string
	// Commands are the repository's own commands (its repository config).
	Commands RepoCommands
	// Origin is OWNER/REPO of the repository the work items are tracked in
	// (the repository config's ticketing.github), "" when unknown.
	Origin      string
	HookTimeout time.Duration
	Log         *slog.Logger
	// DeferEntry leaves entry chains to a runtime that holds the ticket
	// integration: a node this runtime enters is recorded as pending
	// (State.EntryPending) and RunPendingEntry runs its chain later. A
	// launched session's server defers, so its claims never touch the
	// ticket; the poller runs what they left.
	DeferEntry bool
	// Assignments receives the assignment of an agent node entered here
	// (deliver-assignment); nil when nothing supervises sessions.
	Assignments AssignmentSink
	// OS is the account and host this process runs as, recorded with
	// every operator act (zero: CurrentOS()).
	OS OSIdentity
	// Hosts are where tickets live when a reference does not name the
	// host: the decisions signed here name that repository.
	Hosts TicketHosts
	// ExpectRepository, when set ([HOST/]OWNER/REPO, check --repository),
	// is the repository the items' own GitHub tickets live in: a decision
	// bound to another is ignored.
	ExpectRepository string
}

// AssignmentSink hands a node's assignment to a work item's agent session.
type AssignmentSink interface {
	// Deliver gives item's session the assignment text of node and says
	// how it was delivered.
	Deliver(ctx context.Context, item, node, text string) (string, error)
}

func (r *Runtime) log() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.Default()
}

func (r *Runtime) specRoot() string {
	if r.SpecRoot == "" {
		return DefaultSpecRoot
	}
	return r.SpecRoot
}

// ValidateID checks a work item id against the one id rule (package
// internal/itemid): a spec folder name that is one safe path element, with no
// character that could forge or hide output.
func ValidateID(id string) error { return itemid.Check(id) }

// SpecDir returns the absolute spec folder of id.
func (r *Runtime) SpecDir(id string) string {
	return filepath.Join(r.Repo, filepath.FromSlash(r.specRoot()), id)
}

func (r *Runtime) relSpecDir(id string) string { return path.Join(r.specRoot(), id) }

func (r *Runtime) config() *config.Config {
	if r.Config == nil {
		r.Config = config.Default()
	}
	return r.Config
}

func (r *Runtime) signer() *Signer {
	if r.Signer == nil {
		r.Signer = NewSigner(nil)
	}
	return r.Signer
}

// evalInput is everything one chain evaluation needs.
type evalInput struct {
	id       string
	view     TrustedView
	set      SkipSet
	node     *Node
	boundary string
	event    *Event
	readOnly bool
	// strict honours only verified decisions (check --recompute).
	strict bool
	cache  *EvalCache
	// scratch, when set, is the HookContext to fill: a read-only
	// evaluation of an item's nodes, one after the other, reuses one (no
	// hook keeps it past its call, and a hook on its own goroutine gets a
	// copy).
	scratch *HookContext
}

func (r *Runtime) hookContext(ctx context.Context, in evalInput) *HookContext {
	st := in.view.State
	ref := st.Ref
	if ref == "" {
		ref = in.id
	}
	hc := in.scratch
	if hc == nil {
		hc = new(HookContext)
	}
	specDir, relSpecDir := hc.WorkItem.SpecDir, hc.RelSpecDir
	if hc.WorkItem.ID != in.id || specDir == "" {
		specDir, relSpecDir = r.SpecDir(in.id), r.relSpecDir(in.id)
	}
	*hc = HookContext{
		Context:          ctx,
		WorkItem:         WorkItem{Ref: ref, ID: in.id, SpecDir: specDir, LoopDir: r.LoopDir},
		Repo:             r.Repo,
		RelSpecDir:       relSpecDir,
		Node:             in.node,
		Graph:            r.Graph,
		Boundary:         in.boundary,
		State:            st,
		Skipped:          in.set.Skipped,
		SkippedArtifacts: in.set.Artifacts,
		Event:            in.event,
		Config:           r.config(),
		Commands:         r.Commands,
		ReadOnly:         in.readOnly,
		Signer:           r.signer(),
		Strict:           in.strict,
		Cache:            in.cache,
		Origin:           r.Origin,
		InnerFault: func(st *State, d *Decision) string {
			inner := *r
			inner.LoopDir = "pr-loops"
			return inner.bindingFault(st, d, in.strict)
		},
	}
	if !in.readOnly {
		hc.Tracker = r.Tracker
		hc.CodeHost = r.CodeHost
		hc.Notifier = r.Notifier
		hc.Assignments = r.Assignments
		if t, err := ParseTicketRef(ref); err == nil {
			hc.TicketRef = t
		}
	}
	return hc
}

func (r *Runtime) run(ctx context.Context, in evalInput) ChainOutcome {
	chain := in.node.Exit
	if in.boundary == "entry" {
		chain = in.node.Entry
	}
	return RunChain(chain, r.hookContext(ctx, in), r.HookTimeout)
}

// view loads the trusted view and skip set of a state (strict: only
// verified decisions, as check --recompute reads them).
func (r *Runtime) view(st *State, strict bool) (TrustedView, SkipSet) {
	v := r.Trusted(st, strict)
	return v, DeclaredSkips(r.Graph, v.State)
}

// enter moves the pointer to node: the record's first entry time is kept,
// failed-evaluation attempts and the last block restart, parking clears,
// and a gate decision from an earlier visit is archived (returned as an
// event) so the gate asks again.
func (r *Runtime) enter(st *State, node string) []EventRecord {
	var evs []EventRecord
	st.CurrentNode = node
	rec := st.Record(node)
	now := Now()
	if rec.EnteredAt == "" {
		rec.EnteredAt = now
	}
	rec.LastEnteredAt = now
	// The entry chain runs after this state is saved (runEntry, or the
	// poller for a deferring runtime): until it has run, the state says it
	// is pending, so a process that dies in between leaves it to the next.
	st.EntryPending = ""
	if n, ok := r.Graph.Node(node); r.DeferEntry || ok && len(n.Entry) > 0 {
		st.EntryPending = node
	}
	rec.Entries++
	rec.Visit = newVisit(st)
	rec.Attempts = 0
	rec.LastBlock = ""
	rec.LastInputs = ""
	rec.Outcome = ""
	rec.ExitedAt = ""
	st.Parked = nil
	delete(st.ReadyToShip, node)
	if d, ok := st.Decisions[node]; ok && d.Kind == KindGate {
		delete(st.Decisions, node)
		evs = append(evs, EventRecord{Name: "graph.decision_archived", Node: node, Data: map[string]any{"outcome": d.Outcome, "by": d.By, "at": d.At}})
	}
	return evs
}

// markSkipped records the nodes routed around as skipped.
func markSkipped(st *State, set SkipSet, nodes []string) []EventRecord {
	var evs []EventRecord
	now := Now()
	for _, n := range nodes {
		rec := st.Record(n)
		if rec.EnteredAt == "" {
			rec.EnteredAt = now
		}
		rec.Outcome = "skipped"
		rec.ExitedAt = now
		data := map[string]any{}
		if d := set.Skipped[n]; d != nil {
			for k, v := range map[string]string{"via": d.Via, "token": d.Token, "by": d.By, "reason": d.Reason} {
				if v != "" {
					data[k] = v
				}
			}
		}
		evs = append(evs, EventRecord{Name: "graph.node_skipped", Node: n, Data: data})
	}
	return evs
}

// runEntry runs node's entry chain after the state that entered it was
// saved; its verdict is ignored and only degradations are reported.
func (r *Runtime) runEntry(ctx context.Context, id, node string) []string {
	n, ok := r.Graph.Node(node)
	if !ok || len(n.Entry) == 0 || r.DeferEntry {
		return nil
	}
	st, _, err := r.Persist.Load(ctx, id)
	if err != nil {
		return []string{fmt.Sprintf("warning: could not load state to run the entry chain of %s: %v", node, err)}
	}
	v, set := r.view(st, false)
	oc := r.run(ctx, evalInput{id: id, view: v, set: set, node: n, boundary: "entry"})
	if posted := postedBy(oc.Results); len(posted) > 0 {
		// What the entry chain posted opens the visit: nothing before it
		// belongs to it.
		err := r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
			rec := st.Record(node)
			if st.CurrentNode != node || rec.Visit == nil || !rec.Visit.raise(posted...) {
				return nil, errNoSave
			}
			return nil, nil
		})
		if err != nil && !errors.Is(err, errNoSave) {
			r.log().Warn("could not record where the visit begins", "workItem", id, "node", node, "err", err)
		}
	}
	if st.EntryPending == node {
		r.entryRan(ctx, id, node)
	}
	msgs := degradations(oc.Results)
	if oc.Blocking != nil {
		msgs = append(msgs, fmt.Sprintf("warning: entry chain of %s stopped at %s: %s", node, oc.Blocking.Hook, oc.Blocking.Render()))
	}
	if len(msgs) > 0 {
		var evs []EventRecord
		for _, m := range msgs {
			evs = append(evs, EventRecord{Name: "graph.hook_degraded", Node: node, Data: map[string]any{"boundary": "entry", "message": m}})
		}
		if err := r.Persist.Append(ctx, id, evs); err != nil {
			r.log().Warn("could not record entry degradations", "workItem", id, "err", err)
		}
	}
	return msgs
}

// entryRan clears the pending mark enter left for node, once its entry
// chain has run (runEntry calls it only when the state it loaded had one).
func (r *Runtime) entryRan(ctx context.Context, id, node string) {
	err := r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		if st.EntryPending != node {
			return nil, errNoSave
		}
		st.EntryPending = ""
		return nil, nil
	})
	if err != nil && !errors.Is(err, errNoSave) {
		r.log().Warn("could not record that the entry chain ran", "workItem", id, "node", node, "err", err)
	}
}
