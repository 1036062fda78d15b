package gates

import (
	"fmt"
	"strings"

	"github.com/the-loop/the-loop/runtime"
)

const HookRequestReview = "request-review"

// ReviewMarker marks the review request of one gate visit; the gate
// reads only the replies that follow the newest one.
func ReviewMarker(node string) string {
	return "<!-- the-loop:review-request " + node + " -->"
}

// gateHasExit reports whether n's exit chain runs hook.
func gateHasExit(n *runtime.Node, hook string) bool {
	_, ok := gateExitParam(n, hook, "")
	return ok
}

// gateExitParam returns param of the first exit-chain entry of hook on n.
func gateExitParam(n *runtime.Node, hook, param string) (string, bool) {
	if n == nil {
		return "", false
	}
	for _, e := range n.Exit {
		if e.Hook == hook {
			v, ok := e.With[param]
			if !ok || v == nil {
				return "", true
			}
			return fmt.Sprint(v), true
		}
	}
	return "", false
}

// RequestReview posts, on entering a human gate, the request that opens the
// gate's visit: what is under review and which answers the gate reads.
func RequestReview(hc *runtime.HookContext) (runtime.Result, error) {
	if hc.ReadOnly {
		return runtime.Skipped(HookRequestReview, gateReadOnly), nil
	}
	p, why := gateTracker(hc)
	if p == nil {
		return gateDegrade(HookRequestReview, why, "posted", false), nil
	}
	c, err := gatePost(hc, reviewRequestBody(hc))
	if err != nil {
		return gateDegrade(HookRequestReview, err.Error(), "posted", false), nil
	}
	return runtime.OK(HookRequestReview, gateData("posted", true, "commentUrl", c.URL, runtime.PostedKey, c)), nil
}

func reviewRequestBody(hc *runtime.HookContext) string {
	node := hc.NodeID()
	var b strings.Builder
	fmt.Fprintf(&b, "🤖 _the-loop_ — **%s** is ready for review.\n\n", node)
	if gateHasExit(hc.Node, HookClassifyAdhocReply) {
		fmt.Fprintf(&b, "Work item `%s` is waiting for you. Reply `done` when nothing more is needed, or say what should happen next — any other reply is taken as more work.", hc.WorkItem.ID)
	} else {
		fmt.Fprintf(&b, "Work item `%s` has reached a human gate", hc.WorkItem.ID)
		if subject, _ := gateExitParam(hc.Node, HookClassifyFeedback, "subject"); subject != "" {
			fmt.Fprintf(&b, " over %s", gateNames(subject))
		}
		b.WriteString(". Reply `approved`, `approved with comments` (and say what), or `changes requested` with the changes you want. A reply that says the review is unfinished, or a question, leaves the gate open.")
	}
	b.WriteString(" Only replies from authorized users are read, and the newest reply that decides is the one that counts.\n\n")
	b.WriteString(ReviewMarker(node) + "\n")
	return b.String()
}

// gateNames renders an artifact entry ("a.md|b.md") as "`a.md` or `b.md`".
func gateNames(entry string) string {
	names := runtime.Alternatives(entry)
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, " or ")
}
