package gates

import (
	"fmt"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/authz"
	"github.com/the-loop/the-loop/runtime/classify"
)

const HookClassifyAdhocReply = "classify-adhoc-reply"

// Conversational gate outcomes.
const (
	outcomeDone     = "done"
	outcomeMoreWork = "more-work"
)

// ClassifyAdhocReply is the conversational gate: the newest authorized reply
// of this visit decides — done when it plainly declares completion
// (classify.ReadDone), more work when it says or asks anything else — and
// silence keeps the gate open. A reply that cannot be read, or holds only
// emoji or thanks, keeps it open too (with one help comment per visit), and
// an edited reply is never read. Self-authored comments are dropped before
// authorization, so the loop cannot end its own work item.
func ClassifyAdhocReply(hc *runtime.HookContext) (runtime.Result, error) {
	if d, ok := hc.Recorded(); ok {
		return gateRecordedOutcome(hc, HookClassifyAdhocReply, d, outcomeMoreWork, "more work requested by %s; the gate asks again once the work is reported back"), nil
	}
	comments := authz.AuthorizedComments(hc.Config, gateCurrentVisit(hc, gateEventComments(hc)))
	if len(comments) == 0 {
		return runtime.Waiting(HookClassifyAdhocReply, "no authorized reply yet"), nil
	}
	newest := comments[len(comments)-1]
	if authz.Edited(newest) {
		return gateWaitEdited(hc, HookClassifyAdhocReply, newest), nil
	}
	read, reason := classify.ReadDone(newest.Body)
	if read == classify.NotYet {
		r := runtime.Waiting(HookClassifyAdhocReply, fmt.Sprintf("the newest authorized reply (by %s) is not read: %s", authz.At(newest.Author), reason))
		if why := gateHelp(hc, HookClassifyAdhocReply, newest, reason); why != "" {
			r.Data = gateData("error", why)
		}
		return r, nil
	}
	outcome := outcomeMoreWork
	if read == classify.Done {
		outcome = outcomeDone
	}
	d := &runtime.Decision{Node: hc.NodeID(), Kind: runtime.KindGate, Outcome: outcome, Via: gateViaComment,
		By: authz.At(newest.Author), CommentURL: newest.URL, Data: gateData("reason", reason, EvidenceKey, gateEvidence(newest))}
	return runtime.OK(HookClassifyAdhocReply, gateData("outcome", outcome, "decision", d,
		"comments", []integrations.Comment{newest}, "feedback", comments)), nil
}
