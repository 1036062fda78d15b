package gates

import (
	"errors"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/runtime"
)

// gateNoTracker is the degradation of a side effect with no integration.
const gateNoTracker = "no ticket integration is configured"

// errGateNoRef says the work item carries no ticket reference to act on.
var errGateNoRef = errors.New("the work item has no ticket reference (github:owner/repo#n or jira:KEY-1)")

// gateReadOnly is the skip reason of a side effect under check.
const gateReadOnly = "read-only evaluation: nothing is posted or written"

// gateTracker returns the integration a side effect goes through, or the
// degradation text when it cannot run.
func gateTracker(hc *runtime.HookContext) (integrations.Provider, string) {
	switch {
	case hc.Tracker == nil:
		return nil, gateNoTracker
	case hc.TicketRef.System == "":
		return nil, errGateNoRef.Error()
	}
	return hc.Tracker, ""
}

// gatePost posts body, self-marked, on the work item's thread (callers check
// gateTracker first).
func gatePost(hc *runtime.HookContext, body string) (integrations.Comment, error) {
	return hc.Tracker.CreateComment(hc.Context, hc.TicketRef, integrations.MarkSelfAuthored(body))
}

// gateData builds result data from key/value pairs.
func gateData(kv ...any) map[string]any {
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// gateDegrade is a pass that reports a side effect that did not happen.
func gateDegrade(hook, why string, kv ...any) runtime.Result {
	return runtime.OK(hook, gateData(append(kv, "error", why)...))
}
