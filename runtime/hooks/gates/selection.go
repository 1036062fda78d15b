package gates

import (
	"errors"
	"fmt"
	"slices"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/authz"
	"github.com/the-loop/the-loop/runtime/checklist"
	"github.com/the-loop/the-loop/runtime/control"
)

const HookClassifyPhaseSelection = "classify-phase-selection"

// outcomeSelected is phase-selection's routing outcome.
const outcomeSelected = "selected"

var errGateNoGraph = errors.New("the hook context carries no graph")

// ClassifyPhaseSelection answers the phase-selection gate. It waits for an
// authorized reply carrying the execute command (as the control parser reads
// it: a line of its own, the author's own words, no other command). The
// newest authorized comment that names the execute keyword at all decides:
// it signs only when it is that command and was never edited, so a later
// "do not the-loop execute yet" withdraws an earlier one. A checklist
// inside that reply is the selection; otherwise the loop's own posted
// checklist is read as it stands. Unticked skippable rows become declared
// skips, ticked opt-ins run, and the resolved graph is frozen with its
// provenance into the decision. A checklist that cannot be read keeps the
// gate waiting rather than guessing.
func ClassifyPhaseSelection(hc *runtime.HookContext) (runtime.Result, error) {
	if _, ok := hc.Recorded(); ok {
		return runtime.OK(HookClassifyPhaseSelection, gateData("outcome", outcomeSelected)), nil
	}
	if hc.Graph == nil {
		return runtime.Result{}, errGateNoGraph
	}
	kw := hc.Config.Keyword(string(control.Execute))
	if kw == "" {
		return runtime.Waiting(HookClassifyPhaseSelection, "the execute command is disabled (routing.control.keywords.execute is empty), so phase-selection cannot be answered"), nil
	}
	parser := control.New(hc.Config)
	var reply *integrations.Comment
	authorized := authz.AuthorizedComments(hc.Config, gateEventComments(hc))
	for i := len(authorized) - 1; i >= 0; i-- {
		if gateHandoffComment(authorized[i].Body) {
			continue // a handoff record is data: its text never signs a selection
		}
		res := parser.Parse(authorized[i].Body)
		if !slices.Contains(res.Found, control.Execute) {
			continue
		}
		switch {
		case authz.Edited(authorized[i]):
			return gateWaitEdited(hc, HookClassifyPhaseSelection, authorized[i]), nil
		case res.Command != control.Execute:
			return runtime.Waiting(HookClassifyPhaseSelection, fmt.Sprintf("the newest authorized comment naming `%s` (by %s) is not the command: it counts only as a line of its own, outside quotes and code, with no other command in the comment; waiting for an authorized user to reply `%s`",
				kw, authz.At(authorized[i].Author), kw)), nil
		}
		reply = &authorized[i]
		break
	}
	if reply == nil {
		return runtime.Waiting(HookClassifyPhaseSelection, fmt.Sprintf("waiting for an authorized user to choose the phases and reply `%s`", kw)), nil
	}
	body, via := reply.Body, "reply"
	if checklist.Parse(reply.Body).Len() == 0 {
		posted, found, why := gatePostedChecklist(hc)
		if why != "" {
			return runtime.Waiting(HookClassifyPhaseSelection, fmt.Sprintf("the posted checklist could not be read (%s); the gate asks again on the next event — or reply `%s` with the checklist inside the reply", why, kw)), nil
		}
		if found {
			body, via = posted, "checklist"
		} else {
			body = ""
		}
	}
	opts := gateSelectionOptions(hc)
	sel := checklist.Resolve(hc.Graph, checklist.Parse(body), opts)
	sel = keepSpecApprovalsAtTierFive(hc, sel)
	return selectionResult(hc, reply, via, kw, opts, sel), nil
}

// specApprovalTier is the risk tier from which a human approves the spec as
// well as the pull request: its approval gates cannot be skipped.
const specApprovalTier = 5

// keepSpecApprovalsAtTierFive refuses, at risk tier 5, every declared skip
// of a human gate: the spec approvals then always run.
func keepSpecApprovalsAtTierFive(hc *runtime.HookContext, sel checklist.Selection) checklist.Selection {
	if RiskTier(hc) < specApprovalTier {
		return sel
	}
	kept := sel.Skips[:0:0]
	for _, sk := range sel.Skips {
		if n, ok := hc.Graph.Node(sk.Node); ok && n.IsHuman() {
			sel.Refused = append(sel.Refused, sk.Node)
			continue
		}
		kept = append(kept, sk)
	}
	sel.Skips = kept
	return sel
}

// gatePostedChecklist reads the loop's own newest checklist comment. why is
// non-empty when the thread could not be read.
func gatePostedChecklist(hc *runtime.HookContext) (body string, found bool, why string) {
	if hc.ReadOnly {
		return "", false, "the thread is not read under check"
	}
	p, why := gateTracker(hc)
	if p == nil {
		return "", false, why
	}
	thread, err := p.ListComments(hc.Context, hc.TicketRef)
	if err != nil {
		return "", false, err.Error()
	}
	c, ok := gateNewestOwn(hc.Config, thread, checklist.Marker)
	return c.Body, ok, ""
}

func selectionResult(hc *runtime.HookContext, reply *integrations.Comment, via, kw string, opts checklist.Options, sel checklist.Selection) runtime.Result {
	by := authz.At(reply.Author)
	effective := sel.SessionPerPR
	if effective == "" {
		effective = opts.SessionPerPR
	}
	skipped := map[string]bool{}
	skips := make([]*runtime.Decision, 0, len(sel.Skips))
	for _, s := range sel.Skips {
		skipped[s.Node] = true
		skips = append(skips, selectionSkip(hc.Graph, opts.Handoff, s, by, reply.URL))
	}
	optIns := make([]*runtime.Decision, 0, len(sel.OptIns))
	selected := map[string]bool{}
	for _, n := range sel.OptIns {
		selected[n] = true
		optIns = append(optIns, &runtime.Decision{Node: n, Kind: runtime.KindOptIn, Via: runtime.ViaSelection, Token: n, By: by, CommentURL: reply.URL})
	}
	nodes := make([]any, 0, len(hc.Graph.Nodes))
	for _, n := range hc.Graph.Nodes {
		if n.RequiresHandoff && opts.Handoff == nil {
			continue // not part of this item's walk: the frozen graph is the one it had before handoffs existed
		}
		nodes = append(nodes, map[string]any{
			"id": n.ID, "phase": n.Phase, "skipped": skipped[n.ID] || (n.OptIn && !selected[n.ID]),
			"selectable": n.Skippable, "optIn": n.OptIn,
		})
	}
	frozen := map[string]any{"loop": hc.Graph.Name, "workItem": hc.WorkItem.ID, "surface": sel.Surface, "sessionPerPr": effective, "nodes": nodes}
	decision := &runtime.Decision{
		Node: hc.NodeID(), Kind: runtime.KindSelection, Outcome: outcomeSelected, Via: via, Token: kw, By: by, CommentURL: reply.URL,
		Data: map[string]any{
			"graph": frozen, "surface": sel.Surface, "sessionPerPr": effective, "sessionPerPrChoice": sel.SessionPerPR,
			"model": sel.Model, "effort": sel.Effort, "harness": sel.Harness, "armChildren": sel.ArmChildren, "refused": gateList(sel.Refused),
			"notSelected": gateList(sel.NotSelected), "ignored": gateList(sel.Ignored),
			EvidenceKey: gateEvidence(*reply),
		},
	}
	data := gateData("outcome", outcomeSelected, "decision", decision, "declaredSkips", skips, "optIns", optIns, "selectionSource", via)
	if !hc.ReadOnly {
		if p, why := gateTracker(hc); p == nil {
			data["error"] = why
		} else if _, err := gatePost(hc, checklist.Confirmation(sel, by, opts, opts.SessionPerPR)); err != nil {
			data["error"] = fmt.Sprintf("the confirmation was not posted: %v", err)
		}
	}
	return runtime.OK(HookClassifyPhaseSelection, data)
}

// gateList returns list, or an empty (non-nil) slice.
func gateList(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}
