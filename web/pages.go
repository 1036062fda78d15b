package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/the-loop/the-loop/service"
)

// itemsView is the items page.
type itemsView struct {
	Board  service.BoardResult
	Repo   string
	State  string
	States []string
	Now    time.Time
	// Counts is how many items each state holds (under the repository
	// filter).
	Counts map[string]int
	// Rows are the items with their cells formatted.
	Rows []itemRow
}

// itemRow is one row of the items page, its cells formatted once here
// rather than by template functions.
type itemRow struct {
	service.BoardItem
	URL, Class, Ago, Tokens, Cost string
}

func (h *Handler) items(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := service.BoardRequest{Repo: q.Get("repo"), State: q.Get("state")}
	board, err := h.opts.Backend.Board(r.Context(), req)
	if err != nil {
		h.fail(w, r, statusOf(err), "the items could not be read: "+err.Error())
		return
	}
	v := itemsView{Board: board, Repo: req.Repo, State: req.State, States: service.BoardStates, Now: h.opts.Now(), Counts: map[string]int{}}
	v.Rows = make([]itemRow, 0, len(board.Items))
	for _, it := range board.Items {
		v.Counts[it.State]++
		v.Rows = append(v.Rows, itemRow{BoardItem: it, URL: itemURL(it.Repo, it.WorkItem, 0), Class: "state-" + cls(it.State),
			Ago: ago(v.Now, it.Since), Tokens: tokensText(it.Tokens), Cost: costText(it.CostUSD, it.UnknownCost)})
	}
	h.render(w, r, http.StatusOK, "items", page{Title: "Items", SignedIn: true, Live: true, Data: v})
}

// itemView is one item's page.
type itemView struct {
	service.BoardItemResult
	Graphs   []graphView
	Now      time.Time
	Spend    spend
	NewerURL string
	OlderURL string
	Page     int
}

type graphView struct {
	Title, Name string
	Drawing     Drawing
}

type spend struct {
	Tokens      int64
	CostUSD     float64
	UnknownCost int
}

func (h *Handler) item(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := service.BoardItemRequest{Repo: q.Get("repo"), WorkItem: q.Get("id")}
	if req.Repo == "" || req.WorkItem == "" {
		h.fail(w, r, http.StatusBadRequest, "name the item: "+Prefix+"item?repo=REPOSITORY&id=WORK-ITEM (follow a link from the items page)")
		return
	}
	if b := q.Get("before"); b != "" {
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n <= 0 {
			h.fail(w, r, http.StatusBadRequest, fmt.Sprintf("before=%q is not an event number; follow the log's “older” link", b))
			return
		}
		req.Before = n
	}
	res, err := h.opts.Backend.BoardItem(r.Context(), req)
	if err != nil {
		h.fail(w, r, statusOf(err), err.Error())
		return
	}
	v := itemView{BoardItemResult: res, Now: h.opts.Now()}
	for _, l := range res.Loops {
		v.Graphs = append(v.Graphs, graphView{Title: l.Title, Name: l.Graph.Name, Drawing: drawingOf(l)})
	}
	for _, s := range res.Sessions {
		v.Spend.Tokens += s.Tokens
		if s.CostSource == "" {
			v.Spend.UnknownCost++
		} else {
			v.Spend.CostUSD += s.CostUSD
		}
	}
	if res.Older > 0 {
		v.OlderURL = itemURL(req.Repo, req.WorkItem, res.Older)
	}
	if req.Before > 0 {
		v.NewerURL = itemURL(req.Repo, req.WorkItem, 0)
	}
	h.render(w, r, http.StatusOK, "item", page{Title: req.WorkItem, SignedIn: true, Live: true, Data: v})
}

// drawingOf turns a loop with its marks into boxes with states in words.
func drawingOf(l service.BoardLoop) Drawing {
	d := Drawing{Title: l.Title + " on " + l.Graph.Name}
	for _, n := range l.Graph.Nodes {
		m := l.Nodes[n.ID]
		state, class := "not reached", "pending"
		switch {
		case m.Current && m.LastBlock != "":
			state, class = "here: blocked", "blocked"
		case m.Current && n.IsHuman():
			state, class = "here: waiting for a human", "current"
		case m.Current && n.Terminal:
			state, class = "here: complete", "current"
		case m.Current:
			state, class = "here: "+n.Actor+" working", "current"
		case m.Skipped:
			state, class = "skipped", "skipped"
		case m.Outcome != "":
			state, class = m.Outcome, "done"
		case m.Visited:
			state, class = "visited", "done"
		}
		if m.Forced {
			state += " (forced)"
		}
		if m.Attempts > 0 {
			state += fmt.Sprintf(" ×%d", m.Attempts)
		}
		d.Boxes = append(d.Boxes, Box{ID: n.ID, State: state, Class: nodeClass(class)})
	}
	for _, e := range l.Graph.Edges {
		d.Links = append(d.Links, Link{From: e.From, To: e.To, On: e.On})
	}
	return d
}

func itemURL(repo, id string, before int64) string {
	v := url.Values{"repo": {repo}, "id": {id}}
	if before > 0 {
		v.Set("before", strconv.FormatInt(before, 10))
	}
	return Prefix + "item?" + v.Encode()
}

func statusOf(err error) int {
	switch {
	case errors.Is(err, service.ErrUnknownItem):
		return http.StatusNotFound
	case errors.Is(err, service.ErrInvalidRequest):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

func costText(usd float64, unknown int) string {
	s := fmt.Sprintf("$%.2f", usd)
	if unknown > 0 {
		s += fmt.Sprintf(" (+%d unknown)", unknown)
	}
	return s
}

func tokensText(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return strconv.FormatInt(n, 10)
}

// ago says how long since t, to the minute ("—" when t is unknown).
func ago(now, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	d := now.Sub(t).Round(time.Minute)
	switch {
	case d < time.Minute:
		return "under a minute"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh %dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// dataText shows an event's payload as compact JSON, clipped.
func dataText(d map[string]any) string {
	b, err := json.Marshal(d)
	if err != nil {
		return fmt.Sprint(d)
	}
	return clip(string(b), 400)
}
