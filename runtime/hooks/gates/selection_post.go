package gates

import (
	"strings"

	"github.com/the-loop/the-loop/handoff"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/checklist"
)

const HookPostPhaseSelection = "post-phase-selection"

// gateSelectionOptions are the checklist options for this work item: the
// operator's vocabulary and defaults, plus the handoff pre-fill when the
// item was handed off mid-stream. A frozen record that does not pass every
// record rule pre-fills nothing: the checklist is the ordinary one.
func gateSelectionOptions(hc *runtime.HookContext) checklist.Options {
	o := checklist.OptionsFor(hc.Graph, hc.Config, hc.NodeID())
	if hc.State == nil || hc.State.Handoff == nil {
		return o
	}
	hs := hc.State.Handoff
	rec, err := handoff.DecodeFrozen(hs.Record)
	if err != nil {
		return o
	}
	if _, ok := hc.Graph.Node(rec.Enter); ok {
		o.Handoff = &checklist.Handoff{By: hs.Author, Stage: rec.Stage, Enter: rec.Enter, RecordURL: hs.CommentURL}
	}
	return o
}

// selectionSkip is the declaration of one unticked row. A row the handoff
// pre-unticked (a skippable phase before its entry node) is recorded as a
// handoff skip: via handoff, signed by the replier who said execute (the
// replier still owns the walk), pointing at the record, with the reply kept
// beside it. `the-loop check` renders it "skipped by handoff (declared by
// @replier)". Every other row is an ordinary selection skip.
func selectionSkip(g *runtime.Graph, h *checklist.Handoff, s checklist.Skip, by, replyURL string) *runtime.Decision {
	d := &runtime.Decision{Node: s.Node, Kind: runtime.KindSkip, Via: runtime.ViaSelection, Token: s.Token, By: by, CommentURL: replyURL}
	if h == nil || h.RecordURL == "" {
		return d
	}
	n, okN := g.Node(s.Node)
	enter, okE := g.Node(h.Enter)
	if !okN || !okE || n.Index() >= enter.Index() {
		return d
	}
	d.Via, d.CommentURL = runtime.ViaHandoff, h.RecordURL
	d.Data = gateData("handoff", h.RecordURL, "reply", replyURL)
	return d
}

// gateHandoffComment reports a handoff record or continuation part: such a
// comment is data, and no keyword in it is ever read as a command.
func gateHandoffComment(body string) bool {
	for _, line := range strings.Split(body, "\n") {
		l := strings.TrimSpace(line)
		if l == handoff.RecordMarker || strings.HasPrefix(l, handoffPartMarkerPrefix) {
			return true
		}
	}
	return false
}

// handoffPartMarkerPrefix opens every continuation part's marker line
// (handoff.PartMarker).
const handoffPartMarkerPrefix = "<!-- the-loop:handoff-part "

// PostPhaseSelection posts the phase-selection checklist once: when the
// thread already holds the loop's own checklist, or the gate is answered,
// nothing is posted. A thread that cannot be listed is posted to anyway — a
// second checklist is harmless (the newest is read), a missing one stalls
// the item.
func PostPhaseSelection(hc *runtime.HookContext) (runtime.Result, error) {
	if hc.ReadOnly {
		return runtime.Skipped(HookPostPhaseSelection, gateReadOnly), nil
	}
	if _, ok := hc.Recorded(); ok {
		return runtime.OK(HookPostPhaseSelection, gateData("posted", false, "reason", "already answered")), nil
	}
	if hc.Graph == nil {
		return runtime.Result{}, errGateNoGraph
	}
	p, why := gateTracker(hc)
	if p == nil {
		return gateDegrade(HookPostPhaseSelection, why, "posted", false), nil
	}
	if thread, err := p.ListComments(hc.Context, hc.TicketRef); err == nil {
		if _, ok := gateNewestOwn(hc.Config, thread, checklist.Marker); ok {
			return runtime.OK(HookPostPhaseSelection, gateData("posted", false, "reason", "already asked")), nil
		}
	}
	c, err := gatePost(hc, checklist.Render(hc.Graph, gateSelectionOptions(hc)))
	if err != nil {
		return gateDegrade(HookPostPhaseSelection, err.Error(), "posted", false), nil
	}
	return runtime.OK(HookPostPhaseSelection, gateData("posted", true, "commentUrl", c.URL, runtime.PostedKey, c)), nil
}
