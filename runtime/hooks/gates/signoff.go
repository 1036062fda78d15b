package gates

import (
	"fmt"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/authz"
	"github.com/the-loop/the-loop/runtime/classify"
)

const HookSecuritySignOff = "security-sign-off"

// signOffTier is the lowest risk tier that needs a named human sign-off.
const signOffTier = 4

// SecuritySignOff holds a work item of risk tier 4 or above until an
// authorized reviewer plainly gives a security sign-off, recorded as a
// decision with its author — the loop cannot certify its own threat model.
// The newest authorized comment that speaks of a sign-off decides: it signs
// off only when classify.SignsOff accepts it ("Security sign-off.", "I sign
// off on security."), so "Waiting for security sign-off." or a later
// withdrawal keeps the item waiting, and an edited one is never read. Below
// tier 4 the autonomous security review suffices and it passes.
func SecuritySignOff(hc *runtime.HookContext) (runtime.Result, error) {
	if d, ok := hc.Recorded(); ok {
		return runtime.OK(HookSecuritySignOff, gateData("signedOffBy", d.By)), nil
	}
	tier := RiskTier(hc)
	if tier < signOffTier {
		return runtime.OK(HookSecuritySignOff, gateData("riskTier", tier, "signOff", "not required below tier 4")), nil
	}
	waiting := fmt.Sprintf("risk tier %d needs a named security sign-off: an authorized reviewer comments `Security sign-off.` on the thread", tier)
	comments := authz.AuthorizedComments(hc.Config, gateEventComments(hc))
	for i := len(comments) - 1; i >= 0; i-- {
		c := comments[i]
		if !classify.MentionsSignOff(c.Body) {
			continue
		}
		if authz.Edited(c) {
			return gateWaitEdited(hc, HookSecuritySignOff, c), nil
		}
		ok, reason := classify.SignsOff(c.Body)
		if !ok {
			r := runtime.Waiting(HookSecuritySignOff, fmt.Sprintf("%s; the newest comment about it (by %s) is not one: %s", waiting, authz.At(c.Author), reason))
			if why := gateHelp(hc, HookSecuritySignOff, c, reason); why != "" {
				r.Data = gateData("error", why)
			}
			return r, nil
		}
		d := &runtime.Decision{Node: hc.NodeID(), Kind: runtime.KindGate, Outcome: "signed-off", Via: gateViaComment,
			By: authz.At(c.Author), CommentURL: c.URL, Data: gateData("riskTier", tier, "reason", reason, EvidenceKey, gateEvidence(c))}
		return runtime.OK(HookSecuritySignOff, gateData("decision", d, "riskTier", tier, "signedOffBy", d.By)), nil
	}
	return runtime.Waiting(HookSecuritySignOff, waiting), nil
}
