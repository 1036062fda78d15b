package gates

import (
	"fmt"
	"slices"
	"strings"

	"github.com/the-loop/the-loop/runtime"
)

const HookNotify = "notify"

// defaultNotifyEvent is sent when the entry names none.
const defaultNotifyEvent = "phase-approval-pending"

// Notify tells the people holding the entry's roles (param roles) that the
// work item reached this node (param event). With no roles, or no channel
// subscribed to the event, it skips; a failed delivery is a degradation.
func Notify(hc *runtime.HookContext) (runtime.Result, error) {
	event := strings.TrimSpace(hc.Param("event"))
	if event == "" {
		event = defaultNotifyEvent
	}
	roles := hc.ListParam("roles")
	if len(roles) == 0 {
		return runtime.Skipped(HookNotify, fmt.Sprintf("no roles configured for %s", event)), nil
	}
	if hc.ReadOnly {
		return runtime.Skipped(HookNotify, gateReadOnly), nil
	}
	if hc.Notifier == nil {
		return runtime.Skipped(HookNotify, fmt.Sprintf("no channel subscribed to %s — configure integrations.slack", event)), nil
	}
	if hc.Config != nil {
		if evs := hc.Config.Integrations.Slack.Events; len(evs) > 0 && !slices.Contains(evs, event) {
			return runtime.Skipped(HookNotify, fmt.Sprintf("no channel subscribed to %s — add it to integrations.slack.events", event)), nil
		}
	}
	text := notifyText(hc, event, roles)
	if err := hc.Notifier.Notify(hc.Context, event, text); err != nil {
		return gateDegrade(HookNotify, err.Error(), "delivered", false, "roles", roles), nil
	}
	return runtime.OK(HookNotify, gateData("delivered", true, "roles", roles)), nil
}

// notifyText says which item stands where and why it needs a person: the
// ticket, the escalation's reason, or that a gate waits for its reviewer.
// It is composed from the loop's own vocabulary (ids, node names, the
// reason the engine wrote): never a comment's text, never a credential.
func notifyText(hc *runtime.HookContext, event string, roles []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the-loop: %s", hc.WorkItem.ID)
	if ref := hc.WorkItem.Ref; ref != "" && ref != hc.WorkItem.ID {
		fmt.Fprintf(&b, " (%s)", ref)
	}
	fmt.Fprintf(&b, " is at *%s* (%s).", hc.NodeID(), event)
	switch {
	case hc.State != nil && hc.State.Escalation != nil && hc.Node != nil && hc.Node.Terminal:
		fmt.Fprintf(&b, " Escalated from %s: %s. A human decides how to go on.", hc.State.Escalation.From, hc.State.Escalation.Reason)
	case hc.Node != nil && hc.Node.IsHuman():
		b.WriteString(" It is ready for review: an authorized reviewer answers on the ticket.")
	}
	fmt.Fprintf(&b, " Roles: %s", strings.Join(roles, ", "))
	return b.String()
}
