package service

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

// Where an item stands, as a person watching the loop reads it. The order
// of BoardStates is the board's: what needs a human comes first.
const (
	BoardEscalated    = "escalated"
	BoardWaitingHuman = "waiting for a human"
	BoardBlocked      = "blocked"
	BoardHeld         = "held"
	BoardAgentWorking = "agent working"
	BoardNotStarted   = "not started"
	BoardComplete     = "complete"
)

// BoardStates lists the states in the board's order.
var BoardStates = []string{BoardEscalated, BoardWaitingHuman, BoardBlocked, BoardHeld, BoardAgentWorking, BoardNotStarted, BoardComplete}

// BoardRequest filters the board ("" keeps everything).
type BoardRequest struct {
	// Repo keeps the items of one repository key.
	Repo string `json:"repo"`
	// State keeps one of BoardStates.
	State string `json:"state"`
}

// BoardItem is one work item on the board.
type BoardItem struct {
	Repo     string `json:"repo"`
	WorkItem string `json:"workItem"`
	// Ref is the ticket (github:OWNER/REPO#N, jira:KEY-1); TicketURL its
	// page ("" when unknown).
	Ref       string `json:"ref,omitempty"`
	TicketURL string `json:"ticketUrl,omitempty"`
	Loop      string `json:"loop"`
	Node      string `json:"node"`
	Actor     string `json:"actor,omitempty"`
	State     string `json:"state"`
	// Stuck says, one line each, what keeps the item where it is: an
	// escalation, a park, a hold, a block, dependencies.
	Stuck []string `json:"stuck"`
	// Since is when the item entered its node (zero: not recorded).
	Since       time.Time `json:"since,omitzero"`
	Running     int       `json:"running"`
	Sessions    int       `json:"sessions"`
	Tokens      int64     `json:"tokens"`
	CostUSD     float64   `json:"costUsd"`
	UnknownCost int       `json:"unknownCost"`
}

// BoardResult is the board: every item the store knows, what needs a human
// first, and the repositories it spans (for a filter).
type BoardResult struct {
	Items []BoardItem `json:"items"`
	Repos []string    `json:"repos"`
}

// Board lists every work item the state store holds, in every repository,
// one row each, sorted so what needs a human comes first (then by time at
// the node, longest first). Read-only.
func (s *Service) Board(ctx context.Context, req BoardRequest) (BoardResult, error) {
	out := BoardResult{Items: []BoardItem{}, Repos: []string{}}
	if req.State != "" && !slices.Contains(BoardStates, req.State) {
		return out, invalid(fmt.Errorf("state %q is not one of %s", req.State, strings.Join(BoardStates, ", ")))
	}
	st, release, err := s.readStore(ctx)
	if err != nil {
		return out, err
	}
	defer release()
	if st == nil {
		return out, nil
	}
	items, err := st.ListAll(ctx)
	if err != nil {
		return out, err
	}
	sessions, err := st.ListSessions(ctx, store.SessionFilter{})
	if err != nil {
		return out, err
	}
	stops, err := st.SessionStops(ctx)
	if err != nil {
		return out, err
	}
	condEvents, err := st.EventsNamed(ctx, "condition.")
	if err != nil {
		return out, err
	}
	type key struct{ repo, id string }
	bySess := map[key][]store.Session{}
	for _, r := range sessions {
		k := key{r.Repo, r.WorkItem}
		bySess[k] = append(bySess[k], r)
	}
	byCond := map[key][]store.Event{}
	for _, e := range condEvents {
		k := key{e.Repo, e.WorkItem}
		byCond[k] = append(byCond[k], e)
	}
	for _, it := range items {
		if !slices.Contains(out.Repos, it.Repo) {
			out.Repos = append(out.Repos, it.Repo)
		}
		if req.Repo != "" && it.Repo != req.Repo {
			continue
		}
		row := s.boardItem(it, bySess[key{it.Repo, it.ID}], stops)
		if row.State != BoardComplete {
			// what keeps it stuck outside its walk, as graph status says it
			for _, c := range runtime.Conditions(eventRecords(byCond[key{it.Repo, it.ID}])) {
				row.Stuck = append(row.Stuck, c.Line(s.now()))
			}
		}
		if req.State != "" && row.State != req.State {
			continue
		}
		out.Items = append(out.Items, row)
	}
	slices.SortStableFunc(out.Items, func(a, b BoardItem) int {
		if d := slices.Index(BoardStates, a.State) - slices.Index(BoardStates, b.State); d != 0 {
			return d
		}
		if d := a.Since.Compare(b.Since); d != 0 {
			return d // longest at its node first
		}
		return strings.Compare(a.Repo+"\x00"+a.WorkItem, b.Repo+"\x00"+b.WorkItem)
	})
	return out, nil
}

// boardItem reads one stored item: its state blob, its sessions and the
// operator's takeovers.
func (s *Service) boardItem(it store.WorkItem, sessions []store.Session, stops []store.SessionStop) BoardItem {
	row := BoardItem{Repo: it.Repo, WorkItem: it.ID, Loop: it.Loop, Node: it.CurrentNode, Stuck: []string{}}
	for _, r := range sessions {
		row.Sessions++
		if r.Running() {
			row.Running++
		}
		row.Tokens += r.Tokens
		if r.CostSource == "" {
			row.UnknownCost++
		} else {
			row.CostUSD += r.CostUSD
		}
	}
	state, err := runtime.ParseState(it.State, it.ID)
	if err != nil {
		row.State = BoardBlocked
		row.Stuck = append(row.Stuck, "the stored state is unreadable: "+err.Error())
		return row
	}
	row.Ref, row.TicketURL = state.Ref, s.TicketURL(state.Ref)
	row.Since = visitStart(state, state.CurrentNode)
	if rec := state.Nodes[state.CurrentNode]; row.Since.IsZero() && rec != nil {
		row.Since, _ = time.Parse(time.RFC3339, rec.EnteredAt)
	}
	row.State, row.Stuck = s.boardState(state, stops, it.Repo, row.Running)
	if g, err := Graph(state.Loop); err == nil {
		if n, ok := g.Node(state.CurrentNode); ok {
			row.Actor = n.Actor
		}
	}
	return row
}

// boardState classes a state into one of BoardStates and says what keeps
// it there.
func (s *Service) boardState(state *runtime.State, stops []store.SessionStop, repo string, running int) (string, []string) {
	stuck := []string{}
	g, gerr := Graph(state.Loop)
	var n *runtime.Node
	if gerr == nil {
		n, _ = g.Node(state.CurrentNode)
	}
	class := ""
	if state.Escalation != nil {
		class = BoardEscalated
		stuck = append(stuck, fmt.Sprintf("escalated from %s: %s", state.Escalation.From, state.Escalation.Reason))
	}
	var hold *runtime.HoldError
	if h := runtime.Held(s.cfg, state); h != nil {
		hold = h
	} else {
		for _, stop := range stops {
			if stop.Repo == repo && stop.WorkItem == state.WorkItem && stop.Node == state.CurrentNode && holdsVisit(stop, visitStart(state, stop.Node)) {
				hold = takeoverOf(stop)
			}
		}
	}
	if hold != nil {
		stuck = append(stuck, hold.State()+": "+hold.Error())
	}
	if state.Parked != nil {
		stuck = append(stuck, fmt.Sprintf("parked at %s: %s", state.Parked.Node, state.Parked.Reason))
	}
	if d := state.Dependencies; d != nil && d.Holds() {
		stuck = append(stuck, "dependencies: "+d.Message())
	}
	rec := state.Nodes[state.CurrentNode]
	if rec != nil && rec.LastBlock != "" {
		stuck = append(stuck, "blocked: "+rec.LastBlock)
	}
	switch {
	case class != "":
	case gerr != nil:
		class = BoardBlocked
		stuck = append(stuck, gerr.Error())
	case state.CurrentNode == "":
		class = BoardNotStarted
	case n != nil && n.Terminal:
		class, stuck = BoardComplete, []string{}
	case n != nil && n.IsHuman():
		class = BoardWaitingHuman
	case hold != nil:
		class = BoardHeld
	case running > 0:
		class = BoardAgentWorking
	case state.Parked != nil || (rec != nil && rec.LastBlock != "") || (state.Dependencies != nil && state.Dependencies.Holds()):
		class = BoardBlocked
	default:
		class = BoardAgentWorking
	}
	return class, stuck
}

// TicketURL is the web page of a ticket ref (github:OWNER/REPO#N,
// jira:KEY-1): GitHub's issue page, or Jira's when integrations.jira.baseUrl
// is set; "" when it cannot be told.
func (s *Service) TicketURL(ref string) string {
	r, err := runtime.ParseTicketRef(ref)
	if err != nil {
		return ""
	}
	switch r.System {
	case "github":
		host := r.Host
		if host == "" {
			host = "github.com"
		}
		return fmt.Sprintf("https://%s/%s/%s/issues/%d", host, r.Owner, r.Repo, r.Number)
	case "jira":
		if base := s.cfg.Integrations.Jira.BaseURL; base != "" {
			return strings.TrimRight(base, "/") + "/browse/" + r.Key
		}
	}
	return ""
}

// BoardMark is a short string that changes whenever anything the board or
// an item's page shows changes in the store ("" while no store exists): a
// view reloads when it moves.
func (s *Service) BoardMark(ctx context.Context) (string, error) {
	st, release, err := s.readStore(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	if st == nil {
		return "", nil
	}
	return st.ChangeMark(ctx)
}
