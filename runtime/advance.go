package runtime

import (
	"context"
	"errors"
	"fmt"
)

// Unchanged starts the message of an advance that found the same
// artifacts, decisions, comments and findings as the last blocked
// evaluation.
const Unchanged = "nothing changed since the last evaluation (the same artifacts, decisions and comments, the same findings)"

// Report statuses beyond the four hook statuses.
const (
	StatusEscalated = "escalated"
	StatusRefused   = "refused"
	StatusNoop      = "noop"
)

// NodeReport is the result of evaluating or advancing one node.
type NodeReport struct {
	Node     string   `json:"node"`
	Status   string   `json:"status"`
	Outcome  string   `json:"outcome"`
	Messages []string `json:"messages"`
	Forced   bool     `json:"forced"`
	Attempts int      `json:"attempts"`
}

// StartResult says where a walk began.
type StartResult struct {
	WorkItem string   `json:"workItem"`
	Node     string   `json:"node"`
	Started  bool     `json:"started"`
	Loop     string   `json:"loop"`
	Messages []string `json:"messages"`
}

// StartOptions carries what a walk is started with.
type StartOptions struct {
	// Ref is the ticket reference recorded with the item.
	Ref string
	// Handoff, when non-nil, is frozen into state — only when the item has
	// no current node yet.
	Handoff *HandoffState
	// ClaudeArtifactURL is recorded with a handoff.
	ClaudeArtifactURL string
}

// Start enters the graph's start node (routing around declared skips). It is
// idempotent: an item that already has a pointer is left where it is.
func (r *Runtime) Start(ctx context.Context, id string, opts StartOptions) (StartResult, error) {
	if err := ValidateID(id); err != nil {
		return StartResult{}, err
	}
	res := StartResult{WorkItem: id, Loop: r.Graph.Name}
	err := r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		if st.CurrentNode != "" {
			res.Node = st.CurrentNode
			return nil, nil
		}
		evs := r.startLocked(st, opts)
		res.Node, res.Started = st.CurrentNode, true
		return evs, nil
	})
	if err != nil {
		return res, fmt.Errorf("start %s: %w", id, err)
	}
	if res.Started {
		res.Messages = r.runEntry(ctx, id, res.Node)
	}
	return res, nil
}

func (r *Runtime) startLocked(st *State, opts StartOptions) []EventRecord {
	if opts.Ref != "" {
		st.Ref = opts.Ref
	}
	if opts.Handoff != nil {
		st.Handoff = opts.Handoff
		st.ClaudeArtifactURL = opts.ClaudeArtifactURL
	}
	st.Loop = r.Graph.Name
	_, set := r.view(st, false)
	landing, around := RouteSkips(r.Graph, set, r.Graph.Start)
	evs := markSkipped(st, set, around)
	evs = append(evs, r.enter(st, landing)...)
	evs = append(evs, EventRecord{Name: "graph.started", Node: landing, Data: map[string]any{"loop": r.Graph.Name, "handoff": st.Handoff != nil}})
	return evs
}

// Advance evaluates the current node's exit chain with event and takes the
// first declared edge matching the outcome. An item never started is
// started first.
func (r *Runtime) Advance(ctx context.Context, id string, event *Event) (NodeReport, error) {
	if err := ValidateID(id); err != nil {
		return NodeReport{}, err
	}
	var rep NodeReport
	var enterNode string
	var startMsgs []string
	err := r.Persist.Update(ctx, id, func(st *State) ([]EventRecord, error) {
		if h := Held(r.config(), st); h != nil {
			rep = NodeReport{Node: st.CurrentNode, Status: StatusRefused, Messages: []string{h.Error()}}
			return nil, errNoSave
		}
		var evs []EventRecord
		if st.CurrentNode == "" {
			evs = r.startLocked(st, StartOptions{})
			startMsgs = append(startMsgs, "started at "+st.CurrentNode)
		}
		var more []EventRecord
		var err error
		rep, enterNode, more, err = r.advanceLocked(ctx, id, st, event, true)
		return append(evs, more...), err
	})
	if errors.Is(err, errNoSave) {
		return rep, nil
	}
	if err != nil {
		return rep, fmt.Errorf("advance %s: %w", id, err)
	}
	rep.Messages = append(startMsgs, rep.Messages...)
	if enterNode != "" {
		rep.Messages = append(rep.Messages, r.runEntry(ctx, id, enterNode)...)
	}
	return rep, nil
}

// advanceLocked evaluates and routes within an Update. It returns the node
// whose entry chain must run once the state is saved ("" for none). With
// spare (an advance, not an agent's claim), a block on exactly the inputs
// and findings of the last blocked evaluation spends no attempt: nothing
// changed, so it is no new failure.
func (r *Runtime) advanceLocked(ctx context.Context, id string, st *State, event *Event, spare bool) (NodeReport, string, []EventRecord, error) {
	g := r.Graph
	node, ok := g.Node(st.CurrentNode)
	if !ok {
		return NodeReport{}, "", nil, fmt.Errorf("the stored pointer %q names no node of %s; run `the-loop graph force %s --to <node> --reason ...`", st.CurrentNode, g.Name, id)
	}
	if gate, why, evs := r.reopenStale(ctx, id, st, node); gate != "" {
		rep := NodeReport{Node: node.ID, Status: string(Wait), Outcome: "stale-approval", Messages: []string{why}, Attempts: st.Record(node.ID).Attempts}
		return rep, gate, evs, nil
	}
	view, set := r.view(st, false)
	rec := st.Record(node.ID)
	seen := event.visitOf(rec)
	noteComments(st, event)
	inputs := r.inputsOf(id, st, seen)
	oc := r.run(ctx, evalInput{id: id, view: view, set: set, node: node, boundary: "exit", event: seen})
	rep := NodeReport{Node: node.ID, Status: string(oc.Status), Outcome: oc.Outcome(), Messages: renderMessages(oc.Messages()), Forced: rec.Forced}
	rep.Messages = append(rep.Messages, degradations(oc.Results)...)
	var evs []EventRecord
	for _, m := range degradations(oc.Results) {
		evs = append(evs, EventRecord{Name: "graph.hook_degraded", Node: node.ID, Data: map[string]any{"boundary": "exit", "message": m}})
	}
	evs = append(evs, r.recordReceipts(st, node.ID, oc.Results)...)
	if why := escalation(oc.Results); why != "" {
		rep.Status = StatusEscalated
		target, more := r.escalateLocked(st, node.ID, why)
		rep.Messages = append(rep.Messages, "escalated: "+why)
		rep.Attempts = rec.Attempts
		return rep, target, append(evs, more...), nil
	}
	switch oc.Status {
	case Wait:
		reason := oc.Render()
		if reason == "" {
			reason = "awaiting a human"
		}
		st.Parked = &Parked{Node: node.ID, Reason: reason, Since: Now()}
		evs = append(evs, EventRecord{Name: "graph.parked", Node: node.ID, Data: map[string]any{"reason": reason}})
		rep.Attempts = rec.Attempts
		return rep, "", evs, nil
	case Block:
		rendered := oc.Render()
		if spare && rec.Attempts > 0 && inputs != "" && inputs == rec.LastInputs && rendered == rec.LastBlock {
			rep.Attempts = rec.Attempts
			rep.Messages = append(rep.Messages, fmt.Sprintf("%s: no attempt spent (%d of %d so far)", Unchanged, rec.Attempts, node.MaxAttempts))
			return rep, "", evs, nil
		}
		repeated := rendered != "" && rendered == rec.LastBlock
		rec.LastBlock, rec.LastInputs = rendered, inputs
		rec.Attempts++
		rep.Attempts = rec.Attempts
		evs = append(evs, EventRecord{Name: "graph.blocked", Node: node.ID, Data: map[string]any{"attempts": rec.Attempts, "block": rendered}})
		if repeated || rec.Attempts >= node.MaxAttempts {
			why := fmt.Sprintf("%s failed %d time(s) (maxAttempts %d)", node.ID, rec.Attempts, node.MaxAttempts)
			if repeated {
				why = fmt.Sprintf("%s failed the same check twice in a row", node.ID)
			}
			rep.Status = StatusEscalated
			target, more := r.escalateLocked(st, node.ID, why)
			evs = append(evs, more...)
			rep.Messages = append(rep.Messages, "escalated: "+why)
			return rep, target, evs, nil
		}
		return rep, "", evs, nil
	}
	// Pass: record what the chain decided, exit, route. A decision resting
	// on a comment of an earlier visit decides nothing again; a result
	// sending the work back says why.
	if why, stale := staleDecision(rec, oc.Results); stale {
		st.Parked = &Parked{Node: node.ID, Reason: why, Since: Now()}
		rep.Status, rep.Outcome, rep.Messages = string(Wait), "", []string{why}
		evs = append(evs, EventRecord{Name: "graph.decision_refused", Node: node.ID, Data: map[string]any{"reason": why}})
		return rep, "", evs, nil
	}
	for _, res := range oc.Results {
		if _, ok := res.Data[DataFixRound]; ok {
			rep.Messages = append(rep.Messages, renderMessages(res.Messages)...)
		}
	}
	evs = append(evs, r.recordDecisions(st, node.ID, oc.Results)...)
	rec.Outcome = oc.Outcome()
	rec.ExitedAt = Now()
	rep.Attempts = rec.Attempts
	target, found := g.Next(node.ID, rep.Outcome)
	if !found {
		if node.Terminal {
			evs = append(evs, EventRecord{Name: "graph.completed", Node: node.ID})
			return rep, "", evs, nil
		}
		why := fmt.Sprintf("no declared edge from %s on outcome %q", node.ID, rep.Outcome)
		rep.Status = StatusEscalated
		rep.Messages = append(rep.Messages, why)
		evs = append(evs, EventRecord{Name: "graph.no_edge", Node: node.ID, Data: map[string]any{"outcome": rep.Outcome}})
		esc, more := r.escalateLocked(st, node.ID, why)
		return rep, esc, append(evs, more...), nil
	}
	if to, ok := g.Node(target); ok && node.IsHuman() && to.Index() < node.Index() {
		rec.RouteBacks++
		if max := r.config().Gates.MaxRouteBacks; max > 0 && rec.RouteBacks > max {
			why := fmt.Sprintf("%s sent the work back %d times, more than gates.maxRouteBacks (%d)", node.ID, rec.RouteBacks, max)
			if d := st.Decisions[node.ID]; d != nil && d.CommentURL != "" {
				why += "; the last reply was " + d.CommentURL
			}
			rep.Status = StatusEscalated
			rep.Messages = append(rep.Messages, "escalated: "+why)
			esc, more := r.escalateLocked(st, node.ID, why)
			return rep, esc, append(evs, more...), nil
		}
	}
	_, set = r.view(st, false)
	landing, around := RouteSkips(g, set, target)
	evs = append(evs, markSkipped(st, set, around)...)
	evs = append(evs, r.enter(st, landing)...)
	st.landFixRound(node.ID, landing)
	evs = append(evs, EventRecord{Name: "graph.advanced", Node: node.ID, Data: map[string]any{"to": landing, "outcome": rep.Outcome}})
	rep.Messages = append(rep.Messages, "advanced to "+landing)
	return rep, landing, evs, nil
}

// escalateLocked parks the item at the escalated node (when the graph has
// one) with the reason, and returns that node so its entry chain notifies.
func (r *Runtime) escalateLocked(st *State, from, why string) (string, []EventRecord) {
	st.Escalation = &Escalation{From: from, Reason: why, At: Now()}
	evs := []EventRecord{{Name: "graph.escalated", Node: from, Data: map[string]any{"reason": why}}}
	target := ""
	if _, ok := r.Graph.Node("escalated"); ok && from != "escalated" {
		evs = append(evs, r.enter(st, "escalated")...)
		target = "escalated"
	}
	park := st.CurrentNode
	st.Parked = &Parked{Node: park, Reason: why, Since: Now()}
	return target, evs
}

// recordDecisions stores, signed, the decisions, declared skips and opt-ins
// a passing chain reported. The first write for a node wins.
func (r *Runtime) recordDecisions(st *State, node string, results []Result) []EventRecord {
	var evs []EventRecord
	sign := func(d *Decision, kind string) {
		if d.Node == "" {
			d.Node = node
		}
		d.WorkItem, d.Loop = st.WorkItem, r.Graph.Name
		if d.Kind == "" {
			d.Kind = kind
		}
		if d.At == "" {
			d.At = Now()
		}
		if err := r.sign(st, d); err != nil {
			r.log().Warn("could not sign decision", "node", d.Node, "err", err)
		}
	}
	for _, res := range results {
		if d, ok := res.Data["decision"].(*Decision); ok && d != nil {
			sign(d, KindGate)
			if old, exists := st.Decisions[d.Node]; !exists || !r.trustworthy(st, old, d.Node) {
				st.Decisions[d.Node] = d
				if s, ok := d.Data["surface"].(string); ok && s != "" {
					st.Surface = s
				}
				evs = append(evs, EventRecord{Name: "graph.decision", Node: d.Node, Data: map[string]any{"kind": d.Kind, "outcome": d.Outcome, "by": d.By, "via": d.Via, "commentUrl": d.CommentURL}})
			}
		}
		if skips, ok := res.Data["declaredSkips"].([]*Decision); ok {
			var names []string
			for _, d := range skips {
				n, ok := r.Graph.Node(d.Node)
				if !ok || !n.Skippable || n.Required || st.Entered(d.Node) {
					continue
				}
				sign(d, KindSkip)
				if old, exists := st.Skips[d.Node]; !exists || !r.trustworthy(st, old, d.Node) {
					st.Skips[d.Node] = d
					names = append(names, d.Node)
				}
			}
			if len(names) > 0 {
				evs = append(evs, EventRecord{Name: "graph.skips_declared", Node: node, Data: map[string]any{"nodes": names}})
			}
		}
		if opts, ok := res.Data["optIns"].([]*Decision); ok {
			var names []string
			for _, d := range opts {
				n, ok := r.Graph.Node(d.Node)
				if !ok || !n.OptIn || st.Entered(d.Node) {
					continue
				}
				sign(d, KindOptIn)
				if old, exists := st.OptIns[d.Node]; !exists || !r.trustworthy(st, old, d.Node) {
					st.OptIns[d.Node] = d
					names = append(names, d.Node)
				}
			}
			if len(names) > 0 {
				evs = append(evs, EventRecord{Name: "graph.opt_ins_selected", Node: node, Data: map[string]any{"nodes": names}})
			}
		}
		if un, ok := res.Data["unskip"].([]string); ok {
			for _, n := range un {
				if d, exists := st.Skips[n]; exists && !st.Entered(n) {
					delete(st.Skips, n)
					evs = append(evs, EventRecord{Name: "graph.skip_withdrawn", Node: n, Data: map[string]any{"via": d.Via, "by": node}})
				}
			}
		}
		if d, ok := res.Data["readyToShip"].(*Decision); ok && d != nil {
			d.Node, d.Kind = node, KindReadyToShip
			sign(d, KindReadyToShip)
			if st.ReadyToShip == nil {
				st.ReadyToShip = map[string]*Decision{}
			}
			st.ReadyToShip[node] = d
		}
		if dem, ok := res.Data["demotions"].([]Demotion); ok {
			st.HandoffDemoted = append(st.HandoffDemoted, dem...)
		}
		if fr, ok := res.Data[DataFixRound].(*FixRound); ok && fr != nil {
			st.recordFixRound(node, fr)
			evs = append(evs, EventRecord{Name: "graph.fix_round", Node: node, Data: map[string]any{"reason": fr.Reason, "heads": fr.Heads,
				"checks": len(fr.Checks), "threads": len(fr.Threads)}})
		}
	}
	return evs
}

// trustworthy reports whether a recorded decision would be honoured; an
// untrustworthy one never blocks the real decision from being recorded.
func (r *Runtime) trustworthy(st *State, d *Decision, node string) bool {
	if d == nil || d.Node != node {
		return false
	}
	ok, why := r.signer().Honours(d, false)
	return ok && (why != "" || d.WorkItem == st.WorkItem)
}

func renderMessages(ms []Message) []string {
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.String())
	}
	return out
}

// ClaimAnswer is the answer to a completion claim.
type ClaimAnswer struct {
	Node        string   `json:"node"`
	Status      string   `json:"status"`
	Outcome     string   `json:"outcome"`
	Moved       bool     `json:"moved"`
	CurrentNode string   `json:"currentNode"`
	Messages    []string `json:"messages"`
	Reason      string   `json:"reason"`
}
