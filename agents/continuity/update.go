package continuity

import (
	"errors"
	"fmt"
	"strings"
)

// Entry is one changed fact to record: a decision, a discovery, a task-state
// change, a blocker change or a phase boundary.
type Entry struct {
	// Kind is decision, discovery, task, blocker or phase.
	Kind string `json:"kind"`
	// Text is the fact itself. It may be empty only when Node names an
	// existing task or blocker whose status changes.
	Text string `json:"text,omitempty"`
	// Why is the rationale: why the fact matters.
	Why string `json:"why,omitempty"`
	// Node is the task or blocker id to create or change (default: a new id).
	Node string `json:"node,omitempty"`
	// Status is open, done or blocked (tasks and blockers only).
	Status string `json:"status,omitempty"`
	// DependsOn lists nodes this task needs first.
	DependsOn []string `json:"dependsOn,omitempty"`
	// Blocks is the task a new blocker holds up.
	Blocks string `json:"blocks,omitempty"`
	// Resolves is the blocker this decision or task resolves.
	Resolves string `json:"resolves,omitempty"`
	// Files are the active files the fact concerns.
	Files []string `json:"files,omitempty"`
	// Next replaces the recorded next action.
	Next string `json:"next,omitempty"`
}

// UpdateResult reports what an update or ending recorded.
type UpdateResult struct {
	Kind       string   `json:"kind"`
	Node       string   `json:"node,omitempty"`
	NodeStatus string   `json:"nodeStatus,omitempty"`
	Status     string   `json:"status"`
	Revision   int      `json:"revision"`
	NextAction string   `json:"nextAction"`
	Blockers   []string `json:"blockers,omitempty"`
	DeathPoint string   `json:"deathPoint"`
}

// live loads the set and insists it is active.
func (s *Set) live() (loaded, error) {
	l := s.load(s.Dir())
	if l.torn && s.now().Sub(l.dp.Updated) <= s.staleAfter() {
		// A write cut short between its files: keep every part as it is
		// (the notes hold every record) and move the revision past them all.
		l.repair = fmt.Sprintf("repaired an update that did not finish: the death point was at revision %d, the notes at %d and the graph at %d; the files were kept as they were",
			l.dp.Revision, l.notes.Revision, l.graph.Revision)
		l.rejection = nil
	}
	switch {
	case l.absent:
		return l, errors.New("continuity: no live continuity set: start one with `the-loop continuity init --goal TEXT`")
	case l.rejection != nil && l.rejection.Reason == ReasonCompleted:
		return l, errors.New("continuity: the live set is completed; start a new one with `the-loop continuity init --goal TEXT`")
	case l.rejection != nil:
		return l, fmt.Errorf("continuity: the live set cannot be updated: %s; resume to start fresh (the files are kept): the continuity_resume tool or `the-loop continuity resume`", l.rejection.Message())
	case l.dp.Status == StatusInterrupted:
		return l, errors.New("continuity: the live set is interrupted; resume it before recording more: the continuity_resume tool or `the-loop continuity resume`")
	}
	return l, nil
}

func (e Entry) validate() error {
	switch e.Kind {
	case KindDecision, KindDiscovery, KindTask, KindBlocker, KindPhase:
	case "":
		return errors.New("continuity: entry kind is required: one of decision, discovery, task, blocker, phase")
	default:
		return fmt.Errorf("continuity: entry kind %q is not one of decision, discovery, task, blocker, phase", e.Kind)
	}
	if e.Status != "" {
		if e.Kind != KindTask && e.Kind != KindBlocker {
			return fmt.Errorf("continuity: status applies only to task and blocker entries, not %s", e.Kind)
		}
		switch e.Status {
		case StatusOpen, StatusDone, StatusBlocked:
		default:
			return fmt.Errorf("continuity: status %q is not one of open, done, blocked", e.Status)
		}
	}
	for _, id := range append([]string{e.Node, e.Blocks, e.Resolves}, e.DependsOn...) {
		if id != "" && !validID(id) {
			return fmt.Errorf("continuity: node id %q must be letters, digits, '.', '-' or '_' (at most 64)", id)
		}
	}
	if e.Blocks != "" && e.Kind != KindBlocker {
		return errors.New("continuity: blocks applies only to blocker entries")
	}
	if e.Resolves != "" && e.Kind != KindDecision && e.Kind != KindTask {
		return errors.New("continuity: resolves applies only to decision and task entries")
	}
	if len(e.DependsOn) > 0 && e.Kind != KindTask {
		return errors.New("continuity: dependsOn applies only to task entries")
	}
	return nil
}

// Update records one changed fact in notes, graph and death point and
// flushes all three.
// It holds the repository's continuity lock, so calls from several
// processes never interleave.
func (s *Set) Update(e Entry) (UpdateResult, error) {
	return locked(s, func() (UpdateResult, error) { return s.update(e) })
}

// update is Update without the lock.
func (s *Set) update(e Entry) (UpdateResult, error) {
	if err := e.validate(); err != nil {
		return UpdateResult{}, err
	}
	if _, err := s.EnsureIgnored(); err != nil {
		return UpdateResult{}, err
	}
	l, err := s.live()
	if err != nil {
		return UpdateResult{}, err
	}
	notes, graph, dp := *l.notes, *l.graph, *l.dp
	text := strings.TrimSpace(e.Text)
	node, err := applyToGraph(&graph, e, text)
	if err != nil {
		return UpdateResult{}, err
	}
	var n Node
	if node != "" {
		n = *graph.node(node)
		if text == "" {
			text = fmt.Sprintf("%s %s is now %s: %s", n.Kind, n.ID, n.Status, n.Text)
		}
	}
	now := s.now()
	notes.Records = append(notes.Records, l.repairRecords(now)...)
	notes.Records = append(notes.Records, Record{
		At: now, Kind: e.Kind, Session: dp.Session, Node: node, Status: n.Status,
		Text: text, Why: oneLine(e.Why), Files: cleanFiles(e.Files),
	})
	dp.Updated = now
	dp.LastCompleted = lastDone(notes.Records, &graph)
	if e.Kind == KindPhase {
		dp.Phase = nodeText(text)
	}
	if next := oneLine(e.Next); next != "" {
		dp.NextAction = next
	}
	dp.Blockers = graph.openBlockers()
	rev := l.nextRevision()
	notes.Revision, graph.Revision, dp.Revision = rev, rev, rev
	if err := s.writeSet(notes, graph, dp); err != nil {
		return UpdateResult{}, err
	}
	return UpdateResult{
		Kind: e.Kind, Node: node, NodeStatus: n.Status, Status: dp.Status, Revision: rev,
		NextAction: dp.NextAction, Blockers: dp.Blockers, DeathPoint: s.rel(s.DeathPointPath()),
	}, nil
}

func cleanFiles(files []string) []string {
	var out []string
	for _, f := range files {
		if f = oneLine(f); f != "" && !strings.Contains(f, ",") {
			out = append(out, f)
		}
	}
	return out
}

// applyToGraph changes the graph for e and returns the node it touched.
func applyToGraph(g *TaskGraph, e Entry, text string) (string, error) {
	var id string
	switch e.Kind {
	case KindTask, KindBlocker:
		kind := NodeTask
		if e.Kind == KindBlocker {
			kind = NodeBlocker
		}
		if existing := g.node(e.Node); e.Node != "" && existing != nil {
			if existing.Kind != kind {
				return "", fmt.Errorf("continuity: node %s is a %s, not a %s", e.Node, existing.Kind, kind)
			}
			if e.Status == "" && text == "" {
				return "", fmt.Errorf("continuity: nothing to change on %s: give a status or text", e.Node)
			}
			if e.Status != "" {
				existing.Status = e.Status
			}
			if text != "" {
				existing.Text = nodeText(text)
			}
			id = existing.ID
		} else {
			if text == "" {
				return "", fmt.Errorf("continuity: a new %s needs text", kind)
			}
			id = e.Node
			if id == "" {
				id = g.nextID(kind[:1])
			}
			status := e.Status
			if status == "" {
				status = StatusOpen
			}
			if g.node(id) != nil {
				return "", fmt.Errorf("continuity: node %s already exists", id)
			}
			prev := ""
			if p := g.lastOfKind(kind); p != nil {
				prev = p.ID
			}
			g.Nodes = append(g.Nodes, Node{ID: id, Kind: kind, Status: status, Text: nodeText(text)})
			if prev != "" && kind == NodeTask {
				g.addEdge(prev, id, EdgeSequence)
			}
		}
	case KindDecision:
		if text == "" {
			return "", errors.New("continuity: a decision needs text")
		}
		id = e.Node
		if id == "" || g.node(id) != nil {
			id = g.nextID("d")
		}
		g.Nodes = append(g.Nodes, Node{ID: id, Kind: NodeDecision, Status: StatusDone, Text: nodeText(text)})
	default:
		if text == "" {
			return "", fmt.Errorf("continuity: a %s needs text", e.Kind)
		}
		return "", nil
	}
	for _, dep := range e.DependsOn {
		if g.node(dep) == nil {
			return "", fmt.Errorf("continuity: dependsOn names unknown node %q", dep)
		}
		g.addEdge(id, dep, EdgeDepends)
	}
	if e.Blocks != "" {
		task := g.node(e.Blocks)
		if task == nil || task.Kind != NodeTask {
			return "", fmt.Errorf("continuity: blocks names %q, which is not a task", e.Blocks)
		}
		task.Status = StatusBlocked
		g.addEdge(task.ID, id, EdgeDepends)
	}
	if e.Kind == KindBlocker && e.Status == StatusDone {
		unblock(g, id)
	}
	if e.Resolves != "" {
		b := g.node(e.Resolves)
		if b == nil || b.Kind != NodeBlocker {
			return "", fmt.Errorf("continuity: resolves names %q, which is not a blocker", e.Resolves)
		}
		b.Status = StatusDone
		g.addEdge(id, b.ID, EdgeResolution)
		unblock(g, b.ID)
	}
	return id, nil
}

// unblock reopens tasks whose every blocker is now done.
func unblock(g *TaskGraph, blocker string) {
	for i := range g.Nodes {
		t := &g.Nodes[i]
		if t.Kind != NodeTask || t.Status != StatusBlocked {
			continue
		}
		dependsOnIt, stillBlocked := false, false
		for _, e := range g.Edges {
			if e.From != t.ID || e.Kind != EdgeDepends {
				continue
			}
			if e.To == blocker {
				dependsOnIt = true
			}
			if b := g.node(e.To); b != nil && b.Kind == NodeBlocker && b.Status != StatusDone {
				stillBlocked = true
			}
		}
		if dependsOnIt && !stillBlocked {
			t.Status = StatusOpen
		}
	}
}

// nodeText is the noise-filtered one-line summary a graph node keeps.
func nodeText(text string) string {
	if t := newNoiseFilter().item(text); t != "" {
		return t
	}
	return capItem(oneLine(text))
}
