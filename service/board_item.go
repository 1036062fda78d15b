package service

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/the-loop/the-loop/internal/proc"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/store"
)

// DefaultEventPage is how many events one page of an item's log holds.
const DefaultEventPage = 50

// BoardItemRequest names one stored item and a page of its event log.
type BoardItemRequest struct {
	// Repo is the repository key the store holds the item under.
	Repo     string `json:"repo"`
	WorkItem string `json:"workItem"`
	// Before pages the event log: events with a smaller sequence number
	// (0: the newest).
	Before int64 `json:"before"`
	// PageSize is how many events (0: DefaultEventPage).
	PageSize int `json:"pageSize"`
}

// BoardNode is how one node of an item's loop stands.
type BoardNode struct {
	Outcome string `json:"outcome,omitempty"`
	// Current marks the node the pointer is on.
	Current bool `json:"current,omitempty"`
	Skipped bool `json:"skipped,omitempty"`
	Forced  bool `json:"forced,omitempty"`
	Visited bool `json:"visited,omitempty"`
	// Attempts counts failed evaluations; LastBlock is the latest block.
	Attempts  int    `json:"attempts,omitempty"`
	LastBlock string `json:"lastBlock,omitempty"`
}

// BoardLoop is one loop's graph with the item's marks on it.
type BoardLoop struct {
	// Key is the store id of the loop's state (the item, or item/sub for a
	// pull request's loop).
	Key   string               `json:"key"`
	Title string               `json:"title"`
	Graph GraphView            `json:"graph"`
	Nodes map[string]BoardNode `json:"nodes"`
}

// BoardDecision is a recorded decision and whether its signature verifies.
type BoardDecision struct {
	Node       string `json:"node"`
	Kind       string `json:"kind"`
	Outcome    string `json:"outcome,omitempty"`
	By         string `json:"by"`
	At         string `json:"at"`
	CommentURL string `json:"commentUrl,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// Trust is verified, unsigned, forged or unverifiable; TrustNote says
	// why it is not verified.
	Trust     string `json:"trust"`
	TrustNote string `json:"trustNote,omitempty"`
}

// BoardItemResult is everything one item's page shows.
type BoardItemResult struct {
	Item BoardItem `json:"item"`
	// Loops are the item's own loop, then each pull request's loop.
	Loops     []BoardLoop     `json:"loops"`
	Decisions []BoardDecision `json:"decisions"`
	Sessions  []SessionView   `json:"sessions"`
	// Tail is the end of the newest session's transcript, secrets
	// redacted; TailSession names that session.
	Tail        []string `json:"tail"`
	TailSession string   `json:"tailSession,omitempty"`
	// Events is one page of the log, newest first; Older is the Before of
	// the next page (0: none); Total counts every event.
	Events []runtime.EventRecord `json:"events"`
	Older  int64                 `json:"older"`
	Total  int                   `json:"total"`
}

// tailLines is how much of the newest transcript an item's page shows.
const tailLines = 20

// BoardItem reads one stored item for its page: the loop with the
// pointer, decisions with their signatures checked, sessions with their
// tokens and cost, and a page of the event log. Read-only.
func (s *Service) BoardItem(ctx context.Context, req BoardItemRequest) (BoardItemResult, error) {
	out := BoardItemResult{Loops: []BoardLoop{}, Decisions: []BoardDecision{}, Sessions: []SessionView{}, Tail: []string{}, Events: []runtime.EventRecord{}}
	if err := validID(req.WorkItem); err != nil {
		return out, err
	}
	if req.PageSize <= 0 {
		req.PageSize = DefaultEventPage
	}
	st, release, err := s.readStore(ctx)
	if err != nil {
		return out, err
	}
	defer release()
	if st == nil {
		return out, notFound(req)
	}
	it, found, err := st.Get(ctx, req.Repo, req.WorkItem)
	if err != nil {
		return out, err
	}
	if !found {
		return out, notFound(req)
	}
	recs, err := st.ListSessions(ctx, store.SessionFilter{Repo: req.Repo, WorkItem: req.WorkItem})
	if err != nil {
		return out, err
	}
	stops, err := st.SessionStops(ctx)
	if err != nil {
		return out, err
	}
	out.Item = s.boardItem(it, recs, stops)
	for _, r := range recs {
		out.Sessions = append(out.Sessions, s.viewOf(r))
	}
	sort.SliceStable(out.Sessions, func(i, j int) bool { return out.Sessions[i].StartedAt.After(out.Sessions[j].StartedAt) })
	if len(out.Sessions) > 0 {
		newest := out.Sessions[0]
		if logs, err := s.SessionLogs(ctx, SessionLogsRequest{Session: newest.ID, Lines: tailLines}); err == nil {
			secrets := proc.SecretValuesOf(os.Environ())
			for _, l := range logs.Lines {
				out.Tail = append(out.Tail, proc.RedactText(l, secrets))
			}
			out.TailSession = newest.ID
		}
	}
	state, err := runtime.ParseState(it.State, it.ID)
	if err != nil {
		return out, fmt.Errorf("stored state of %s in %s is unreadable: %w", req.WorkItem, req.Repo, err)
	}
	signer, _ := s.deps.Signer.ForRepo(req.Repo)
	out.Decisions = decisionsOf(state, signer)
	if loop, ok := boardLoop(it.ID, req.WorkItem, state); ok {
		out.Loops = append(out.Loops, loop)
	}
	// A pull request's loop is stored beside the item as item/sub.
	all, err := st.List(ctx, req.Repo)
	if err != nil {
		return out, err
	}
	for _, inner := range all {
		sub, ok := strings.CutPrefix(inner.ID, req.WorkItem+"/")
		if !ok {
			continue
		}
		if ist, err := runtime.ParseState(inner.State, inner.ID); err == nil {
			if loop, ok := boardLoop(inner.ID, sub, ist); ok {
				out.Loops = append(out.Loops, loop)
			}
		}
	}
	stored, err := st.Events(ctx, req.Repo, req.WorkItem)
	if err != nil {
		return out, err
	}
	evs := eventRecords(stored)
	out.Total = len(evs)
	slices.Reverse(evs)
	start := 0
	if req.Before > 0 {
		start = sort.Search(len(evs), func(i int) bool { return evs[i].Seq < req.Before })
	}
	end := min(start+req.PageSize, len(evs))
	out.Events = append(out.Events, evs[start:end]...)
	if end < len(evs) {
		out.Older = evs[end-1].Seq
	}
	return out, nil
}

func notFound(req BoardItemRequest) error {
	return fmt.Errorf("%w %q: the state store holds nothing for it under %s", ErrUnknownItem, req.WorkItem, req.Repo)
}

// boardLoop marks state's loop: its outcomes, the pointer, skips.
func boardLoop(key, title string, state *runtime.State) (BoardLoop, bool) {
	g, err := Graph(state.Loop)
	if err != nil {
		return BoardLoop{}, false
	}
	loop := BoardLoop{Key: key, Title: title, Graph: GraphView{Version: g.Version, Name: g.Name, Start: g.Start, Nodes: g.Nodes, Edges: g.Edges, SkipSets: g.SkipSets, Graph: g},
		Nodes: map[string]BoardNode{}}
	for id, rec := range state.Nodes {
		if rec == nil {
			continue
		}
		loop.Nodes[id] = BoardNode{Outcome: rec.Outcome, Skipped: rec.Outcome == "skipped" || state.Skips[id] != nil, Forced: rec.Forced,
			Visited: rec.EnteredAt != "", Attempts: rec.Attempts, LastBlock: rec.LastBlock}
	}
	for id := range state.Skips {
		n := loop.Nodes[id]
		n.Skipped = true
		loop.Nodes[id] = n
	}
	if state.CurrentNode != "" {
		n := loop.Nodes[state.CurrentNode]
		n.Current = true
		loop.Nodes[state.CurrentNode] = n
	}
	return loop, true
}

// decisionsOf lists state's recorded acts, oldest first, each judged by
// signer.
func decisionsOf(state *runtime.State, signer *runtime.Signer) []BoardDecision {
	var ds []*runtime.Decision
	for _, m := range []map[string]*runtime.Decision{state.Decisions, state.Skips, state.OptIns} {
		for _, d := range m {
			ds = append(ds, d)
		}
	}
	ds = append(ds, state.Forced...)
	if state.Repos != nil {
		ds = append(ds, state.Repos)
	}
	out := []BoardDecision{}
	for _, d := range ds {
		if d == nil {
			continue
		}
		bd := BoardDecision{Node: d.Node, Kind: d.Kind, Outcome: d.Outcome, By: d.By, At: d.At, CommentURL: d.CommentURL, Reason: d.Reason, Trust: "unverifiable",
			TrustNote: "no signer is configured for this repository"}
		if signer != nil {
			t, note := signer.Check(d)
			bd.Trust, bd.TrustNote = trustName(t), note
		}
		out = append(out, bd)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].At != out[j].At {
			return out[i].At < out[j].At
		}
		return out[i].Node+out[i].Kind < out[j].Node+out[j].Kind
	})
	return out
}

func trustName(t runtime.Trust) string {
	switch t {
	case runtime.Verified:
		return "verified"
	case runtime.Unsigned:
		return "unsigned"
	case runtime.Forged:
		return "forged"
	}
	return "unverifiable"
}
