package hooks

import (
	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/classify"
)

const hookAdhocReply = "classify-adhoc-reply"

// Conversational gate outcomes.
const (
	outcomeDone     = "done"
	outcomeMoreWork = "more-work"
)

// classifyAdhocReply is the conversational gate: the newest authorized reply
// of this visit decides — done when it declares completion
// (classify.DeclaresDone), more work for any other reply — and silence keeps
// the gate open. Self-authored comments are dropped before authorization,
// so the loop cannot end its own work item.
func classifyAdhocReply(hc *runtime.HookContext) (runtime.Result, error) {
	if d, ok := gateRecorded(hc); ok {
		return gateRecordedOutcome(hc, hookAdhocReply, d, outcomeMoreWork, "more work requested by %s; the gate asks again once the work is reported back"), nil
	}
	comments := AuthorizedComments(hc.Config, gateCurrentVisit(hc, gateEventComments(hc)))
	if len(comments) == 0 {
		return runtime.Waiting(hookAdhocReply, "no authorized reply yet"), nil
	}
	newest := comments[len(comments)-1]
	outcome := outcomeMoreWork
	done, reason := classify.DeclaresDone(newest.Body)
	if done {
		outcome = outcomeDone
	}
	d := &runtime.Decision{Node: hc.NodeID(), Kind: runtime.KindGate, Outcome: outcome, Via: gateViaComment,
		By: gateAt(newest.Author), CommentURL: newest.URL, Data: gateData("reason", reason)}
	return runtime.OK(hookAdhocReply, gateData("outcome", outcome, "decision", d,
		"comments", []integrations.Comment{newest}, "feedback", comments)), nil
}
