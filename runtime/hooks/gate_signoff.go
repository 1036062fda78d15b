package hooks

import (
	"fmt"

	"github.com/the-loop/the-loop/runtime"
	"github.com/the-loop/the-loop/runtime/classify"
)

const hookSecuritySignOff = "security-sign-off"

// signOffTier is the lowest risk tier that needs a named human sign-off.
const signOffTier = 4

// signOffPhrases name a security sign-off in a reviewer's comment.
var signOffPhrases = []string{"security sign-off", "security signoff", "security sign off",
	"security signed off", "security signed-off", "security approved"}

// securitySignOff holds a work item of risk tier 4 or above until an
// authorized reviewer's comment plainly names a security sign-off (not
// negated, hedged or asked), recorded as a decision with its author — the
// loop cannot certify its own threat model. Below tier 4 the autonomous
// security review suffices and it passes.
func securitySignOff(hc *runtime.HookContext) (runtime.Result, error) {
	if d, ok := gateRecorded(hc); ok {
		return runtime.OK(hookSecuritySignOff, gateData("signedOffBy", d.By)), nil
	}
	tier := RiskTier(hc)
	if tier < signOffTier {
		return runtime.OK(hookSecuritySignOff, gateData("riskTier", tier, "signOff", "not required below tier 4")), nil
	}
	comments := AuthorizedComments(hc.Config, gateEventComments(hc))
	for i := len(comments) - 1; i >= 0; i-- {
		c := comments[i]
		phrase, ok := classify.Affirms(c.Body, signOffPhrases...)
		if !ok {
			continue
		}
		d := &runtime.Decision{Node: hc.NodeID(), Kind: runtime.KindGate, Outcome: "signed-off", Via: gateViaComment,
			By: gateAt(c.Author), CommentURL: c.URL, Data: gateData("riskTier", tier, "phrase", phrase)}
		return runtime.OK(hookSecuritySignOff, gateData("decision", d, "riskTier", tier, "signedOffBy", d.By)), nil
	}
	return runtime.Waiting(hookSecuritySignOff, fmt.Sprintf("risk tier %d needs a named security sign-off: an authorized reviewer comments `security sign-off` on the thread", tier)), nil
}
