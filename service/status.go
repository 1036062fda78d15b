package service

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/the-loop/the-loop/agents/sandbox"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

// GraphStatus is where a work item stands, for an agent's prompt.
type GraphStatus struct {
	WorkItem    string              `json:"workItem"`
	Loop        string              `json:"loop"`
	Started     bool                `json:"started"`
	CurrentNode string              `json:"currentNode"`
	Actor       string              `json:"actor"`
	Status      string              `json:"status"`
	Needs       []string            `json:"needs"`
	Parked      *runtime.Parked     `json:"parked"`
	Escalation  *runtime.Escalation `json:"escalation,omitempty"`
	// Dependencies is the poller's last read of the item's blockers.
	Dependencies *runtime.DependencyReport `json:"dependencies,omitempty"`
	// Control is what holds the item (nil when nothing does): the ticket's
	// pause or stop, or an operator's takeover of the node it stands on.
	Control *runtime.Control `json:"control,omitempty"`
	// Conditions are why the poller finds the item stuck outside its walk
	// (a refused push, a tree it cannot sync, a tracker or store it cannot
	// reach, a session it cannot launch), as its event log records them;
	// never null.
	Conditions []runtime.Condition `json:"conditions"`
	// GraphContext is the $graph_context block for the agent's prompt.
	GraphContext string `json:"graphContext"`
	// Sessions is the item's newest agent session, in one line.
	Sessions string   `json:"sessions"`
	Warnings []string `json:"-"`
}

// UnconfinedWarning is what graph status says while the operator has opted
// out of confining sessions.
const UnconfinedWarning = "sessions.confinement: none: the loop's sessions are not confined; each runs as the poller's user and can read what it reads (the config, the signing key, the store)"

// Status reports where one work item stands, read-only.
func (s *Service) Status(ctx context.Context, req ItemRequest) (GraphStatus, error) {
	res, err := s.Check(ctx, CheckRequest{Repo: req.Repo, WorkItem: req.WorkItem})
	if err != nil {
		return GraphStatus{Warnings: res.Warnings}, err
	}
	repo, err := s.openRepo(req.Repo)
	if err != nil {
		return GraphStatus{}, err
	}
	st, release, err := s.readStore(ctx)
	if err != nil {
		return GraphStatus{}, err
	}
	defer release()
	state, _, err := (&persister{st: st, repo: repo}).Load(ctx, req.WorkItem)
	if err != nil {
		return GraphStatus{}, err
	}
	rep := res.Reports[0]
	g := res.Graphs[req.WorkItem]
	out := GraphStatus{WorkItem: req.WorkItem, Loop: g.Name, Started: state.CurrentNode != "", CurrentNode: rep.CurrentNode,
		Parked: rep.Parked, Escalation: state.Escalation, Dependencies: rep.Dependencies, Needs: []string{}, Warnings: res.Warnings}
	n, _ := g.Node(rep.CurrentNode)
	if n != nil {
		out.Actor = n.Actor
	}
	for _, nr := range rep.Nodes {
		if nr.Node == rep.CurrentNode {
			out.Status = nr.Status
			out.Needs = append(out.Needs, nr.Messages...)
		}
	}
	hold := ""
	if h := s.heldNow(ctx, st, repo.Root, req.WorkItem, state); h != nil {
		hold, out.Control = strings.ToUpper(h.State())+": "+h.Error(), &h.Control
	}
	out.Conditions = []runtime.Condition{}
	if evs, err := (&persister{st: st, repo: repo}).Events(ctx, req.WorkItem); err == nil {
		out.Conditions = append(out.Conditions, runtime.Conditions(evs)...)
	}
	out.GraphContext = graphContext(g, n, state, out, hold, s.now())
	out.Sessions = s.sessionLine(ctx, st, repo.Root, req.WorkItem)
	if s.cfg.SessionsEnabled() && s.cfg.Sessions.Confinement == sandbox.ModeNone {
		out.Warnings = append(out.Warnings, UnconfinedWarning)
	}
	return out, nil
}

// heldNow is what holds item id as it stands, as the launch rule sees it:
// the ticket's pause or stop, else an operator's takeover of its node (read
// from st; nil st holds no takeover).
func (s *Service) heldNow(ctx context.Context, st *store.Store, repo, id string, state *runtime.State) *runtime.HoldError {
	if h := runtime.Held(s.cfg, state); h != nil || st == nil {
		return h
	}
	stops, err := st.SessionStops(ctx)
	if err != nil {
		return nil
	}
	for _, stop := range stops {
		if stop.Repo == repo && stop.WorkItem == id && stop.Node == state.CurrentNode && holdsVisit(stop, visitStart(state, stop.Node)) {
			return takeoverOf(stop)
		}
	}
	return nil
}

// graphContext renders the block an agent's prompt carries.
func graphContext(g *runtime.Graph, n *runtime.Node, st *runtime.State, gs GraphStatus, hold string, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the-loop graph context for %s (%s):\n", gs.WorkItem, g.Name)
	if !gs.Started {
		fmt.Fprintf(&b, "  NOT ENTERED YET — the walk starts at %s when a human arms the work item; do not start a phase.\n", g.Start)
	}
	if n != nil {
		line := "  current node: " + n.ID
		if n.Phase != "" {
			line += " (phase: " + n.Phase + ")"
		}
		b.WriteString(line + "\n")
		fmt.Fprintf(&b, "  status: %s\n", gs.Status)
		for _, m := range gs.Needs {
			fmt.Fprintf(&b, "  needs: %s\n", m)
		}
		if len(n.Produces) > 0 {
			fmt.Fprintf(&b, "  produce: %s\n", strings.Join(n.Produces, ", "))
		}
		if cmd := runtime.WorkCommand(n, gs.Status); cmd != "" {
			fmt.Fprintf(&b, "  work it with: `/the-loop:%s %s`\n", cmd, gs.WorkItem)
		}
		if n.IsHuman() {
			b.WriteString("  this is a HUMAN gate: it completes when an authorized reviewer answers on the ticket. Do not claim it.\n")
		} else if !n.Terminal && gs.Started {
			fmt.Fprintf(&b, "  when this node's work is done, claim it: the graph_complete tool, or `the-loop graph complete %s`\n", gs.WorkItem)
		}
	}
	if st.Handoff != nil {
		var rec struct {
			Stage     string `json:"stage"`
			Enter     string `json:"enter"`
			CarriedBy string `json:"carriedBy"`
		}
		_ = json.Unmarshal(st.Handoff.Record, &rec)
		fmt.Fprintf(&b, "  handed off: stage %s, enter %s, carried by %s; record %s\n", rec.Stage, rec.Enter, rec.CarriedBy, st.Handoff.CommentURL)
	}
	if st.ClaudeArtifactURL != "" {
		fmt.Fprintf(&b, "  artifact: republish the spec-chain artifact to %s\n", st.ClaudeArtifactURL)
	}
	if d := gs.Dependencies; d != nil && d.Holds() {
		fmt.Fprintf(&b, "  dependencies: %s (%s)%s\n", d.Message(), DependencyAge(d), dependencyAdvice(gs.CurrentNode, d))
	}
	if gs.Escalation != nil {
		fmt.Fprintf(&b, "  ESCALATED from %s: %s — a human decides how to proceed and resumes the walk (an operator act); do not work around it.\n", gs.Escalation.From, gs.Escalation.Reason)
	}
	if hold != "" {
		fmt.Fprintf(&b, "  %s. Stop working on it.\n", hold)
	}
	for _, c := range gs.Conditions {
		fmt.Fprintf(&b, "  STUCK: %s\n", c.Line(now))
	}
	return strings.TrimRight(b.String(), "\n")
}

// GraphShowRequest names a shipped loop.
type GraphShowRequest struct {
	// Loop is the shipped loop ("" = the default loop).
	Loop string `json:"loop"`
}

// GraphView is a shipped loop's nodes and edges.
type GraphView struct {
	Version int             `json:"version"`
	Name    string          `json:"name"`
	Start   string          `json:"start"`
	Nodes   []*runtime.Node `json:"nodes"`
	Edges   []runtime.Edge  `json:"edges"`
	// SkipSets maps a set name to its member nodes.
	SkipSets map[string][]string `json:"skipSets"`
	// Graph is the compiled loop, for the renderers (GraphText, Mermaid).
	Graph    *runtime.Graph `json:"-"`
	Warnings []string       `json:"-"`
}

// GraphShow returns a shipped loop.
func (s *Service) GraphShow(ctx context.Context, req GraphShowRequest) (GraphView, error) {
	if err := ctx.Err(); err != nil {
		return GraphView{}, err
	}
	g, err := Graph(req.Loop)
	if err != nil {
		return GraphView{}, err
	}
	return GraphView{Version: g.Version, Name: g.Name, Start: g.Start, Nodes: g.Nodes, Edges: g.Edges, SkipSets: g.SkipSets, Graph: g}, nil
}

// DependencyAge says how old a dependency read is: "read 3m ago", or, when
// the store holds no read of it, when the record was made.
func DependencyAge(d *runtime.DependencyReport) string {
	switch {
	case d.Age != "":
		return "read " + d.Age + " ago"
	case d.Since != "":
		return "recorded " + d.Since + "; this store holds no later read"
	}
	return "never read by this store's poller"
}

// dependencyAdvice tells an agent what a hold means for it.
func dependencyAdvice(node string, d *runtime.DependencyReport) string {
	if node == phaseSelection && d.Hold {
		return " — phase selection waits until they finish: do not start work on this item"
	}
	return ""
}
