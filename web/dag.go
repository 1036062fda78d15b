package web

import (
	"net/http"
	"net/url"

	"github.com/the-loop/the-loop/integrations/relations"
	"github.com/the-loop/the-loop/runtime/dag"
	"github.com/the-loop/the-loop/service"
)

// dagView is the project DAG page: the plan `the-loop plan` prints, drawn.
type dagView struct {
	Repo, Item, Root string
	Drawing          Drawing
	Rows             []dagRow
	Cycles           [][]string
	Warnings         []string
}

// dagRow is one item of the plan with what blocks it.
type dagRow struct {
	Ref, URL, Title, Verdict, State, Node, Class string
	Hold                                         bool
	Blockers                                     []dagBlocker
	Parents, Children                            []string
}

type dagBlocker struct{ Ref, URL, At, Via string }

func (h *Handler) dag(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := service.PlanRequest{Repo: q.Get("repo"), Item: q.Get("item")}
	if req.Item == "" {
		h.fail(w, r, http.StatusBadRequest, "name the plan's item: "+Prefix+"dag?repo=CHECKOUT&item=REF (a ticket reference like github:OWNER/REPO#12 or jira:PROJ-12, or a work item id); an item's page links its plan")
		return
	}
	res, err := h.opts.Backend.Plan(r.Context(), req)
	if err != nil {
		h.fail(w, r, statusOf(err), "the plan could not be drawn: "+err.Error())
		return
	}
	p := res.Plan
	v := dagView{Repo: req.Repo, Item: req.Item, Root: res.Root, Warnings: append(append([]string(nil), res.Warnings...), p.Warnings...)}
	v.Drawing.Title = "dependency graph around " + res.Root
	for _, s := range p.Items {
		ref := relations.Short(s.Ref, p.Home)
		state := string(s.Verdict)
		if s.Progress.Node != "" && s.Verdict != dag.VerdictComplete {
			state += " · at " + s.Progress.Node
		}
		if s.Hold && s.Verdict != dag.VerdictHeld {
			state += " · held"
		}
		row := dagRow{Ref: ref, State: state, URL: h.opts.Backend.TicketURL(s.Ref.String()), Title: s.Title, Verdict: string(s.Verdict), Node: s.Progress.Node,
			Class: verdictClass(s.Verdict), Hold: s.Hold}
		for _, b := range s.Blockers {
			row.Blockers = append(row.Blockers, dagBlocker{Ref: relations.Short(b.Ref, p.Home), URL: h.opts.Backend.TicketURL(b.Ref.String()), At: b.At, Via: b.Via})
		}
		for _, pr := range s.Parents {
			row.Parents = append(row.Parents, relations.Short(pr, p.Home))
		}
		for _, c := range s.Children {
			row.Children = append(row.Children, relations.Short(c, p.Home))
		}
		v.Rows = append(v.Rows, row)
		v.Drawing.Boxes = append(v.Drawing.Boxes, Box{ID: ref, State: state, Class: row.Class})
	}
	for _, e := range p.Edges {
		on := "blocks"
		if e.Kind == dag.KindParent {
			on = "parent of"
		}
		v.Drawing.Links = append(v.Drawing.Links, Link{From: relations.Short(e.From, p.Home), To: relations.Short(e.To, p.Home), On: on})
	}
	for _, c := range p.Cycles {
		var refs []string
		for _, r := range c {
			refs = append(refs, relations.Short(r, p.Home))
		}
		v.Cycles = append(v.Cycles, refs)
	}
	h.render(w, r, http.StatusOK, "dag", page{Title: "Plan around " + res.Root, SignedIn: true, Data: v})
}

// verdictClass colours a plan item: finished, working, waiting, held.
func verdictClass(v dag.Verdict) string {
	switch v {
	case dag.VerdictComplete:
		return "done"
	case dag.VerdictWorking:
		return "working"
	case dag.VerdictHeld, dag.VerdictCycle, dag.VerdictUnknown:
		return "blocked"
	case dag.VerdictClosed:
		return "skipped"
	}
	return "pending"
}

// dagURL is the plan page around item of the checkout repo.
func dagURL(repo, item string) string {
	v := url.Values{"item": {item}}
	if repo != "" {
		v.Set("repo", repo)
	}
	return Prefix + "dag?" + v.Encode()
}
