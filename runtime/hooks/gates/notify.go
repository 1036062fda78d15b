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
	text := fmt.Sprintf("the-loop: %s is at *%s* (%s). Roles: %s", hc.WorkItem.ID, hc.NodeID(), event, strings.Join(roles, ", "))
	if err := hc.Notifier.Notify(hc.Context, event, text); err != nil {
		return gateDegrade(HookNotify, err.Error(), "delivered", false, "roles", roles), nil
	}
	return runtime.OK(HookNotify, gateData("delivered", true, "roles", roles)), nil
}
