package hooks

import (
	"encoding/json"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/checklist"
)

const hookPostPhaseSelection = "post-phase-selection"

// gateSelectionOptions are the checklist options for this work item: the
// operator's vocabulary and defaults, plus the handoff pre-fill when the
// item was handed off mid-stream.
func gateSelectionOptions(hc *runtime.HookContext) checklist.Options {
	o := checklist.OptionsFor(hc.Graph, hc.Config, hc.NodeID())
	if hc.State == nil || hc.State.Handoff == nil {
		return o
	}
	hs := hc.State.Handoff
	var rec struct {
		Stage string `json:"stage"`
		Enter string `json:"enter"`
	}
	if err := json.Unmarshal(hs.Record, &rec); err == nil && rec.Enter != "" {
		if _, ok := hc.Graph.Node(rec.Enter); ok {
			o.Handoff = &checklist.Handoff{By: hs.Author, Stage: rec.Stage, Enter: rec.Enter, RecordURL: hs.CommentURL}
		}
	}
	return o
}

// postPhaseSelection posts the phase-selection checklist once: when the
// thread already holds the loop's own checklist, or the gate is answered,
// nothing is posted. A thread that cannot be listed is posted to anyway — a
// second checklist is harmless (the newest is read), a missing one stalls
// the item.
func postPhaseSelection(hc *runtime.HookContext) (runtime.Result, error) {
	if hc.ReadOnly {
		return runtime.Skipped(hookPostPhaseSelection, gateReadOnly), nil
	}
	if _, ok := gateRecorded(hc); ok {
		return runtime.OK(hookPostPhaseSelection, gateData("posted", false, "reason", "already answered")), nil
	}
	if hc.Graph == nil {
		return runtime.Result{}, errGateNoGraph
	}
	p, why := gateTracker(hc)
	if p == nil {
		return gateDegrade(hookPostPhaseSelection, why, "posted", false), nil
	}
	if thread, err := p.ListComments(hc.Context, hc.TicketRef); err == nil {
		if _, ok := gateNewestOwn(hc.Config, thread, checklist.Marker); ok {
			return runtime.OK(hookPostPhaseSelection, gateData("posted", false, "reason", "already asked")), nil
		}
	}
	c, err := gatePost(hc, checklist.Render(hc.Graph, gateSelectionOptions(hc)))
	if err != nil {
		return gateDegrade(hookPostPhaseSelection, err.Error(), "posted", false), nil
	}
	return runtime.OK(hookPostPhaseSelection, gateData("posted", true, "commentUrl", c.URL)), nil
}
